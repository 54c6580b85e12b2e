"""JobGraph → ExecutionGraph: subtasks, result partitions and their wiring (Flink 1.11).

Stands for ``ExecutionGraph``/``ExecutionJobVertex``/``ExecutionVertex``/``IntermediateResult``/
``IntermediateResultPartition``/``ExecutionEdge`` as ``ExecutionGraphBuilder.buildGraph`` builds
them, plus the pipelined (failover) regions of ``RestartPipelinedRegionFailoverStrategy``.
Executions (attempts) are runtime state and live in ``pyflowkit.runtime``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pyflowkit.errors import JobException
from pyflowkit.graph.job_graph import (
    DistributionPattern,
    JobEdge,
    JobGraph,
    JobVertex,
    ResultPartitionType,
)
from pyflowkit.graph.renderable import Renderable
from pyflowkit.graph.routing import consumed_subpartition_index, pointwise_sources
from pyflowkit.state.key_groups import compute_default_max_parallelism

_PIPELINED = (ResultPartitionType.PIPELINED, ResultPartitionType.PIPELINED_BOUNDED)


@dataclass(eq=False)
class ExecutionEdge:
    """Flink's ``ExecutionEdge``: a consumer subtask reading one result partition."""

    source: IntermediateResultPartition
    target: ExecutionVertex
    input_number: int

    def __repr__(self) -> str:
        return f"ExecutionEdge({self.source.id} -> {self.target.id}, input {self.input_number})"


@dataclass(eq=False)
class IntermediateResultPartition:
    """Flink's ``IntermediateResultPartition``: what one producer subtask writes for one result."""

    result: IntermediateResult
    producer: ExecutionVertex
    partition_number: int
    consumers: list[list[ExecutionEdge]] = field(default_factory=list)  # one group in 1.11

    @property
    def id(self) -> str:
        return f"{self.result.id}#{self.partition_number}"

    @property
    def number_of_subpartitions(self) -> int:
        """``PartitionDescriptor``: one subpartition per consuming subtask (1 if none known); in
        a dynamic graph (AdaptiveBatchScheduler) what the result fixed before its consumer's
        parallelism was decided (``getNumberOfSubpartitionsForDynamicGraph``)."""
        if self.result.dynamic_subpartitions is not None:
            return self.result.dynamic_subpartitions
        if self.consumers and self.consumers[0]:
            return len(self.consumers[0])
        return 1

    @property
    def consumer_vertices(self) -> list[ExecutionVertex]:
        return [edge.target for group in self.consumers for edge in group]

    def add_consumer(self, edge: ExecutionEdge, consumer_number: int) -> None:
        while len(self.consumers) <= consumer_number:
            self.consumers.append([])
        self.consumers[consumer_number].append(edge)


@dataclass(eq=False)
class IntermediateResult:
    """Flink's ``IntermediateResult``: the runtime form of one ``IntermediateDataSet``."""

    id: str
    producer: ExecutionJobVertex
    result_type: ResultPartitionType
    partitions: list[IntermediateResultPartition] = field(default_factory=list)
    consumer_edge: JobEdge | None = None
    number_of_consumers: int = 0
    # dynamic graph: the subpartitions each partition has (consumer max parallelism, 1 broadcast)
    dynamic_subpartitions: int | None = None

    def register_consumer(self) -> int:
        index = self.number_of_consumers
        self.number_of_consumers += 1
        return index

    @property
    def is_pipelined(self) -> bool:
        return self.result_type in _PIPELINED


class ExecutionVertex:
    """Flink's ``ExecutionVertex``: one subtask, named ``name (i/n)``, id ``<jobVertexId>_<i>``."""

    __slots__ = ("job_vertex", "subtask_index", "produced_partitions", "input_edges")

    def __init__(self, job_vertex: ExecutionJobVertex, subtask_index: int) -> None:
        self.job_vertex = job_vertex
        self.subtask_index = subtask_index
        self.produced_partitions: dict[str, IntermediateResultPartition] = {}
        self.input_edges: list[list[ExecutionEdge]] = []

    @property
    def id(self) -> str:
        return f"{self.job_vertex.id}_{self.subtask_index}"

    @property
    def parallelism(self) -> int:
        return self.job_vertex.parallelism

    @property
    def task_name(self) -> str:
        return self.job_vertex.name

    @property
    def task_name_with_subtask_index(self) -> str:
        return f"{self.job_vertex.name} ({self.subtask_index + 1}/{self.job_vertex.parallelism})"

    name = task_name_with_subtask_index

    def connect_source(
        self, input_number: int, source: IntermediateResult, edge: JobEdge, consumer_number: int
    ) -> None:
        """``connectSource``: ALL_TO_ALL or POINTWISE edges to the producer's partitions."""
        partitions = source.partitions
        if edge.distribution_pattern is DistributionPattern.POINTWISE:
            edges = self._connect_pointwise(partitions, input_number)
        else:
            edges = [ExecutionEdge(p, self, input_number) for p in partitions]
        while len(self.input_edges) <= input_number:
            self.input_edges.append([])
        self.input_edges[input_number] = edges
        for e in edges:
            e.source.add_consumer(e, consumer_number)

    def _connect_pointwise(
        self, partitions: list[IntermediateResultPartition], input_number: int
    ) -> list[ExecutionEdge]:
        """``connectPointwise`` (1.11): the partitions ``routing.pointwise_sources`` names."""
        sources = pointwise_sources(
            len(partitions), self.job_vertex.parallelism, self.subtask_index
        )
        return [ExecutionEdge(partitions[k], self, input_number) for k in sources]

    def consumed_subpartition_index(self, input_number: int) -> int:
        """``TaskDeploymentDescriptorFactory``: the subpartition this subtask requests."""
        edges = self.input_edges[input_number]
        return consumed_subpartition_index(self.subtask_index, len(edges[0].source.consumers[0]))

    @property
    def producers(self) -> list[ExecutionVertex]:
        return [e.source.producer for group in self.input_edges for e in group]

    def __repr__(self) -> str:
        return f"ExecutionVertex({self.task_name_with_subtask_index})"

    def __str__(self) -> str:
        return self.task_name_with_subtask_index


class ExecutionJobVertex:
    """Flink's ``ExecutionJobVertex``: the parallel form of one JobVertex."""

    def __init__(self, graph: ExecutionGraph, job_vertex: JobVertex) -> None:
        self.graph = graph
        self.job_vertex = job_vertex
        self.parallelism = job_vertex.parallelism
        self.max_parallelism_configured = job_vertex.max_parallelism > 0
        self.max_parallelism = (
            job_vertex.max_parallelism
            if self.max_parallelism_configured
            else compute_default_max_parallelism(self.parallelism)
        )
        if self.parallelism > self.max_parallelism:
            raise JobException(
                f"Vertex {job_vertex.name}'s parallelism ({self.parallelism}) is higher than the "
                f"max parallelism ({self.max_parallelism}). Please lower the parallelism or "
                "increase the max parallelism."
            )
        self.produced_data_sets: list[IntermediateResult] = [
            IntermediateResult(ds.id, self, ds.result_type, consumer_edge=ds.consumers[0])
            if ds.consumers
            else IntermediateResult(ds.id, self, ds.result_type)
            for ds in job_vertex.produced_data_sets
        ]
        self.inputs: list[IntermediateResult] = []
        self.task_vertices = [ExecutionVertex(self, i) for i in range(self.parallelism)]
        for result in self.produced_data_sets:
            for ev in self.task_vertices:
                partition = IntermediateResultPartition(result, ev, ev.subtask_index)
                result.partitions.append(partition)
                ev.produced_partitions[result.id] = partition

    @property
    def id(self) -> str:
        return self.job_vertex.id

    @property
    def name(self) -> str:
        return self.job_vertex.name

    @property
    def slot_sharing_group(self) -> str:
        return self.job_vertex.slot_sharing_group

    def connect_to_predecessors(self, results: dict[str, IntermediateResult]) -> None:
        """``connectToPredecessors``: every subtask connects to each input result."""
        for num, edge in enumerate(self.job_vertex.inputs):
            result = results.get(edge.data_set.id)
            if result is None:
                raise JobException(
                    "Cannot connect this job graph to the previous graph. No previous "
                    f"intermediate result found for ID {edge.data_set.id}"
                )
            self.inputs.append(result)
            consumer_index = result.register_consumer()
            for ev in self.task_vertices:
                ev.connect_source(num, result, edge, consumer_index)

    def __repr__(self) -> str:
        return f"ExecutionJobVertex({self.name}, parallelism={self.parallelism})"


@dataclass(eq=False)
class FailoverRegion:
    """A pipelined region (``SchedulingPipelinedRegion``): what a region failover restarts."""

    index: int
    execution_vertices: list[ExecutionVertex]

    @property
    def vertex_ids(self) -> list[str]:
        return [ev.id for ev in self.execution_vertices]

    def __contains__(self, ev: object) -> bool:
        return any(ev is v for v in self.execution_vertices)

    def __len__(self) -> int:
        return len(self.execution_vertices)


class ExecutionGraph(Renderable):
    """Flink's ``ExecutionGraph`` as ``ExecutionGraphBuilder.buildGraph`` attaches a JobGraph."""

    def __init__(self, job_graph: JobGraph) -> None:
        self.job_graph = job_graph
        self.job_id = job_graph.job_id
        self.job_name = job_graph.job_name
        self.checkpointing_settings = job_graph.checkpointing_settings
        self.restart_strategy = job_graph.restart_strategy
        self.job_vertices: list[ExecutionJobVertex] = []  # topological order from the sources
        self.intermediate_results: dict[str, IntermediateResult] = {}
        self._by_id: dict[str, ExecutionJobVertex] = {}
        self._regions: list[FailoverRegion] | None = None

    @classmethod
    def from_job_graph(cls, job_graph: JobGraph) -> ExecutionGraph:
        """``attachJobGraph(getVerticesSortedTopologicallyFromSources())``."""
        graph = cls(job_graph)
        graph.attach_job_graph(job_graph.vertices)
        return graph

    def attach_job_graph(self, topologically_sorted: list[JobVertex]) -> None:
        created = [ExecutionJobVertex(self, jv) for jv in topologically_sorted]  # checks first
        for ejv in created:
            ejv.connect_to_predecessors(self.intermediate_results)
            self.job_vertices.append(ejv)
            self._by_id[ejv.id] = ejv
            for result in ejv.produced_data_sets:
                self.intermediate_results[result.id] = result
        self._regions = None

    @classmethod
    def dynamic(cls, job_graph: JobGraph) -> ExecutionGraph:
        """A dynamic graph (``DefaultExecutionGraph`` of the AdaptiveBatchScheduler): no job
        vertex attached yet; each is attached (``initializeJobVertex``) once its parallelism is
        decided, after its producers."""
        return cls(job_graph)

    # -- lookup --------------------------------------------------------------------------------
    def get_job_vertex(self, vertex_id_or_name: str) -> ExecutionJobVertex:
        if vertex_id_or_name in self._by_id:
            return self._by_id[vertex_id_or_name]
        for ejv in self.job_vertices:
            if ejv.name == vertex_id_or_name or vertex_id_or_name in ejv.job_vertex.operator_names:
                return ejv
        raise KeyError(f"No ExecutionJobVertex with id or name {vertex_id_or_name!r}")

    @property
    def all_execution_vertices(self) -> list[ExecutionVertex]:
        """``getAllExecutionVertices``: vertex by vertex (topological), subtask by subtask."""
        return [ev for ejv in self.job_vertices for ev in ejv.task_vertices]

    def get_execution_vertex(self, execution_vertex_id: str) -> ExecutionVertex:
        vertex_id, _, index = execution_vertex_id.rpartition("_")
        return self._by_id[vertex_id].task_vertices[int(index)]

    @property
    def total_number_of_subtasks(self) -> int:
        return sum(ejv.parallelism for ejv in self.job_vertices)

    @property
    def execution_edges(self) -> list[ExecutionEdge]:
        return [e for ev in self.all_execution_vertices for group in ev.input_edges for e in group]

    # -- failover regions ----------------------------------------------------------------------
    @property
    def failover_regions(self) -> list[FailoverRegion]:
        """Pipelined regions: subtasks connected through pipelined partitions (§4.4)."""
        if self._regions is None:
            self._regions = self._compute_pipelined_regions()
        return self._regions

    def get_failover_region(self, ev: ExecutionVertex | str) -> FailoverRegion:
        target = self.get_execution_vertex(ev) if isinstance(ev, str) else ev
        for region in self.failover_regions:
            if target in region:
                return region
        raise KeyError(f"{target} is in no failover region")

    def _compute_pipelined_regions(self) -> list[FailoverRegion]:
        vertices = self.all_execution_vertices
        position = {id(ev): i for i, ev in enumerate(vertices)}
        parent = list(range(len(vertices)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for ev in vertices:
            for group in ev.input_edges:
                for e in group:
                    if e.source.result.is_pipelined:
                        a, b = find(position[id(ev)]), find(position[id(e.source.producer)])
                        if a != b:
                            parent[max(a, b)] = min(a, b)
        members: dict[int, list[ExecutionVertex]] = {}
        for i, ev in enumerate(vertices):
            members.setdefault(find(i), []).append(ev)
        return [FailoverRegion(n, evs) for n, evs in enumerate(members.values())]

    def get_json_plan(self) -> str:
        """``ExecutionGraph.getJsonPlan``: the JobGraph's REST plan JSON."""
        return self.job_graph.to_plan_json()

    def __repr__(self) -> str:
        return (
            f"ExecutionGraph({self.job_name!r}, {len(self.job_vertices)} vertices, "
            f"{self.total_number_of_subtasks} subtasks)"
        )
