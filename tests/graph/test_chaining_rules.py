"""One table of chaining rules: the JobGraph generator, the hasher and the explainer agree.

Hypothesis builds random pipelines (unions, two-input operators, partitionings with and without a
BATCH shuffle, chaining strategies, slot sharing groups, async operators behind sources, chaining
on and off); for every StreamEdge the explanation names exactly the rule the generator decided by.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.graph.chaining_explainer import CHAINED_REASON
from pyflowkit.graph.chaining_rules import (
    CHAINING_RULES,
    HASHER_RULES,
    first_failed_rule,
    is_chainable,
)
from pyflowkit.graph.hasher import hasher_is_chainable
from pyflowkit.graph.partitioner import (
    ForwardPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
)
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph
from pyflowkit.graph.transformations import PartitionTransformation, ShuffleMode

from .builders import (
    HEAD,
    NEVER,
    co_map,
    collection_source,
    filter_,
    keyed_reduce,
    map_,
    one_input,
    print_sink,
    sequence_source,
    stream_graph,
    union,
)

PARTITIONERS = [
    ForwardPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    lambda: KeyGroupStreamPartitioner(lambda v: v),
]


@st.composite
def pipelines(draw):
    """A random DAG exercising every chaining rule."""
    streams = [collection_source() if draw(st.booleans()) else sequence_source()]
    roots = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(
            st.sampled_from(["map", "filter", "reduce", "part", "union", "co", "source", "async"])
        )
        base = draw(st.sampled_from(streams))
        p = draw(st.sampled_from([-1, -1, -1, 1, 2, 3]))
        if kind == "source":
            t = sequence_source(draw(st.sampled_from([-1, 1, 3])))
        elif kind in ("map", "filter"):
            t = (map_ if kind == "map" else filter_)(base, parallelism=p)
            t.set_chaining_strategy(draw(st.sampled_from([t.chaining_strategy, HEAD, NEVER])))
            if draw(st.integers(0, 4)) == 0:
                t.slot_sharing_group = draw(st.sampled_from(["default", "other"]))
        elif kind == "reduce":
            t = keyed_reduce(base)
        elif kind == "part":
            mode = draw(st.sampled_from(list(ShuffleMode)))
            partitioner = draw(st.sampled_from(PARTITIONERS))()
            upstream_p = getattr(base, "parallelism", -1)
            if isinstance(partitioner, ForwardPartitioner):
                p = upstream_p  # FORWARD needs equal parallelism (else the generator refuses)
            t = map_(PartitionTransformation(base, partitioner, mode), parallelism=p)
        elif kind == "union":
            t = map_(union(base, draw(st.sampled_from(streams))))
        elif kind == "async":
            t = one_input(base, "Async Wait", "AsyncWaitOperator")
        else:
            t = co_map(base, draw(st.sampled_from(streams)))
        streams.append(t)
        roots.append(t)
    roots.append(print_sink(draw(st.sampled_from(streams))))
    return roots, draw(st.booleans()), draw(st.sampled_from([1, 2]))


@given(pipelines())
def test_the_explanation_always_agrees_with_the_decision(case) -> None:
    roots, chaining, parallelism = case
    try:
        sg = stream_graph(roots, parallelism=parallelism, chaining_enabled=chaining)
    except Exception as exc:  # a FORWARD edge whose parallelism the default made unequal
        assert "Forward partitioning does not allow change of parallelism" in str(exc)
        return
    jg = create_job_graph(sg)
    chained = {id(e) for v in jg.vertices for e in v.chained_edges}
    rows = jg.explain_chaining()
    assert len(rows) == len(sg.edges)
    for edge, row in zip(sg.edges, rows, strict=True):
        decided = id(edge) in chained
        assert row.chained == decided == is_chainable(edge, chaining)
        assert (row.upstream, row.downstream) == (str(edge.source), str(edge.target))
        rule = first_failed_rule(edge, chaining)
        if decided:
            assert rule is None and row.reason == CHAINED_REASON
            assert all(r.holds(edge, chaining) for r in CHAINING_RULES)
        else:
            assert rule is not None and row.reason == rule.reason(edge)
            before = CHAINING_RULES[: CHAINING_RULES.index(rule)]
            assert all(r.holds(edge, chaining) for r in before) and not rule.holds(edge, chaining)
        # the hasher decides by the same table without the shuffle-mode rule
        in_hasher = all(r.holds(edge, chaining) for r in HASHER_RULES)
        assert hasher_is_chainable(edge, chaining) == in_hasher
        if in_hasher != decided:
            assert edge.shuffle_mode is ShuffleMode.BATCH
            assert row.reason == "shuffle mode is BATCH (a blocking exchange)"


def test_the_table_is_flinks_isChainable_in_order() -> None:
    assert [r.rule for r in CHAINING_RULES] == [
        "the downstream operator has exactly one input",
        "both operators are in the same slot sharing group",
        "both nodes have an operator",
        "the upstream operator's chaining strategy is not NEVER",
        "the downstream operator's chaining strategy is ALWAYS",
        "no yielding operator is chained to a legacy source",
        "the partitioner is FORWARD",
        "the shuffle mode is not BATCH",
        "both operators have the same parallelism",
        "chaining is enabled",
    ]
    assert [r for r in CHAINING_RULES if not r.in_hasher] == [CHAINING_RULES[7]]


def test_an_async_operator_after_a_legacy_source_names_the_rule() -> None:
    src = collection_source()
    sg = stream_graph([one_input(src, "Async Wait", "AsyncWaitOperator")], parallelism=1)
    (row,) = create_job_graph(sg).explain_chaining()
    assert row == (
        row.upstream,
        row.downstream,
        False,
        "Async Wait yields and cannot chain to a legacy source",
    )
