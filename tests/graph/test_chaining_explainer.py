"""explain_chaining: one row per StreamEdge, naming the first failed 1.11 rule."""

from __future__ import annotations

from pyflowkit.graph.chaining_explainer import CHAINED_REASON, ChainingDecision
from pyflowkit.graph.partitioner import ForwardPartitioner, RescalePartitioner
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph
from pyflowkit.graph.transformations import PartitionTransformation, ShuffleMode

from .builders import (
    NEVER,
    co_map,
    collection_source,
    keyed_reduce,
    map_,
    partition,
    print_sink,
    sequence_source,
    stream_graph,
    union,
)


def reasons(sinks, **kwargs) -> list[tuple[bool, str]]:
    jg = create_job_graph(stream_graph(sinks, **kwargs))
    return [(row.chained, row.reason) for row in jg.explain_chaining()]


def test_rows_name_the_operators_and_the_first_failed_rule() -> None:
    src = collection_source()
    m = map_(src)
    red = keyed_reduce(m)
    sink = print_sink(red)
    jg = create_job_graph(stream_graph([sink]))
    rows = jg.explain_chaining()
    assert rows == [
        ChainingDecision(
            f"Source: Collection Source-{src.id}",
            f"Map-{m.id}",
            False,
            "parallelism differs: 1 → 2, so the ship strategy is REBALANCE, not FORWARD",
        ),
        ChainingDecision(
            f"Map-{m.id}",
            f"Keyed Reduce-{red.id}",
            False,
            "Keyed Reduce has chaining strategy HEAD",
        ),
        ChainingDecision(
            f"Keyed Reduce-{red.id}", f"Sink: Print to Std. Out-{sink.id}", True, CHAINED_REASON
        ),
    ]


def test_each_rule_in_words() -> None:
    a, b = sequence_source(), sequence_source()
    assert reasons([map_(union(a, b))])[0] == (
        False,
        "Union target has 2 inputs (Map would need exactly 1 to chain)",
    )
    assert reasons([co_map(a, b)])[0][1].startswith("Co-Map has 2 inputs")
    grouped = map_(a)
    grouped.slot_sharing_group = "g"
    assert reasons([grouped]) == [(False, "different slot sharing groups: 'default' → 'g'")]
    never = map_(a)
    never.set_chaining_strategy(NEVER)
    assert reasons([map_(never)])[1] == (False, "Map has chaining strategy NEVER")
    assert reasons([map_(partition(a, RescalePartitioner()))]) == [
        (False, "ship strategy is RESCALE, not FORWARD")
    ]
    batch = PartitionTransformation(a, ForwardPartitioner(), ShuffleMode.BATCH)
    assert reasons([map_(batch)]) == [(False, "shuffle mode is BATCH (a blocking exchange)")]
    assert reasons([map_(a)], chaining_enabled=False) == [
        (False, "chaining disabled on the environment")
    ]
    assert reasons([map_(a)]) == [(True, CHAINED_REASON)]


def test_frame_form() -> None:
    jg = create_job_graph(stream_graph([map_(collection_source())]))
    frame = jg.explain_chaining_frame()
    assert list(frame.columns) == ["upstream", "downstream", "chained", "reason"]
    assert frame["chained"].tolist() == [False]
    assert frame["reason"][0].startswith("parallelism differs: 1 → 2")
