"""Cases that fail because of a bug in another component: strict xfails with the precise bug.

Keys are (runtime, pipeline name, mode); runtime is "driver", "runtime" (simulator) or "spark".
"""

from __future__ import annotations

from typing import Any

import pytest

KNOWN_BUGS: dict[tuple[str, str, str], str] = {}


def params(runtime: str, pairs: list[tuple[Any, str]]) -> list[Any]:
    """pytest params for (pipeline, mode) pairs, known bugs marked ``xfail(strict=True)``."""
    out = []
    for pipeline, mode in pairs:
        reason = KNOWN_BUGS.get((runtime, pipeline.name, mode))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(pipeline, mode, marks=marks, id=f"{pipeline.name}-{mode}"))
    return out
