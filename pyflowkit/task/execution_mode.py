"""The job's execution mode as the task's operators see it, and the operators BATCH translates to.

The mode is resolved by ``graph.runtime_mode`` (the one rule); this module applies it to a
JobGraph and to operator factories, as the ``StreamGraphGenerator``'s BATCH translators pick
``BatchGroupedReduceOperator`` where STREAMING picks ``StreamGroupedReduce``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from pyflowkit.graph.runtime_mode import BATCH, STREAMING, is_unbounded, job_runtime_mode
from pyflowkit.graph.runtime_mode import resolve_runtime_mode as resolve_mode

__all__ = ["BATCH", "STREAMING", "factory_for_mode", "job_runtime_mode", "resolve_runtime_mode"]

# STREAMING operator class → the class Flink's BATCH translator uses instead
BATCH_TRANSLATIONS = {"StreamGroupedReduce": "BatchGroupedReduceOperator"}
# BroadcastStateTransformationTranslator.translateForBatchInternal (FLINK-20491): only where the
# version has a DataStream BATCH mode (the BATCH_BROADCAST_FIRST rule)
BATCH_BROADCAST_TRANSLATIONS = {
    "CoBroadcastWithNonKeyedOperator": "BatchCoBroadcastWithNonKeyedOperator",
    "CoBroadcastWithKeyedOperator": "BatchCoBroadcastWithKeyedOperator",
}


def is_unbounded_source(node: Any) -> bool:
    """A StreamNode whose source declares ``CONTINUOUS_UNBOUNDED`` boundedness."""
    return is_unbounded(getattr(getattr(node, "transformation", None), "boundedness", None))


def resolve_runtime_mode(mode: Any, nodes: Iterable[Any] | Callable[[], Iterable[Any]]) -> str:
    """STREAMING or BATCH for StreamNodes ``nodes`` (``graph.runtime_mode``'s rule); ``nodes``
    may be a function giving them, called only for AUTOMATIC (a STREAMING/BATCH task's upstream
    is not walked)."""

    def boundedness() -> Iterable[Any]:
        found = nodes() if callable(nodes) else nodes
        return (getattr(getattr(n, "transformation", None), "boundedness", None) for n in found)

    return resolve_mode(mode, boundedness)


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


def factory_for_mode(factory: Any, runtime_mode: str, batch_broadcast: Any = None) -> Any:
    """The operator factory a node runs with in ``runtime_mode`` (BATCH swaps the class);
    ``batch_broadcast``: the profile's ``BatchBroadcastInput`` rule (None: no BATCH broadcast
    operators, as under 1.11)."""
    if runtime_mode != BATCH:
        return factory
    batch_class = BATCH_TRANSLATIONS.get(factory.operator_class)
    if batch_class is None and batch_broadcast is not None and batch_broadcast.broadcast_side_first:
        batch_class = BATCH_BROADCAST_TRANSLATIONS.get(factory.operator_class)
    if batch_class is None:
        return factory
    return dataclasses.replace(factory, operator_class=batch_class)
