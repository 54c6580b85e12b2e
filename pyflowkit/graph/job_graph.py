"""JobGraph data classes (Flink's ``JobGraph``, ``JobVertex``, ``JobEdge``, ``IntermediateDataSet``).

Built by ``streaming_job_graph_generator.StreamingJobGraphGenerator``. ``JobGraph.vertices`` is in
topological order from the sources; ``JobGraph.vertices_in_flink_order`` is Flink's LinkedHashMap
order (sinks first), used by the REST plan JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from pyflowkit.graph.renderable import Renderable
from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph, StreamNode


class DistributionPattern(Enum):
    """Flink's ``DistributionPattern``."""

    ALL_TO_ALL = "ALL_TO_ALL"
    POINTWISE = "POINTWISE"


class ResultPartitionType(Enum):
    """Flink's ``ResultPartitionType``."""

    BLOCKING = "BLOCKING"
    BLOCKING_PERSISTENT = "BLOCKING_PERSISTENT"
    PIPELINED = "PIPELINED"
    PIPELINED_BOUNDED = "PIPELINED_BOUNDED"


class ShipStrategy(Enum):
    """The ship strategy name a JobEdge shows (Flink's ``partitioner.toString()``)."""

    FORWARD = "FORWARD"
    REBALANCE = "REBALANCE"
    RESCALE = "RESCALE"
    SHUFFLE = "SHUFFLE"
    BROADCAST = "BROADCAST"
    GLOBAL = "GLOBAL"
    HASH = "HASH"
    CUSTOM = "CUSTOM"


@dataclass(frozen=True)
class OperatorIDPair:
    """Flink's ``OperatorIDPair``: generated operator id and the optional user-provided hash."""

    generated_operator_id: str
    user_defined_operator_id: str | None = None


@dataclass(eq=False)
class IntermediateDataSet:
    """Flink's ``IntermediateDataSet``: a result produced by a vertex for one consumer edge."""

    id: str
    producer: JobVertex
    result_type: ResultPartitionType
    consumers: list[JobEdge] = field(default_factory=list)


@dataclass(eq=False)
class JobEdge:
    """Flink's ``JobEdge``: from an IntermediateDataSet of ``source`` to ``target``."""

    source: JobVertex
    target: JobVertex
    data_set: IntermediateDataSet
    distribution_pattern: DistributionPattern
    ship_strategy: ShipStrategy
    result_partition_type: ResultPartitionType
    stream_edge: StreamEdge  # the non-chained StreamEdge this JobEdge carries

    @property
    def partitioner(self) -> Any:
        return self.stream_edge.partitioner

    @property
    def type_number(self) -> int:
        return self.stream_edge.type_number


@dataclass(eq=False)
class JobVertex:
    """Flink's ``JobVertex``: one operator chain."""

    id: str  # 32 hex chars: the chain head's StreamGraphHasherV2 hash
    name: str  # chained name, e.g. "Window(...) -> Sink: Print to Std. Out"
    parallelism: int
    max_parallelism: int  # -1 when unset
    slot_sharing_group: str  # name of the group ("default" unless set)
    invokable_class: str
    stream_nodes: list[StreamNode]  # chained operators in chain-index order, head first
    chained_edges: list[StreamEdge]  # StreamEdges inside the chain
    operator_ids: list[OperatorIDPair]  # one per chained operator, same order as stream_nodes
    inputs: list[JobEdge] = field(default_factory=list)
    produced_data_sets: list[IntermediateDataSet] = field(default_factory=list)
    co_location_group: str | None = None
    # StreamConfig chain index per StreamNode id (head 0, +1 per chained hop)
    chain_indices: dict[int, int] = field(default_factory=dict)
    # identity of the SlotSharingGroup object (all "default" vertices share one in streaming)
    slot_sharing_group_id: str = ""

    @property
    def head(self) -> StreamNode:
        return self.stream_nodes[0]

    @property
    def operator_names(self) -> list[str]:
        return [n.operator_name for n in self.stream_nodes]

    @property
    def outputs(self) -> list[JobEdge]:
        return [edge for ds in self.produced_data_sets for edge in ds.consumers]

    @property
    def is_input_vertex(self) -> bool:
        return not self.inputs

    @property
    def parallelism_configured(self) -> bool:
        """``JobVertex.isParallelismConfigured`` (1.17+): the program set the parallelism of one
        of the chained operators (``set_parallelism``, a non-parallel source's forced 1). The
        environment's parallelism does not count: it is the AdaptiveBatchScheduler's upper bound.
        """
        from pyflowkit.graph.transformations import LegacySourceTransformation

        for node in self.stream_nodes:
            t = node.transformation
            if getattr(t, "parallelism_configured", False):
                return True
            if isinstance(t, LegacySourceTransformation) and not t.parallel:
                return True
        return False

    def __str__(self) -> str:
        return self.name


# Flink's CheckpointRetentionPolicy → the job statuses whose end discards the job's checkpoints
# (CheckpointProperties.forCheckpoint: discardOnJobFinished / Cancelled / Failed / Suspended)
CHECKPOINTS_DISCARDED_ON: dict[str, frozenset[str]] = {
    "NEVER_RETAIN_AFTER_TERMINATION": frozenset({"FINISHED", "CANCELED", "FAILED", "SUSPENDED"}),
    "RETAIN_ON_FAILURE": frozenset({"FINISHED", "CANCELED"}),
    "RETAIN_ON_CANCELLATION": frozenset({"FINISHED"}),
}


def checkpoints_discarded_on(retention_policy: str, job_status: str) -> bool:
    """Whether a job ending ``job_status`` discards its checkpoints under ``retention_policy``."""
    statuses = CHECKPOINTS_DISCARDED_ON.get(
        retention_policy, CHECKPOINTS_DISCARDED_ON["NEVER_RETAIN_AFTER_TERMINATION"]
    )
    return job_status in statuses


@dataclass(eq=False)
class JobCheckpointingSettings:
    """Flink's ``JobCheckpointingSettings`` + ``CheckpointCoordinatorConfiguration``."""

    vertices_to_trigger: list[str]
    vertices_to_acknowledge: list[str]
    vertices_to_confirm: list[str]
    checkpoint_interval: int  # ms; 2**63-1 (Long.MAX_VALUE) when periodic checkpoints are off
    checkpoint_timeout: int
    min_pause_between_checkpoints: int
    max_concurrent_checkpoints: int
    # NEVER_RETAIN_AFTER_TERMINATION, RETAIN_ON_FAILURE or RETAIN_ON_CANCELLATION
    retention_policy: str
    is_exactly_once: bool
    is_unaligned_checkpoints_enabled: bool
    tolerable_checkpoint_failure_number: int
    prefer_checkpoint_for_recovery: bool = False
    # FLIP-147 (the 1.20 profile, checkpointing on): a task waits for its final checkpoint
    checkpoints_after_tasks_finish: bool = False


@dataclass(eq=False)
class JobGraph(Renderable):
    """Flink's ``JobGraph``."""

    job_id: str
    job_name: str
    vertices: list[JobVertex]  # topological order from the sources
    vertices_in_flink_order: list[JobVertex]  # Flink's insertion order: sinks first
    stream_graph: StreamGraph
    checkpointing_settings: JobCheckpointingSettings
    restart_strategy: Any  # a RestartStrategyConfiguration (resolved per Flink 1.11's default)
    runtime_mode: str = "STREAMING"
    savepoint_restore_settings: Any = None

    def get_vertex(self, vertex_id_or_name: str) -> JobVertex:
        for v in self.vertices:
            if v.id == vertex_id_or_name or v.name == vertex_id_or_name:
                return v
        for v in self.vertices:
            if vertex_id_or_name in v.operator_names:
                return v
        raise KeyError(f"No JobVertex with id or name {vertex_id_or_name!r}")

    @property
    def edges(self) -> list[JobEdge]:
        return [e for v in self.vertices for e in v.inputs]

    def to_execution_graph(self) -> Any:
        """``ExecutionGraphBuilder.buildGraph``: one ExecutionVertex per subtask."""
        from pyflowkit.graph.execution_graph import ExecutionGraph

        return ExecutionGraph.from_job_graph(self)

    def to_plan_json(self) -> str:
        """The REST ``/jobs/:id/plan`` JSON (Flink's ``JsonPlanGenerator``)."""
        from pyflowkit.graph.json_plan import job_graph_to_plan_json

        return job_graph_to_plan_json(self)

    def explain_chaining(self) -> list[Any]:
        """One row per StreamEdge: upstream, downstream, chained, the first failed rule."""
        from pyflowkit.graph.chaining_explainer import explain_chaining

        return explain_chaining(self.stream_graph)

    def explain_chaining_frame(self) -> Any:
        """``explain_chaining()`` as a pandas DataFrame."""
        from pyflowkit.graph.chaining_explainer import explain_chaining_frame

        return explain_chaining_frame(self.stream_graph)
