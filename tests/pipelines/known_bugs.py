"""Cases that fail because of a bug in another component: strict xfails with the precise bug.

Keys are (runtime, pipeline name, mode); runtime is "driver", "runtime" (simulator) or "spark".
"""

from __future__ import annotations

from typing import Any

import pytest

SHARED_FUNCTION = (
    "operators/local_driver: LocalDriver shares one user-function object across parallel "
    "subtasks (Flink deserialises a copy per subtask, as runtime/stream_task.isolated_vertex "
    "does); state handles taken in open() at p>1 point at the last-opened subtask's state"
)
ROW_BY_TYPE = (
    "operators/window_aggregators: sum/max_by('amount') on positional Rows look the field up in "
    "the Row's own names (KeyError 'amount') instead of the declared ROW_NAMED type's field index"
)

KNOWN_BUGS: dict[tuple[str, str, str], str] = {
    ("driver", "keyed_process_value_list_map_state_event_timers_p2", "STREAMING"): SHARED_FUNCTION,
    ("driver", "connect_keyed_co_process_p2", "STREAMING"): SHARED_FUNCTION,
}
for _runtime in ("driver", "runtime", "spark"):
    for _mode in ("STREAMING", "BATCH"):
        KNOWN_BUGS[(_runtime, "keyed_row_positional_named_by_type_p2", _mode)] = ROW_BY_TYPE


def params(runtime: str, pairs: list[tuple[Any, str]]) -> list[Any]:
    """pytest params for (pipeline, mode) pairs, known bugs marked ``xfail(strict=True)``."""
    out = []
    for pipeline, mode in pairs:
        reason = KNOWN_BUGS.get((runtime, pipeline.name, mode))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(pipeline, mode, marks=marks, id=f"{pipeline.name}-{mode}"))
    return out
