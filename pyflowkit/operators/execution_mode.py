"""The job's execution mode as the operators see it, and the operators BATCH translates to.

Stands for Flink 1.12's ``RuntimeExecutionMode`` resolution (``AUTOMATIC`` is BATCH when every
source is bounded) and the ``StreamGraphGenerator``'s BATCH translators, which pick
``BatchGroupedReduceOperator`` where STREAMING picks ``StreamGroupedReduce``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

STREAMING = "STREAMING"
BATCH = "BATCH"
AUTOMATIC = "AUTOMATIC"

# STREAMING operator class → the class Flink's BATCH translator uses instead
BATCH_TRANSLATIONS = {"StreamGroupedReduce": "BatchGroupedReduceOperator"}


def _mode_name(mode: Any) -> str:
    return str(getattr(mode, "name", mode) or STREAMING).upper().split(".")[-1]


def is_unbounded_source(node: Any) -> bool:
    """A StreamNode whose source declares ``CONTINUOUS_UNBOUNDED`` boundedness."""
    boundedness = getattr(getattr(node, "transformation", None), "boundedness", None)
    return getattr(boundedness, "value", boundedness) == "CONTINUOUS_UNBOUNDED"


def resolve_runtime_mode(mode: Any, nodes: Iterable[Any]) -> str:
    """STREAMING or BATCH: ``AUTOMATIC`` is BATCH unless one of ``nodes`` is an unbounded source."""
    name = _mode_name(mode)
    if name == AUTOMATIC:
        return STREAMING if any(is_unbounded_source(n) for n in nodes) else BATCH
    if name not in (STREAMING, BATCH):
        raise ValueError(f"Unknown execution.runtime-mode {name!r}: STREAMING, BATCH or AUTOMATIC.")
    return name


def job_runtime_mode(job_graph: Any) -> str:
    """The resolved mode of a JobGraph (job-wide, as Flink resolves it)."""
    nodes = (n for v in job_graph.vertices for n in v.stream_nodes)
    return resolve_runtime_mode(getattr(job_graph, "runtime_mode", STREAMING), nodes)


def upstream_nodes(vertex: Any) -> list[Any]:
    """The vertex's StreamNodes and every StreamNode upstream of them."""
    seen: dict[int, Any] = {}
    stack = list(vertex.stream_nodes)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(e.source for e in node.in_edges)
    return list(seen.values())


def factory_for_mode(factory: Any, runtime_mode: str) -> Any:
    """The operator factory a node runs with in ``runtime_mode`` (BATCH swaps the class)."""
    if runtime_mode != BATCH:
        return factory
    batch_class = BATCH_TRANSLATIONS.get(factory.operator_class)
    if batch_class is None:
        return factory
    return dataclasses.replace(factory, operator_class=batch_class)
