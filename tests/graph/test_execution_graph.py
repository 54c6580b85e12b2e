"""ExecutionGraph: subtasks, max parallelism, ALL_TO_ALL and POINTWISE wiring, failover regions."""

from __future__ import annotations

import pytest

from pyflowkit.errors import JobException
from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.partitioner import RebalancePartitioner, RescalePartitioner
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph
from pyflowkit.graph.transformations import PartitionTransformation, ShuffleMode

from .builders import (
    collection_source,
    keyed_reduce,
    map_,
    partition,
    print_sink,
    sequence_source,
    stream_graph,
)


def execution_graph(sinks, **kwargs) -> ExecutionGraph:
    return create_job_graph(stream_graph(sinks, **kwargs)).to_execution_graph()


def rescale_graph(producers: int, consumers: int) -> ExecutionGraph:
    src = sequence_source(parallelism=producers)
    return execution_graph([map_(partition(src, RescalePartitioner()), parallelism=consumers)])


def reads(graph: ExecutionGraph) -> list[list[int]]:
    """For every consumer subtask, the producer partitions it reads."""
    consumer = graph.get_job_vertex("Map")
    return [[e.source.partition_number for e in ev.input_edges[0]] for ev in consumer.task_vertices]


def test_subtask_names_ids_and_order() -> None:
    red = keyed_reduce(map_(collection_source()))
    eg = execution_graph([print_sink(red)])
    assert [str(ev) for ev in eg.all_execution_vertices] == [
        "Source: Collection Source (1/1)",
        "Map (1/2)",
        "Map (2/2)",
        "Keyed Reduce -> Sink: Print to Std. Out (1/2)",
        "Keyed Reduce -> Sink: Print to Std. Out (2/2)",
    ]
    map_vertex = eg.get_job_vertex("Map")
    assert [ev.id for ev in map_vertex.task_vertices] == [
        "0a448493b4782967b150582570326227_0",
        "0a448493b4782967b150582570326227_1",
    ]
    assert eg.get_execution_vertex("0a448493b4782967b150582570326227_1").name == "Map (2/2)"
    assert eg.total_number_of_subtasks == 5
    assert list(eg.job_vertices)[0].name == "Source: Collection Source"


@pytest.mark.parametrize(
    ("p", "expected"), [(1, 128), (4, 128), (85, 128), (86, 256), (1000, 2048)]
)
def test_default_max_parallelism(p: int, expected: int) -> None:
    eg = execution_graph([map_(sequence_source())], parallelism=p)
    assert [ejv.max_parallelism for ejv in eg.job_vertices] == [expected]
    assert eg.job_vertices[0].max_parallelism_configured is False


def test_configured_max_parallelism_and_the_job_exception() -> None:
    m = map_(sequence_source())
    eg = execution_graph([m], max_parallelism=300)
    assert eg.job_vertices[0].max_parallelism == 300
    jg = create_job_graph(stream_graph([m], parallelism=4))
    jg.vertices[0].max_parallelism = 3  # a hand-edited JobGraph reaches ExecutionJobVertex's rule
    with pytest.raises(JobException) as err:
        jg.to_execution_graph()
    assert str(err.value) == (
        "Vertex Source: Sequence Source -> Map's parallelism (4) is higher than the max "
        "parallelism (3). Please lower the parallelism or increase the max parallelism."
    )


def test_all_to_all_wiring_and_subpartitions() -> None:
    src = sequence_source(parallelism=3)
    eg = execution_graph([map_(partition(src, RebalancePartitioner()), parallelism=2)])
    assert reads(eg) == [[0, 1, 2], [0, 1, 2]]
    for partition_ in eg.get_job_vertex("Source: Sequence Source").produced_data_sets[0].partitions:
        assert partition_.number_of_subpartitions == 2
    assert len(eg.execution_edges) == 6


@pytest.mark.parametrize(
    ("producers", "consumers", "expected"),
    [
        (3, 3, [[0], [1], [2]]),
        (2, 4, [[0], [0], [1], [1]]),
        (4, 2, [[0, 1], [2, 3]]),
        (3, 5, [[0], [0], [1], [1], [2]]),
        (5, 3, [[0], [1, 2], [3, 4]]),
        (2, 3, [[0], [0], [1]]),
        (7, 3, [[0, 1], [2, 3], [4, 5, 6]]),
    ],
)
def test_pointwise_wiring_table(producers: int, consumers: int, expected: list[list[int]]) -> None:
    assert reads(rescale_graph(producers, consumers)) == expected


def test_pointwise_subpartitions_and_requested_subpartition() -> None:
    eg = rescale_graph(2, 4)
    partitions = eg.get_job_vertex("Source: Sequence Source").produced_data_sets[0].partitions
    assert [p.number_of_subpartitions for p in partitions] == [2, 2]
    assert [[ev.subtask_index for ev in p.consumer_vertices] for p in partitions] == [
        [0, 1],
        [2, 3],
    ]
    consumers = eg.get_job_vertex("Map").task_vertices
    assert [ev.consumed_subpartition_index(0) for ev in consumers] == [0, 1, 0, 1]
    fan_in = rescale_graph(4, 2)
    parts = fan_in.get_job_vertex("Source: Sequence Source").produced_data_sets[0].partitions
    assert [p.number_of_subpartitions for p in parts] == [1, 1, 1, 1]


def test_forward_only_pipeline_splits_into_one_region_per_subtask() -> None:
    src = sequence_source()
    eg = execution_graph([print_sink(map_(src))], parallelism=3, chaining_enabled=False)
    regions = eg.failover_regions
    assert len(regions) == 3
    assert [[str(ev) for ev in r.execution_vertices] for r in regions][0] == [
        "Source: Sequence Source (1/3)",
        "Map (1/3)",
        "Sink: Print to Std. Out (1/3)",
    ]


def test_any_all_to_all_edge_makes_one_region() -> None:
    red = keyed_reduce(map_(collection_source()))
    eg = execution_graph([print_sink(red)])
    [region] = eg.failover_regions
    assert len(region) == 5
    some = eg.all_execution_vertices[2]
    assert eg.get_failover_region(some.id) is region


def test_blocking_edges_separate_regions() -> None:
    src = sequence_source()
    blocking = PartitionTransformation(src, RebalancePartitioner(), ShuffleMode.BATCH)
    eg = execution_graph([map_(blocking)], parallelism=2)
    assert [len(r) for r in eg.failover_regions] == [1, 1, 1, 1]  # no pipelined edge at all


def test_intermediate_results_match_data_sets() -> None:
    src = collection_source()
    eg = execution_graph([map_(src), map_(src)])
    source = eg.get_job_vertex("Source: Collection Source")
    assert [r.id for r in source.produced_data_sets] == [
        ds.id for ds in source.job_vertex.produced_data_sets
    ]
    assert all(r.number_of_consumers == 1 for r in source.produced_data_sets)
    assert set(eg.intermediate_results) == {r.id for r in source.produced_data_sets}
