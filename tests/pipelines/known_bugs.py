"""Cases that fail because of a bug in another component: strict xfails with the precise bug.

Keys are (runtime, pipeline name, mode); runtime is "driver", "runtime" (simulator) or "spark".
"""

from __future__ import annotations

from typing import Any

import pytest

BATCH_IGNORED = (
    "runtime: set_runtime_mode(BATCH) is ignored by the simulated cluster — keyed "
    "reduce/aggregations emit every running update instead of one final value per key, and "
    "processing-time timers do not fire at end of input (spark/batch.py implements both)"
)
BATCH_DIFFERS = [
    "keyed_reduce_p2",
    "keyed_sum_tuple_keeps_first_fields",
    "keyed_min_max_tuple_p2",
    "keyed_min_by_max_by_tuple",
    "keyed_row_field_sum_max_by_p2",
    "key_by_int_keys_p4_routing",
    "key_by_string_keys_p3_routing",
    "keyed_reduce_p4_rebalanced_into_p1_sink",
    "generate_sequence_keyed_sum_batch_final_values",
    "keyed_process_processing_time_timer_far_future",
    "keyed_row_positional_named_by_type_p2",
]

KNOWN_BUGS: dict[tuple[str, str, str], str] = {}
for _name in BATCH_DIFFERS:
    KNOWN_BUGS[("runtime", _name, "BATCH")] = BATCH_IGNORED


def params(runtime: str, pairs: list[tuple[Any, str]]) -> list[Any]:
    """pytest params for (pipeline, mode) pairs, known bugs marked ``xfail(strict=True)``."""
    out = []
    for pipeline, mode in pairs:
        reason = KNOWN_BUGS.get((runtime, pipeline.name, mode))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(pipeline, mode, marks=marks, id=f"{pipeline.name}-{mode}"))
    return out
