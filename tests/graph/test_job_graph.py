"""StreamingJobGraphGenerator: the seven 1.11 chaining rules, names, ids, edges, settings."""

from __future__ import annotations

import logging

import pytest

from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.errors import IllegalArgumentException, IllegalStateException, JobException
from pyflowkit.graph.job_graph import DistributionPattern, ResultPartitionType, ShipStrategy
from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    ForwardPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
)
from pyflowkit.graph.streaming_job_graph_generator import (
    create_job_graph,
    java_hash_iteration_order,
)
from pyflowkit.graph.transformations import ChainingStrategy, PartitionTransformation, ShuffleMode
from pyflowkit.java_semantics import LONG_MAX_VALUE

from .builders import (
    HEAD,
    NEVER,
    checkpointing,
    co_map,
    collection_source,
    filter_,
    keyed_reduce,
    map_,
    one_input,
    partition,
    print_sink,
    sequence_source,
    stream_graph,
    union,
)


def job_graph(sinks, **kwargs):
    job_id = kwargs.pop("job_id", None)
    return create_job_graph(stream_graph(sinks, **kwargs), job_id)


def names(jg) -> list[str]:
    return [v.name for v in jg.vertices]


# -- one test per isChainable rule -------------------------------------------------------------
def test_all_rules_hold_chain_forward_maps() -> None:
    src = sequence_source()
    jg = job_graph([print_sink(filter_(map_(src)))])
    assert names(jg) == ["Source: Sequence Source -> Map -> Filter -> Sink: Print to Std. Out"]
    [vertex] = jg.vertices
    assert vertex.operator_names == [
        "Source: Sequence Source",
        "Map",
        "Filter",
        "Sink: Print to Std. Out",
    ]
    assert list(vertex.chain_indices.values()) == [0, 1, 2, 3]
    assert len(vertex.chained_edges) == 3 and vertex.inputs == []


def test_rule1_union_target_has_two_inputs() -> None:
    a, b = sequence_source(), sequence_source()
    jg = job_graph([map_(union(a, b))])
    assert names(jg) == ["Source: Sequence Source", "Source: Sequence Source", "Map"]
    assert [e.ship_strategy for e in jg.get_vertex("Map").inputs] == [ShipStrategy.FORWARD] * 2


def test_rule1_two_input_operator_never_chains_to_its_inputs() -> None:
    co = co_map(sequence_source(), sequence_source())
    jg = job_graph([print_sink(co)])
    assert names(jg)[-1] == "Co-Map -> Sink: Print to Std. Out"
    assert len(jg.vertices) == 3


def test_rule2_different_slot_sharing_groups() -> None:
    src = sequence_source()
    m = map_(src)
    m.slot_sharing_group = "maps"
    jg = job_graph([m])
    assert names(jg) == ["Source: Sequence Source", "Map"]
    assert jg.get_vertex("Map").slot_sharing_group == "maps"


def test_rule3_head_downstream_does_not_chain_but_its_successors_do() -> None:
    red = keyed_reduce(sequence_source())
    jg = job_graph([print_sink(red)])
    assert names(jg) == ["Source: Sequence Source", "Keyed Reduce -> Sink: Print to Std. Out"]


def test_rule3_start_new_chain_and_disable_chaining() -> None:
    src = sequence_source()
    m = map_(src)
    m.set_chaining_strategy(HEAD)  # startNewChain()
    f = filter_(m)
    f.set_chaining_strategy(NEVER)  # disableChaining()
    jg = job_graph([print_sink(f)])
    assert names(jg) == ["Source: Sequence Source", "Map", "Filter", "Sink: Print to Std. Out"]


def test_rule3_yielding_operator_does_not_chain_to_a_legacy_source() -> None:
    src = sequence_source()
    async_op = one_input(src, "async wait operator", "AsyncWaitOperator")
    after_map = one_input(map_(src), "async wait operator", "AsyncWaitOperator")
    jg = job_graph([async_op, after_map], parallelism=1)
    assert "Source: Sequence Source -> (Map, async wait operator)" not in names(jg)
    assert sorted(names(jg)) == [
        "Source: Sequence Source -> Map",
        "async wait operator",
        "async wait operator",
    ]


def test_rule4_partitioner_must_be_forward() -> None:
    src = sequence_source()
    jg = job_graph([map_(partition(src, RescalePartitioner()))])
    assert names(jg) == ["Source: Sequence Source", "Map"]


def test_rule5_batch_shuffle_mode_breaks_the_chain() -> None:
    src = sequence_source()
    batch = PartitionTransformation(src, ForwardPartitioner(), ShuffleMode.BATCH)
    jg = job_graph([map_(batch)])
    assert names(jg) == ["Source: Sequence Source", "Map"]
    [edge] = jg.get_vertex("Map").inputs
    assert edge.result_partition_type is ResultPartitionType.BLOCKING
    pipelined = PartitionTransformation(src, ForwardPartitioner(), ShuffleMode.PIPELINED)
    assert names(job_graph([map_(pipelined)])) == ["Source: Sequence Source -> Map"]


def test_rule6_parallelism_differs() -> None:
    jg = job_graph([map_(collection_source())])
    assert names(jg) == ["Source: Collection Source", "Map"]
    [edge] = jg.get_vertex("Map").inputs
    assert edge.ship_strategy is ShipStrategy.REBALANCE


def test_rule7_chaining_disabled_on_the_environment() -> None:
    src = sequence_source()
    jg = job_graph([print_sink(map_(src))], chaining_enabled=False)
    assert names(jg) == ["Source: Sequence Source", "Map", "Sink: Print to Std. Out"]
    for vertex in jg.vertices[1:]:
        [edge] = vertex.inputs
        assert edge.ship_strategy is ShipStrategy.FORWARD
        assert edge.distribution_pattern is DistributionPattern.POINTWISE


# -- names, orders, ids ------------------------------------------------------------------------
def test_fan_out_chained_name_and_chain_indices() -> None:
    src = sequence_source()
    m = map_(src)
    a, b = filter_(m), print_sink(m)
    jg = job_graph([a, b])
    [vertex] = jg.vertices
    assert vertex.name == "Source: Sequence Source -> Map -> (Filter, Sink: Print to Std. Out)"
    assert vertex.chain_indices == {src.id: 0, m.id: 1, a.id: 2, b.id: 2}
    assert [p.generated_operator_id for p in vertex.operator_ids] == [
        vertex.id,
        *[p.generated_operator_id for p in vertex.operator_ids[1:]],
    ]
    assert len({p.generated_operator_id for p in vertex.operator_ids}) == 4


def test_worked_example_vertex_order_ids_and_edges() -> None:
    """Reference §3.8 (Keyed Reduce stands in for the window: same position, same hash)."""
    src = collection_source()
    m = map_(src)
    red = keyed_reduce(m)
    jg = job_graph([print_sink(red)], job_id="ab" * 16)
    assert jg.job_id == "ab" * 16
    assert [(v.id, v.parallelism, v.invokable_class) for v in jg.vertices_in_flink_order] == [
        ("e70bbd798b564e0a50e10e343f1ac56b", 2, "OneInputStreamTask"),
        ("0a448493b4782967b150582570326227", 2, "OneInputStreamTask"),
        ("bc764cd8ddf7a0cff126f51c16239658", 1, "SourceStreamTask"),
    ]
    assert [v.name for v in jg.vertices] == [
        "Source: Collection Source",
        "Map",
        "Keyed Reduce -> Sink: Print to Std. Out",
    ]
    hash_edge = jg.vertices[2].inputs[0]
    assert hash_edge.source is jg.vertices[1]
    assert (
        hash_edge.distribution_pattern.name,
        hash_edge.ship_strategy.name,
        hash_edge.result_partition_type.name,
    ) == ("ALL_TO_ALL", "HASH", "PIPELINED_BOUNDED")
    rebalance = jg.vertices[1].inputs[0]
    assert (rebalance.distribution_pattern, rebalance.ship_strategy) == (
        DistributionPattern.ALL_TO_ALL,
        ShipStrategy.REBALANCE,
    )


def test_one_intermediate_data_set_per_job_edge() -> None:
    src = collection_source()
    a, b = map_(src), filter_(src)
    jg = job_graph([a, b])
    source_vertex = jg.get_vertex("Source: Collection Source")
    assert len(source_vertex.produced_data_sets) == 2
    assert [len(ds.consumers) for ds in source_vertex.produced_data_sets] == [1, 1]
    assert len({ds.id for ds in source_vertex.produced_data_sets}) == 2
    assert [e.target.name for e in source_vertex.outputs] == ["Map", "Filter"]


@pytest.mark.parametrize(
    ("partitioner", "pattern"),
    [(RescalePartitioner(), "POINTWISE"), (BroadcastPartitioner(), "ALL_TO_ALL")],
)
def test_distribution_pattern_by_partitioner(partitioner, pattern) -> None:
    jg = job_graph([map_(partition(sequence_source(), partitioner))])
    assert jg.get_vertex("Map").inputs[0].distribution_pattern.name == pattern


def test_vertices_topological_from_sources_with_several_sources() -> None:
    a = collection_source()
    b = sequence_source()
    joined = co_map(map_(a), b)
    jg = job_graph([print_sink(joined)])
    order = [v.name for v in jg.vertices]
    assert order.index("Map") > order.index("Source: Collection Source")
    assert order[-1] == "Co-Map -> Sink: Print to Std. Out"
    assert jg.vertices_in_flink_order[0].name == "Co-Map -> Sink: Print to Std. Out"


def test_job_ids() -> None:
    m = map_(sequence_source())
    generated = job_graph([m])
    assert len(generated.job_id) == 32 and int(generated.job_id, 16) >= 0
    assert job_graph([m], job_id="F" * 32).job_id == "f" * 32
    with pytest.raises(IllegalArgumentException, match="32 hexadecimal"):
        job_graph([m], job_id="not-a-job-id")


def test_parallelism_above_max_parallelism_is_a_job_exception() -> None:
    src = sequence_source()
    m = map_(src, parallelism=8)
    m.set_max_parallelism(4)
    with pytest.raises(JobException) as err:
        job_graph([m])
    assert str(err.value) == (
        "Vertex Map's parallelism (8) is higher than the max parallelism (4). Please lower the "
        "parallelism or increase the max parallelism."
    )


def test_env_max_parallelism_below_parallelism_names_the_chained_vertex() -> None:
    m = map_(sequence_source())
    with pytest.raises(JobException, match="Vertex Source: Sequence Source -> Map's parallelism"):
        job_graph([m], parallelism=4, max_parallelism=2)


def test_unreachable_operator_is_reported() -> None:
    src = sequence_source()
    m = map_(src)
    sg = stream_graph([m])
    sg.sources.clear()
    with pytest.raises(IllegalStateException, match="not reachable from any source"):
        create_job_graph(sg)


# -- slot sharing ------------------------------------------------------------------------------
def test_default_vertices_share_one_slot_sharing_group_named_groups_their_own() -> None:
    src = collection_source()
    m = map_(src)
    other = filter_(m)
    other.slot_sharing_group = "side"
    jg = job_graph([print_sink(other)])
    by_name = {v.name: v for v in jg.vertices}
    assert (
        by_name["Source: Collection Source"].slot_sharing_group_id
        == by_name["Map"].slot_sharing_group_id
    )
    side = by_name["Filter -> Sink: Print to Std. Out"]
    assert side.slot_sharing_group == "side"
    assert side.slot_sharing_group_id != by_name["Map"].slot_sharing_group_id


def test_co_location_needs_one_slot_sharing_group() -> None:
    src = sequence_source()
    m = map_(src)
    m.slot_sharing_group = "x"
    sg = stream_graph([m], chaining_enabled=False)
    sg.nodes[src.id].co_location_group = "loop"
    sg.nodes[m.id].co_location_group = "loop"
    with pytest.raises(IllegalStateException) as err:
        create_job_graph(sg)
    assert str(err.value) == "Cannot co-locate operators from different slot sharing groups"


# -- checkpointing and restarts ----------------------------------------------------------------
def test_checkpointing_off_means_long_max_and_not_exactly_once() -> None:
    jg = job_graph([map_(collection_source())])
    cp = jg.checkpointing_settings
    assert cp.checkpoint_interval == LONG_MAX_VALUE
    assert cp.is_exactly_once is False
    assert cp.retention_policy == "NEVER_RETAIN_AFTER_TERMINATION"
    assert cp.vertices_to_trigger == [jg.get_vertex("Source: Collection Source").id]
    assert sorted(cp.vertices_to_acknowledge) == sorted(v.id for v in jg.vertices)
    assert cp.vertices_to_confirm == cp.vertices_to_acknowledge
    assert jg.restart_strategy == RestartStrategies.no_restart()


def test_checkpointing_on_defaults_to_fixed_delay_forever() -> None:
    jg = job_graph([map_(collection_source())], checkpoint=checkpointing(700))
    cp = jg.checkpointing_settings
    assert cp.checkpoint_interval == 700 and cp.is_exactly_once is True
    assert cp.checkpoint_timeout == 600_000 and cp.max_concurrent_checkpoints == 1
    assert jg.restart_strategy == RestartStrategies.fixed_delay_restart(2**31 - 1, 1000)
    assert jg.restart_strategy.get_description() == (
        RestartStrategies.fixed_delay_restart(2147483647, 1000).get_description()
    )


def test_interval_below_ten_ms_disables_periodic_checkpoints() -> None:
    jg = job_graph([map_(collection_source())], checkpoint=checkpointing(5))
    assert jg.checkpointing_settings.checkpoint_interval == LONG_MAX_VALUE


def test_unaligned_with_at_least_once_is_switched_off_with_a_warning(caplog) -> None:
    cfg = checkpointing(100, mode="AT_LEAST_ONCE", unaligned=True)
    with caplog.at_level(logging.WARNING):
        jg = job_graph([map_(collection_source())], checkpoint=cfg)
    assert jg.checkpointing_settings.is_unaligned_checkpoints_enabled is False
    assert jg.checkpointing_settings.is_exactly_once is False
    assert "Unaligned checkpoints can only be used with checkpointing mode EXACTLY_ONCE" in (
        caplog.text
    )
    aligned = job_graph([map_(collection_source())], checkpoint=checkpointing(100, unaligned=True))
    assert aligned.checkpointing_settings.is_unaligned_checkpoints_enabled is True


@pytest.mark.parametrize(
    ("retention", "policy"),
    [
        ("DELETE_ON_CANCELLATION", "RETAIN_ON_FAILURE"),
        ("RETAIN_ON_CANCELLATION", "RETAIN_ON_CANCELLATION"),
    ],
)
def test_externalized_checkpoint_retention(retention, policy) -> None:
    cfg = checkpointing(100, externalized_retention=retention)
    jg = job_graph([map_(collection_source())], checkpoint=cfg)
    assert jg.checkpointing_settings.retention_policy == policy


def test_restart_strategy_resolution_order() -> None:
    m = map_(collection_source())
    job_level = RestartStrategies.fixed_delay_restart(3, 500)
    assert job_graph([m], restart_strategy=job_level).restart_strategy == job_level
    fallback = RestartStrategies.fall_back_restart()
    cluster = {"restart-strategy": "failure-rate", "restart-strategy.failure-rate.delay": "2 s"}
    resolved = job_graph([m], restart_strategy=fallback, configuration=cluster).restart_strategy
    assert resolved == RestartStrategies.failure_rate_restart(1, 60_000, 2000)
    none = job_graph(
        [m], checkpoint=checkpointing(100), configuration={"restart-strategy": "none"}
    ).restart_strategy
    assert none == RestartStrategies.no_restart()
    with pytest.raises(IllegalArgumentException, match="Unknown restart strategy bogus"):
        job_graph([m], configuration={"restart-strategy": "bogus"})


def test_chaining_strategy_values_are_flinks() -> None:
    assert [s.name for s in ChainingStrategy] == ["ALWAYS", "NEVER", "HEAD"]
    assert RebalancePartitioner().ship_strategy == "REBALANCE"


def test_java_hash_iteration_order() -> None:
    assert java_hash_iteration_order([1, 2, 3]) == [1, 2, 3]
    assert java_hash_iteration_order([14, 17]) == [17, 14]  # buckets 14 and 1 of 16
    assert java_hash_iteration_order([17, 1]) == [17, 1]  # same bucket: insertion order
    assert java_hash_iteration_order(list(range(20, 33)))[0] == 32  # 13 keys: capacity 32
    assert java_hash_iteration_order([3, 65537]) == [65537, 3]  # h ^ (h >>> 16)
