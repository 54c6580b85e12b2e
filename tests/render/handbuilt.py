"""Hand-built StreamGraph/JobGraph instances (reference §3.8's job), no generators."""

from __future__ import annotations

from dataclasses import dataclass

from pyflowkit.graph.job_graph import (
    DistributionPattern,
    IntermediateDataSet,
    JobCheckpointingSettings,
    JobEdge,
    JobGraph,
    JobVertex,
    OperatorIDPair,
    ResultPartitionType,
    ShipStrategy,
)
from pyflowkit.graph.partitioner import (
    ForwardPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
)
from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph, StreamNode
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    LegacySourceTransformation,
    OperatorFactory,
)

WINDOW = (
    "Window(GlobalWindows(), CountTrigger, CountEvictor, SumAggregator, PassThroughWindowFunction)"
)
SRC_ID, MAP_ID, WIN_ID = (
    "bc764cd8ddf7a0cff126f51c16239658",
    "0a448493b4782967b150582570326227",
    "e70bbd798b564e0a50e10e343f1ac56b",
)


@dataclass
class Tag:
    tag_id: str


def _node(node_id: int, name: str, parallelism: int, cls: str, strategy: ChainingStrategy):
    factory = OperatorFactory(cls, strategy)
    t = LegacySourceTransformation(name, factory, parallelism=parallelism)
    return StreamNode(
        id=node_id,
        operator_name=name,
        operator_factory=factory,
        parallelism=parallelism,
        max_parallelism=-1,
        slot_sharing_group="default",
        invokable_class="SourceStreamTask" if node_id == 1 else "OneInputStreamTask",
        transformation=t,
    )


def _connect(a: StreamNode, b: StreamNode, partitioner, tag=None) -> StreamEdge:
    edge = StreamEdge(a, b, 0, partitioner, output_tag=tag)
    a.out_edges.append(edge)
    b.in_edges.append(edge)
    return edge


def stream_graph() -> StreamGraph:
    """Source(1) -REBALANCE-> Map(2) -HASH-> Window(4) -FORWARD-> Print(5); Map -side-> Sink(6)."""
    src = _node(1, "Source: Collection Source", 1, "StreamSource", ChainingStrategy.HEAD)
    mp = _node(2, "Map", 2, "StreamMap", ChainingStrategy.ALWAYS)
    win = _node(4, WINDOW, 2, "EvictingWindowOperator", ChainingStrategy.ALWAYS)
    win.state_key_selector = lambda v: v[0]
    sink = _node(5, "Sink: Print to Std. Out", 2, "StreamSink", ChainingStrategy.ALWAYS)
    late = _node(6, "Sink: Unnamed", 2, "StreamSink", ChainingStrategy.ALWAYS)
    _connect(src, mp, RebalancePartitioner())
    _connect(mp, win, KeyGroupStreamPartitioner(lambda v: v[0]))
    _connect(win, sink, ForwardPartitioner())
    _connect(mp, late, ForwardPartitioner(), Tag("late"))
    g = StreamGraph("demo job")
    for n in (src, mp, win, sink, late):
        g.nodes[n.id] = n
    g.sources, g.sinks = [1], [5, 6]
    return g


def job_graph() -> JobGraph:
    """Source | Map -> Sink: Unnamed (side output chained) | Window -> Print, as Flink chains it."""
    sg = stream_graph()
    n = sg.nodes

    def vertex(vid, name, nodes, chained, cls):
        return JobVertex(
            id=vid,
            name=name,
            parallelism=nodes[0].parallelism,
            max_parallelism=-1,
            slot_sharing_group="default",
            invokable_class=cls,
            stream_nodes=nodes,
            chained_edges=chained,
            operator_ids=[OperatorIDPair(vid) for _ in nodes],
        )

    v_src = vertex(SRC_ID, "Source: Collection Source", [n[1]], [], "SourceStreamTask")
    v_map = vertex(
        MAP_ID, "Map -> Sink: Unnamed", [n[2], n[6]], [n[2].out_edges[1]], "OneInputStreamTask"
    )
    v_win = vertex(
        WIN_ID,
        f"{WINDOW} -> Sink: Print to Std. Out",
        [n[4], n[5]],
        [n[4].out_edges[0]],
        "OneInputStreamTask",
    )

    def link(up: JobVertex, down: JobVertex, stream_edge: StreamEdge, ship: ShipStrategy, pattern):
        ds = IntermediateDataSet(
            f"ds{len(up.produced_data_sets)}", up, ResultPartitionType.PIPELINED_BOUNDED
        )
        edge = JobEdge(
            up, down, ds, pattern, ship, ResultPartitionType.PIPELINED_BOUNDED, stream_edge
        )
        ds.consumers.append(edge)
        up.produced_data_sets.append(ds)
        down.inputs.append(edge)

    link(v_src, v_map, n[1].out_edges[0], ShipStrategy.REBALANCE, DistributionPattern.ALL_TO_ALL)
    link(v_map, v_win, n[2].out_edges[0], ShipStrategy.HASH, DistributionPattern.ALL_TO_ALL)
    settings = JobCheckpointingSettings(
        [], [], [], 2**63 - 1, 600000, 0, 1, "NEVER", False, False, 0
    )
    return JobGraph(
        job_id="0" * 32,
        job_name="demo job",
        vertices=[v_src, v_map, v_win],
        vertices_in_flink_order=[v_win, v_map, v_src],
        stream_graph=sg,
        checkpointing_settings=settings,
        restart_strategy=None,
    )
