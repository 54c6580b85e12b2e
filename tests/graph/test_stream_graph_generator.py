"""StreamGraphGenerator: nodes, virtual nodes, partitioners, names, slot sharing, errors."""

from __future__ import annotations

import pytest

from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    UnsupportedOperationException,
)
from pyflowkit.graph import transformations as tr
from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    CustomPartitionerWrapper,
    ForwardPartitioner,
    GlobalPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    ShufflePartitioner,
)
from pyflowkit.graph.transformations import (
    OperatorFactory,
    PartitionTransformation,
    ShuffleMode,
    SourceTransformation,
)

from .builders import (
    HEAD,
    Tag,
    co_map,
    collection_source,
    filter_,
    keyed_reduce,
    map_,
    one_input,
    partition,
    print_sink,
    sequence_source,
    side_output,
    stream_graph,
    union,
)


def edge_between(graph, up, down):
    [edge] = [e for e in graph.edges if e.source.id == up.id and e.target.id == down.id]
    return edge


def test_nodes_names_prefixes_and_invokables() -> None:
    src = collection_source()
    m = map_(src)
    sink = print_sink(m)
    g = stream_graph([m, sink])
    assert [n.operator_name for n in g.nodes.values()] == [
        "Source: Collection Source",
        "Map",
        "Sink: Print to Std. Out",
    ]
    assert [n.invokable_class for n in g.nodes.values()] == [
        "SourceStreamTask",
        "OneInputStreamTask",
        "OneInputStreamTask",
    ]
    assert g.sources == [src.id] and g.sinks == [sink.id]
    assert g.job_name == "Flink Streaming Job"


def test_flip27_source_and_two_input_invokables() -> None:
    factory = OperatorFactory("SourceOperator", HEAD, {})
    src = SourceTransformation("Sequence Source", factory)
    other = collection_source()
    co = co_map(src, other)
    g = stream_graph([co], parallelism=1)
    assert g.nodes[src.id].invokable_class == "SourceOperatorStreamTask"
    assert g.nodes[co.id].invokable_class == "TwoInputStreamTask"
    assert [e.type_number for e in g.nodes[co.id].in_edges] == [1, 2]


def test_parallelism_default_takes_environment_value_and_non_parallel_source_is_one() -> None:
    src = tr.LegacySourceTransformation(
        "Custom Source", OperatorFactory("StreamSource", HEAD, {}), parallel=False
    )
    m = map_(src, parallelism=3)
    g = stream_graph([m], parallelism=4)
    assert g.nodes[src.id].parallelism == 1
    assert g.nodes[m.id].parallelism == 3
    seq = sequence_source()
    assert stream_graph([map_(seq)], parallelism=4).nodes[seq.id].parallelism == 4


def test_max_parallelism_copied_in_from_environment_unless_set() -> None:
    src = sequence_source()
    a, b = map_(src), map_(src)
    b.set_max_parallelism(64)
    g = stream_graph([a, b], max_parallelism=256)
    assert g.nodes[a.id].max_parallelism == 256
    assert g.nodes[b.id].max_parallelism == 64
    assert a.max_parallelism == -1  # the transformation itself is left untouched
    assert stream_graph([a]).nodes[a.id].max_parallelism == -1


def test_default_partitioner_forward_when_parallelism_matches_else_rebalance() -> None:
    src = collection_source()
    m1 = map_(src, parallelism=1)
    m2 = map_(m1, parallelism=2)
    g = stream_graph([m2])
    assert str(edge_between(g, src, m1).partitioner) == "FORWARD"
    rebalance = edge_between(g, m1, m2)
    assert isinstance(rebalance.partitioner, RebalancePartitioner)
    assert rebalance.default_partitioner is True


@pytest.mark.parametrize(
    ("partitioner", "ship"),
    [
        (ForwardPartitioner(), "FORWARD"),
        (RebalancePartitioner(), "REBALANCE"),
        (RescalePartitioner(), "RESCALE"),
        (ShufflePartitioner(), "SHUFFLE"),
        (BroadcastPartitioner(), "BROADCAST"),
        (GlobalPartitioner(), "GLOBAL"),
        (KeyGroupStreamPartitioner(lambda v: v), "HASH"),
        (CustomPartitionerWrapper(lambda k, n: 0, lambda v: v), "CUSTOM"),
    ],
)
# 1.11's StreamGraphGenerator passes the partitioner through (1.20 re-keys HASH by Row: tests/versions)
@pytest.mark.flink_version("1.11")
def test_each_partitioner_becomes_the_edge_ship_strategy(partitioner, ship) -> None:
    src = sequence_source()
    m = map_(partition(src, partitioner))
    g = stream_graph([m])
    edge = edge_between(g, src, m)
    assert edge.partitioner is partitioner
    assert str(edge.partitioner) == ship
    assert edge.default_partitioner is False
    assert edge.edge_id == f"Source: Sequence Source-{src.id}_Map-{m.id}_0_[]_{ship}"


def test_forward_across_parallelism_change_is_flinks_error() -> None:
    src = collection_source()
    m = map_(partition(src, ForwardPartitioner()), parallelism=2)
    with pytest.raises(UnsupportedOperationException) as err:
        stream_graph([m])
    assert str(err.value) == (
        "Forward partitioning does not allow change of parallelism. Upstream operation: "
        f"Source: Collection Source-{src.id} parallelism: 1, downstream operation: "
        f"Map-{m.id} parallelism: 2 You must use another partitioning strategy, such as "
        "broadcast, rebalance, shuffle or global."
    )


def test_virtual_nodes_consume_new_ids_on_every_generation() -> None:
    src = collection_source()
    keyed = keyed_reduce(map_(src))
    first = tr.new_node_id()
    g1 = stream_graph([keyed])
    g2 = stream_graph([keyed])
    after = tr.new_node_id()
    assert after == first + 3  # one virtual partition id per generation
    assert set(g1.nodes) == set(g2.nodes)  # virtual ids never become nodes
    assert keyed.input.id not in g1.nodes  # nor does the PartitionTransformation's own id


def test_nearest_partitioner_wins_and_farthest_shuffle_mode_wins() -> None:
    src = sequence_source()
    inner = PartitionTransformation(src, RebalancePartitioner(), ShuffleMode.BATCH)
    outer = PartitionTransformation(inner, RescalePartitioner(), ShuffleMode.PIPELINED)
    m = map_(outer)
    edge = edge_between(stream_graph([m]), src, m)
    assert str(edge.partitioner) == "RESCALE"
    assert edge.shuffle_mode is ShuffleMode.BATCH
    plain = map_(src)
    assert edge_between(stream_graph([plain]), src, plain).shuffle_mode is ShuffleMode.UNDEFINED


def test_union_gives_the_downstream_one_in_edge_per_input() -> None:
    a, b = sequence_source(), sequence_source()
    m = map_(union(a, partition(b, RebalancePartitioner())))
    g = stream_graph([m])
    assert [(e.source.id, str(e.partitioner)) for e in g.nodes[m.id].in_edges] == [
        (a.id, "FORWARD"),
        (b.id, "REBALANCE"),
    ]


def test_diamond_is_translated_once() -> None:
    src = sequence_source()
    left, right = map_(src), filter_(src)
    joined = map_(union(left, right))
    g = stream_graph([left, right, joined, print_sink(joined)])
    assert len(g.nodes) == 5
    assert len(g.nodes[src.id].out_edges) == 2


def test_side_output_edges_carry_the_tag() -> None:
    src = sequence_source()
    proc = one_input(src, "Process", "ProcessOperator")
    tag = Tag("late", "STRING")
    late = map_(side_output(proc, tag))
    main = map_(proc)
    g = stream_graph([late, main])
    assert edge_between(g, proc, late).output_tag is tag
    assert edge_between(g, proc, main).output_tag is None


def test_same_side_output_id_with_another_type_is_rejected() -> None:
    src = sequence_source()
    proc = one_input(src, "Process", "ProcessOperator")
    a = map_(side_output(proc, Tag("x", "STRING")))
    b = map_(side_output(proc, Tag("x", "INT")))
    with pytest.raises(IllegalArgumentException) as err:
        stream_graph([a, b])
    assert str(err.value) == (
        "Trying to add a side output for the same side-output id with a different type. This "
        "is not allowed. Side-output ID: x"
    )
    ok = map_(side_output(proc, Tag("x", "STRING")))
    assert len(stream_graph([a, ok]).nodes) == 4


def test_slot_sharing_group_inherited_explicit_and_mixed() -> None:
    a, b = sequence_source(), sequence_source()
    a.slot_sharing_group = "src"
    inherit = map_(a)
    explicit = map_(inherit)
    explicit.slot_sharing_group = "other"
    mixed = co_map(a, b)
    same = map_(union(a, partition(a, RebalancePartitioner())))
    g = stream_graph([explicit, mixed, same])
    assert g.nodes[inherit.id].slot_sharing_group == "src"
    assert g.nodes[explicit.id].slot_sharing_group == "other"
    assert g.nodes[mixed.id].slot_sharing_group == "default"
    assert g.nodes[same.id].slot_sharing_group == "src"
    assert g.nodes[b.id].slot_sharing_group == "default"


def test_key_selectors_uid_hash_and_buffer_timeout_copied_to_nodes() -> None:
    src = sequence_source()
    key = lambda v: v % 3  # noqa: E731
    red = keyed_reduce(src, key)
    red.set_uid("reduce")
    red.set_uid_hash("0123456789abcdef0123456789abcdef")
    red.buffer_timeout = 5
    co = co_map(src, src)
    co.state_key_selector1, co.state_key_selector2 = key, str
    g = stream_graph([red, co])
    node = g.nodes[red.id]
    assert node.state_key_selector is key and node.is_keyed
    assert node.uid == "reduce" and node.user_hash == "0123456789abcdef0123456789abcdef"
    assert node.buffer_timeout == 5
    assert g.nodes[src.id].buffer_timeout == 100
    assert g.nodes[co.id].state_key_selector1 is key
    assert g.nodes[co.id].state_key_selector2 is str
    assert not g.nodes[src.id].is_keyed


def test_disabled_auto_generated_uids_require_uid_or_hash() -> None:
    src = sequence_source()
    src.set_uid("src")
    m = map_(src)
    with pytest.raises(IllegalStateException) as err:
        stream_graph([m], auto_generated_uids=False)
    assert str(err.value) == (
        "Auto generated UIDs have been disabled but no UID or hash has been assigned to "
        "operator Map"
    )
    m.set_uid_hash("0123456789abcdef0123456789abcdef")
    assert len(stream_graph([m], auto_generated_uids=False).nodes) == 2


def test_settings_are_recorded_on_the_graph() -> None:
    m = map_(sequence_source())
    g = stream_graph([m], job_name="wc", chaining_enabled=False)
    assert g.job_name == "wc"
    assert g.chaining_enabled is False
    assert g.global_data_exchange_mode == "ALL_EDGES_PIPELINED"


def test_unknown_transformation_kind_is_rejected() -> None:
    class Odd(tr.Transformation):
        pass

    with pytest.raises(IllegalStateException, match="Unknown transformation"):
        stream_graph([Odd("odd")])


def test_five_thousand_operators_deep_do_not_hit_the_recursion_limit() -> None:
    t = sequence_source()
    for _ in range(5000):
        t = map_(t)
    g = stream_graph([t])
    assert len(g.nodes) == 5001
