"""StreamGraph data classes (Flink's ``StreamGraph``, ``StreamNode``, ``StreamEdge``).

Built by ``stream_graph_generator.StreamGraphGenerator``; read by the JobGraph generator, the
renderers and the runtimes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.partitioner import StreamPartitioner
from pyflowkit.graph.renderable import Renderable
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    OperatorFactory,
    ShuffleMode,
    Transformation,
)


@dataclass(eq=False)
class StreamNode:
    """Flink's ``StreamNode``: one physical operator of the pipeline."""

    id: int
    operator_name: str  # e.g. "Source: Collection Source", "Map", "Sink: Print to Std. Out"
    operator_factory: OperatorFactory
    parallelism: int
    max_parallelism: int  # -1 when unset
    slot_sharing_group: str | None
    invokable_class: str  # SourceStreamTask, OneInputStreamTask, TwoInputStreamTask, …
    transformation: Transformation
    uid: str | None = None
    user_hash: str | None = None
    buffer_timeout: int = -1
    output_type: Any = None
    state_key_selector: Callable[[Any], Any] | None = None  # one-input keyed operators
    state_key_selector1: Callable[[Any], Any] | None = None  # two-input keyed operators
    state_key_selector2: Callable[[Any], Any] | None = None
    state_key_type: Any = None
    co_location_group: str | None = None
    in_edges: list[StreamEdge] = field(default_factory=list)
    out_edges: list[StreamEdge] = field(default_factory=list)

    @property
    def chaining_strategy(self) -> ChainingStrategy:
        return self.transformation.chaining_strategy  # type: ignore[attr-defined]

    @property
    def is_keyed(self) -> bool:
        return (
            self.state_key_selector is not None
            or self.state_key_selector1 is not None
            or self.state_key_selector2 is not None
        )

    def __str__(self) -> str:  # Flink's StreamNode.toString
        return f"{self.operator_name}-{self.id}"


@dataclass(eq=False)
class StreamEdge:
    """Flink's ``StreamEdge``: a physical edge with its partitioner, side-output tag and type number."""

    source: StreamNode
    target: StreamNode
    type_number: int  # 0 for one-input targets, 1/2 for two-input targets
    partitioner: StreamPartitioner
    output_tag: Any = None  # OutputTag for side-output edges
    shuffle_mode: ShuffleMode = ShuffleMode.UNDEFINED
    selected_names: tuple[str, ...] = ()
    # pyflowkit addition: True when the generator chose FORWARD/REBALANCE (no partitioning call)
    default_partitioner: bool = False

    @property
    def source_id(self) -> int:
        return self.source.id

    @property
    def target_id(self) -> int:
        return self.target.id

    @property
    def edge_id(self) -> str:
        names = "[" + ", ".join(self.selected_names) + "]"
        return f"{self.source}_{self.target}_{self.type_number}_{names}_{self.partitioner}"

    def __str__(self) -> str:
        return (
            f"({self.source} -> {self.target}, typeNumber={self.type_number}, "
            f"selectedNames=[], outputPartitioner={self.partitioner}, outputTag={self.output_tag})"
        )


@dataclass(eq=False)
class StreamGraph(Renderable):
    """Flink's ``StreamGraph``: nodes by id (insertion order), sources, sinks, job settings."""

    job_name: str
    nodes: dict[int, StreamNode] = field(default_factory=dict)
    sources: list[int] = field(default_factory=list)
    sinks: list[int] = field(default_factory=list)
    chaining_enabled: bool = True
    time_characteristic: str = "ProcessingTime"
    runtime_mode: str = "STREAMING"
    checkpoint_config: Any = None
    restart_strategy: Any = None
    execution_config: Any = None  # a snapshot of the environment's settings
    # GlobalDataExchangeMode name (ALL_EDGES_PIPELINED for streaming, as Flink 1.11's generator)
    global_data_exchange_mode: str = "ALL_EDGES_PIPELINED"
    all_vertices_in_same_slot_sharing_group_by_default: bool = True
    # node id -> the id the node would have in a fresh process (see ``job_local_id``)
    job_local_ids: dict[int, int] = field(default_factory=dict)

    @property
    def edges(self) -> list[StreamEdge]:
        return [e for n in self.nodes.values() for e in n.out_edges]

    def get_stream_node(self, node_id: int) -> StreamNode:
        return self.nodes[node_id]

    def job_local_id(self, node_id: int) -> int:
        """The node's id counted within this job alone: its rank among the job's transformations.

        Flink's ids come from one static counter (``Transformation.getNewNodeId``), so they depend
        on what the process built before; every order derived from ids (Java ``HashMap`` buckets)
        uses these instead, which equal Flink's ids in a fresh JVM that builds only this job.
        """
        local = self.job_local_ids.get(node_id)
        if local is None:  # a graph not built by the generator: rank among its nodes
            self.job_local_ids = {n: i for i, n in enumerate(sorted(self.nodes), start=1)}
            local = self.job_local_ids[node_id]
        return local
