"""Why an edge is (not) chained: Flink 1.11's ``isChainable`` rules in words a student understands.

Not a Flink class: it reads ``chaining_rules.CHAINING_RULES`` (the table the JobGraph generator
and the hasher decide by) and names the first rule an edge breaks.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pyflowkit.graph.chaining_rules import first_failed_rule
from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph

CHAINED_REASON = "all chaining rules hold"


class ChainingDecision(NamedTuple):
    """One StreamEdge: its two operators (``name-id``), whether it is chained, and why (not)."""

    upstream: str
    downstream: str
    chained: bool
    reason: str


def failed_rule_reason(edge: StreamEdge, chaining_enabled: bool) -> str | None:
    """Why ``edge`` is not chained (the first rule of ``CHAINING_RULES`` it breaks, in words);
    None when it chains."""
    rule = first_failed_rule(edge, chaining_enabled)
    return None if rule is None else rule.reason(edge)


def explain_chaining(stream_graph: StreamGraph) -> list[ChainingDecision]:
    """One ``ChainingDecision`` per StreamEdge, in the StreamGraph's edge order."""
    rows = []
    for edge in stream_graph.edges:
        reason = failed_rule_reason(edge, stream_graph.chaining_enabled)
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
