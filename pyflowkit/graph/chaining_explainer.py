"""Why an edge is (not) chained: Flink 1.11's ``isChainable`` rules in words a student understands.

Not a Flink class: it evaluates ``StreamingJobGraphGenerator.isChainable`` rule by rule and names
the first rule that fails.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph
from pyflowkit.graph.streaming_job_graph_generator import _head_operator_class
from pyflowkit.graph.transformations import ChainingStrategy, ShuffleMode

CHAINED_REASON = "all chaining rules hold"


class ChainingDecision(NamedTuple):
    """One StreamEdge: its two operators (``name-id``), whether it is chained, and why (not)."""

    upstream: str
    downstream: str
    chained: bool
    reason: str


def first_failed_rule(edge: StreamEdge, chaining_enabled: bool) -> str | None:
    """The first of the seven 1.11 rules ``edge`` breaks, in words; None when it chains."""
    up, down = edge.source, edge.target
    if len(down.in_edges) != 1:
        n = len(down.in_edges)
        if down.invokable_class == "TwoInputStreamTask":
            return (
                f"{down.operator_name} has {n} inputs (a two-input operator never chains to them)"
            )
        return f"Union target has {n} inputs ({down.operator_name} would need exactly 1 to chain)"
    if up.slot_sharing_group != down.slot_sharing_group:
        return (
            f"different slot sharing groups: '{up.slot_sharing_group}' → "
            f"'{down.slot_sharing_group}'"
        )
    if up.chaining_strategy is ChainingStrategy.NEVER:
        return f"{up.operator_name} has chaining strategy NEVER"
    if down.chaining_strategy is not ChainingStrategy.ALWAYS:
        return f"{down.operator_name} has chaining strategy {down.chaining_strategy.name}"
    if down.operator_factory.operator_class == "AsyncWaitOperator" and (
        _head_operator_class(up) == "StreamSource"
    ):
        return f"{down.operator_name} yields and cannot chain to a legacy source"
    ship = edge.partitioner.ship_strategy
    if ship != "FORWARD":
        if edge.default_partitioner and up.parallelism != down.parallelism:
            return (
                f"parallelism differs: {up.parallelism} → {down.parallelism}, so the ship "
                f"strategy is {ship}, not FORWARD"
            )
        return f"ship strategy is {ship}, not FORWARD"
    if edge.shuffle_mode is ShuffleMode.BATCH:
        return "shuffle mode is BATCH (a blocking exchange)"
    if up.parallelism != down.parallelism:
        return f"parallelism differs: {up.parallelism} → {down.parallelism}"
    if not chaining_enabled:
        return "chaining disabled on the environment"
    return None


def explain_chaining(stream_graph: StreamGraph) -> list[ChainingDecision]:
    """One ``ChainingDecision`` per StreamEdge, in the StreamGraph's edge order."""
    rows = []
    for edge in stream_graph.edges:
        reason = first_failed_rule(edge, stream_graph.chaining_enabled)
        rows.append(
            ChainingDecision(
                str(edge.source), str(edge.target), reason is None, reason or CHAINED_REASON
            )
        )
    return rows


def explain_chaining_frame(stream_graph: StreamGraph) -> Any:
    """``explain_chaining`` as a pandas DataFrame (pandas is imported only here)."""
    import pandas as pd

    return pd.DataFrame(explain_chaining(stream_graph), columns=list(ChainingDecision._fields))
