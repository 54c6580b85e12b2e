"""Flink 1.11's chaining rules, written once as a table of (rule, predicate, reason).

Stands for ``StreamingJobGraphGenerator.isChainable`` with ``areOperatorsChainable`` (1.11) and
for ``StreamGraphHasherV2.isChainable``, which is the same minus the shuffle-mode rule. The JobGraph
generator, the hasher and the chaining explainer all read ``CHAINING_RULES``, in Flink's order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pyflowkit.graph.stream_graph import StreamEdge, StreamNode
from pyflowkit.graph.transformations import ShuffleMode
from pyflowkit.operators.chaining_strategy import ChainingStrategy

YIELDING_OPERATORS = frozenset({"AsyncWaitOperator"})  # YieldingOperatorFactory in 1.11


@dataclass(frozen=True)
class ChainingRule:
    """One condition of ``isChainable``: ``holds(edge, chaining_enabled)``; ``reason(edge)`` says
    in words why an edge breaks it; ``in_hasher``: part of ``StreamGraphHasherV2.isChainable``."""

    rule: str
    holds: Callable[[StreamEdge, bool], bool]
    reason: Callable[[StreamEdge], str]
    in_hasher: bool = True


def head_operator_class(node: StreamNode) -> str:
    """``getHeadOperator``: walk up chainable single in-edges to the chain head's operator."""
    while len(node.in_edges) == 1 and is_chainable(node.in_edges[0]):
        node = node.in_edges[0].source
    return node.operator_factory.operator_class


def _inputs_reason(edge: StreamEdge) -> str:
    down, n = edge.target, len(edge.target.in_edges)
    if down.invokable_class == "TwoInputStreamTask":
        return f"{down.operator_name} has {n} inputs (a two-input operator never chains to them)"
    return f"Union target has {n} inputs ({down.operator_name} would need exactly 1 to chain)"


def _no_operator_reason(edge: StreamEdge) -> str:
    node = edge.source if edge.source.operator_factory is None else edge.target
    return f"{node.operator_name} has no operator (nothing to chain)"


def _yields_on_legacy_source(edge: StreamEdge) -> bool:
    return (
        edge.target.operator_factory.operator_class in YIELDING_OPERATORS
        and head_operator_class(edge.source) == "StreamSource"
    )


def _ship_reason(edge: StreamEdge) -> str:
    up, down, ship = edge.source, edge.target, edge.partitioner.ship_strategy
    if edge.default_partitioner and up.parallelism != down.parallelism:
        return (
            f"parallelism differs: {up.parallelism} → {down.parallelism}, so the ship strategy "
            f"is {ship}, not FORWARD"
        )
    return f"ship strategy is {ship}, not FORWARD"


CHAINING_RULES: tuple[ChainingRule, ...] = (
    ChainingRule(
        "the downstream operator has exactly one input",
        lambda e, on: len(e.target.in_edges) == 1,
        _inputs_reason,
    ),
    ChainingRule(
        "both operators are in the same slot sharing group",
        lambda e, on: e.source.slot_sharing_group == e.target.slot_sharing_group,
        lambda e: (
            f"different slot sharing groups: '{e.source.slot_sharing_group}' → "
            f"'{e.target.slot_sharing_group}'"
        ),
    ),
    ChainingRule(  # areOperatorsChainable from here …
        "both nodes have an operator",
        lambda e, on: (
            e.source.operator_factory is not None and e.target.operator_factory is not None
        ),
        _no_operator_reason,
    ),
    ChainingRule(
        "the upstream operator's chaining strategy is not NEVER",
        lambda e, on: e.source.chaining_strategy is not ChainingStrategy.NEVER,
        lambda e: f"{e.source.operator_name} has chaining strategy NEVER",
    ),
    ChainingRule(
        "the downstream operator's chaining strategy is ALWAYS",
        lambda e, on: e.target.chaining_strategy is ChainingStrategy.ALWAYS,
        lambda e: (
            f"{e.target.operator_name} has chaining strategy {e.target.chaining_strategy.name}"
        ),
    ),
    ChainingRule(  # … to here
        "no yielding operator is chained to a legacy source",
        lambda e, on: not _yields_on_legacy_source(e),
        lambda e: f"{e.target.operator_name} yields and cannot chain to a legacy source",
    ),
    ChainingRule(
        "the partitioner is FORWARD",
        lambda e, on: e.partitioner.ship_strategy == "FORWARD",
        _ship_reason,
    ),
    ChainingRule(
        "the shuffle mode is not BATCH",
        lambda e, on: e.shuffle_mode is not ShuffleMode.BATCH,
        lambda e: "shuffle mode is BATCH (a blocking exchange)",
        in_hasher=False,
    ),
    ChainingRule(
        "both operators have the same parallelism",
        lambda e, on: e.source.parallelism == e.target.parallelism,
        lambda e: f"parallelism differs: {e.source.parallelism} → {e.target.parallelism}",
    ),
    ChainingRule(
        "chaining is enabled",
        lambda e, on: on,
        lambda e: "chaining disabled on the environment",
    ),
)
HASHER_RULES: tuple[ChainingRule, ...] = tuple(r for r in CHAINING_RULES if r.in_hasher)


def first_failed_rule(
    edge: StreamEdge, chaining_enabled: bool = True, *, check_shuffle_mode: bool = True
) -> ChainingRule | None:
    """The first rule (in Flink's order) ``edge`` breaks; None when it chains."""
    for rule in CHAINING_RULES if check_shuffle_mode else HASHER_RULES:
        if not rule.holds(edge, chaining_enabled):
            return rule
    return None


def is_chainable(
    edge: StreamEdge, chaining_enabled: bool = True, *, check_shuffle_mode: bool = True
) -> bool:
    """``StreamingJobGraphGenerator.isChainable`` (1.11): every rule holds.

    ``check_shuffle_mode=False`` is ``StreamGraphHasherV2.isChainable``, which lacks that rule.
    """
    for rule in CHAINING_RULES if check_shuffle_mode else HASHER_RULES:
        if not rule.holds(edge, chaining_enabled):
            return False
    return True
