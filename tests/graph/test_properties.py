"""Property tests over random pipelines: chains, JobEdges and ExecutionGraph wiring agree."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.graph.job_graph import DistributionPattern
from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
)
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

from .builders import (
    HEAD,
    NEVER,
    co_map,
    collection_source,
    filter_,
    keyed_reduce,
    map_,
    partition,
    print_sink,
    sequence_source,
    stream_graph,
    union,
)

PARTITIONERS = [
    RebalancePartitioner,
    RescalePartitioner,
    BroadcastPartitioner,
    lambda: KeyGroupStreamPartitioner(lambda v: v),
]


@st.composite
def pipelines(draw):
    """A random DAG of sources, one-input ops, partitionings, unions, co-ops and sinks."""
    streams = [collection_source() if draw(st.booleans()) else sequence_source()]
    roots = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["map", "filter", "reduce", "part", "union", "co", "source"]))
        base = draw(st.sampled_from(streams))
        p = draw(st.sampled_from([-1, -1, 1, 2, 3, 4]))
        if kind == "source":
            t = sequence_source(draw(st.sampled_from([-1, 1, 3])))
        elif kind in ("map", "filter"):
            t = (map_ if kind == "map" else filter_)(base, parallelism=p)
            t.set_chaining_strategy(draw(st.sampled_from([t.chaining_strategy, HEAD, NEVER])))
            if draw(st.integers(0, 5)) == 0:
                t.slot_sharing_group = "other"
        elif kind == "reduce":
            t = keyed_reduce(base)
        elif kind == "part":
            t = map_(partition(base, draw(st.sampled_from(PARTITIONERS))()), parallelism=p)
        elif kind == "union":
            t = map_(union(base, draw(st.sampled_from(streams))))
        else:
            t = co_map(base, draw(st.sampled_from(streams)))
        streams.append(t)
        roots.append(t)
    roots.append(print_sink(draw(st.sampled_from(streams))))
    return roots, draw(st.booleans()), draw(st.sampled_from([1, 2, 5]))


@given(pipelines())
def test_chains_edges_and_wiring_are_consistent(case) -> None:
    roots, chaining, parallelism = case
    sg = stream_graph(roots, parallelism=parallelism, chaining_enabled=chaining)
    jg = create_job_graph(sg)

    # every StreamNode in exactly one JobVertex
    placed = [n.id for v in jg.vertices for n in v.stream_nodes]
    assert sorted(placed) == sorted(sg.nodes)
    assert len({v.id for v in jg.vertices}) == len(jg.vertices)

    chained = {id(e) for v in jg.vertices for e in v.chained_edges}
    for v in jg.vertices:
        assert v.head.id == v.stream_nodes[0].id and v.chain_indices[v.head.id] == 0
        members = {n.id for n in v.stream_nodes}
        for e in v.chained_edges:  # a chain is a tree of FORWARD edges with equal parallelism
            assert str(e.partitioner) == "FORWARD"
            assert e.source.parallelism == e.target.parallelism == v.parallelism
            assert e.source.id in members and e.target.id in members
            assert v.chain_indices[e.target.id] == v.chain_indices[e.source.id] + 1
        for n in v.stream_nodes[1:]:
            assert len(n.in_edges) == 1 and id(n.in_edges[0]) in chained
        assert chaining or len(v.stream_nodes) == 1

    # every other StreamEdge is exactly one JobEdge
    job_edges = [e for v in jg.vertices for e in v.inputs]
    assert len(job_edges) + len(chained) == len(sg.edges)
    assert {id(e.stream_edge) for e in job_edges}.isdisjoint(chained)

    # the explanation agrees with the chains
    rows = jg.explain_chaining()
    assert [r.chained for r in rows] == [id(e) in chained for e in sg.edges]

    # topological order: producers before consumers
    position = {v.id: i for i, v in enumerate(jg.vertices)}
    assert all(position[e.source.id] < position[e.target.id] for e in job_edges)

    # ExecutionGraph edge counts follow the distribution patterns
    eg = jg.to_execution_graph()
    for ejv in eg.job_vertices:
        for num, edge in enumerate(ejv.job_vertex.inputs):
            s, t = edge.source.parallelism, ejv.parallelism
            count = sum(len(ev.input_edges[num]) for ev in ejv.task_vertices)
            if edge.distribution_pattern is DistributionPattern.ALL_TO_ALL:
                assert count == s * t
            else:
                assert count == max(s, t)
                result = eg.intermediate_results[edge.data_set.id]
                assert all(p.consumers and p.consumers[0] for p in result.partitions)
    assert sum(len(r) for r in eg.failover_regions) == eg.total_number_of_subtasks
