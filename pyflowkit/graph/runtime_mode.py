"""The execution-mode rule: STREAMING or BATCH, with ``AUTOMATIC`` resolved by source boundedness.

Stands for Flink 1.12's ``RuntimeExecutionMode`` resolution (``StreamGraphGenerator
.shouldExecuteInBatchMode``): ``AUTOMATIC`` is BATCH when every source is bounded, STREAMING as
soon as one is ``CONTINUOUS_UNBOUNDED``. The graph compiler, the API's sink topology, the task
core and the Spark planner all resolve the mode here, so they always agree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

STREAMING = "STREAMING"
BATCH = "BATCH"
AUTOMATIC = "AUTOMATIC"
UNBOUNDED = "CONTINUOUS_UNBOUNDED"
_NAMES = frozenset((STREAMING, BATCH, AUTOMATIC))


def mode_name(mode: Any) -> str:
    """``RuntimeExecutionMode.BATCH``, ``"batch"``, ``"RuntimeExecutionMode.BATCH"`` → ``"BATCH"``;
    None → STREAMING (Flink's default)."""
    if mode.__class__ is str and mode in _NAMES:  # already a name (the settings' own form)
        return mode
    return str(getattr(mode, "name", mode) or STREAMING).upper().split(".")[-1]


def is_unbounded(boundedness: Any) -> bool:
    """A source's ``Boundedness`` (enum or its value) says ``CONTINUOUS_UNBOUNDED``."""
    return getattr(boundedness, "value", boundedness) == UNBOUNDED


def resolve_runtime_mode(
    mode: Any, source_boundedness: Iterable[Any] | Callable[[], Iterable[Any]]
) -> str:
    """STREAMING or BATCH for a job whose sources declare ``source_boundedness`` (or a function
    giving them: called only for AUTOMATIC, so a STREAMING/BATCH job's sources are not walked)."""
    name = mode_name(mode)
    if name == AUTOMATIC:
        if callable(source_boundedness):
            source_boundedness = source_boundedness()
        return STREAMING if any(is_unbounded(b) for b in source_boundedness) else BATCH
    if name not in (STREAMING, BATCH):
        raise ValueError(f"Unknown execution.runtime-mode {name!r}: STREAMING, BATCH or AUTOMATIC.")
    return name


def job_runtime_mode(job_graph: Any) -> str:
    """The resolved mode of a JobGraph (job-wide, as Flink resolves it: its ``JobType``)."""
    boundedness = (
        getattr(getattr(n, "transformation", None), "boundedness", None)
        for v in job_graph.vertices
        for n in v.stream_nodes
    )
    return resolve_runtime_mode(getattr(job_graph, "runtime_mode", STREAMING), boundedness)
