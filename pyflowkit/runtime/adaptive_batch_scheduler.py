"""Flink 1.20's ``AdaptiveBatchScheduler`` (FLIP-187): the parallelism of a BATCH job vertex is
decided when its inputs are finished, from the data volume they produced.

The default scheduler of BATCH jobs since Flink 1.17 (FLINK-30683); the 1.20 version profile's
``batch_scheduling`` rule selects it. It builds a dynamic ExecutionGraph: a job vertex is
attached (``initializeJobVertex``) once its parallelism is decided: a vertex the program gave a
parallelism keeps it; any other gets one from ``DefaultVertexParallelismAndInputInfosDecider``
(sources: ``default-source-parallelism``; others: the consumed non-broadcast bytes divided by
``avg-data-volume-per-task``, within [min-parallelism, max-parallelism]). Every partition of the
job is BLOCKING and has as many subpartitions as its consumer's max parallelism (1 if
broadcast); a consumer subtask reads a range of them. ``VertexwiseSchedulingStrategy`` deploys a
vertex once all its inputs are consumable (their producers FINISHED), never eagerly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.graph.adaptive_batch import (  # the decision every host shares
    AVG_DATA_VOLUME_KEY,
    ENABLED_KEY,
    MAX_PARALLELISM_KEY,
    MIN_PARALLELISM_KEY,
    SCHEDULER_KEY,
    BlockingResultInfo,
    DefaultVertexParallelismAndInputInfosDecider,
    DynamicParallelism,
    configuration_of,
    format_memory_size,
    is_broadcast,
    is_pointwise,
    num_subpartitions,
    parse_memory_size,
    records_bytes,
    subpartition_range,
    uses_adaptive_batch_scheduler,
)
from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.job_graph import JobVertex
from pyflowkit.runtime.default_scheduler import DefaultScheduler
from pyflowkit.runtime.execution_state import ExecutionState

__all__ = [
    "AVG_DATA_VOLUME_KEY",
    "ENABLED_KEY",
    "MAX_PARALLELISM_KEY",
    "MIN_PARALLELISM_KEY",
    "SCHEDULER_KEY",
    "AdaptiveBatchScheduler",
    "BlockingResultInfo",
    "DefaultVertexParallelismAndInputInfosDecider",
    "VertexwiseSchedulingStrategy",
    "configuration_of",
    "format_memory_size",
    "parse_memory_size",
    "uses_adaptive_batch_scheduler",
]

if TYPE_CHECKING:
    from pyflowkit.runtime.execution import ExecutionVertex
    from pyflowkit.runtime.job_master import JobMaster

STRATEGY = "org.apache.flink.runtime.scheduler.strategy.VertexwiseSchedulingStrategy"


class VertexwiseSchedulingStrategy:
    """Flink's ``VertexwiseSchedulingStrategy``: a vertex is scheduled once every input it
    consumes is consumable (``DefaultInputConsumableDecider``: a BLOCKING result once all its
    producers FINISHED)."""

    def __init__(self, scheduler: AdaptiveBatchScheduler) -> None:
        self.scheduler = scheduler
        self.name = STRATEGY

    def start_scheduling(self) -> None:
        self.scheduler.initialize_vertices_if_possible()
        self.maybe_schedule_vertices()

    def on_execution_state_change(self) -> None:
        self.maybe_schedule_vertices()

    def maybe_schedule_vertices(self) -> None:
        scheduler = self.scheduler
        ready = [
            jv
            for jv in scheduler.initialized
            if jv.id not in scheduler.scheduled and scheduler.inputs_consumable(jv)
        ]
        vertices: list[ExecutionVertex] = []
        for jv in ready:
            scheduler.scheduled.add(jv.id)
            vertices += [ev for ev in scheduler.execution_vertices if ev.job_vertex.id == jv.id]
        if vertices:
            scheduler.allocate_slots_and_deploy(vertices)

    def restart_tasks(self, vertices: list[ExecutionVertex]) -> None:
        self.scheduler.allocate_slots_and_deploy(vertices)


class AdaptiveBatchScheduler(DefaultScheduler):
    """Flink 1.20's ``AdaptiveBatchScheduler`` (a ``DefaultScheduler`` with a dynamic graph)."""

    def __init__(self, job_master: JobMaster) -> None:
        self.initialized: list[JobVertex] = []  # topological order
        self.scheduled: set[str] = set()
        super().__init__(job_master)

    def create_execution_graph(self) -> ExecutionGraph:
        self.dynamic = DynamicParallelism.of(self.jm.job_graph)
        self.decider = self.dynamic.decider
        self.decided = self.dynamic.decided
        return ExecutionGraph.dynamic(self.jm.job_graph)

    def create_scheduling_strategy(self) -> Any:
        return VertexwiseSchedulingStrategy(self)

    # -- the dynamic graph ------------------------------------------------------------------------
    def job_vertex_finished(self, jv: JobVertex) -> bool:
        """``ExecutionJobVertex.isFinished``: every subtask FINISHED."""
        evs = [ev for ev in self.execution_vertices if ev.job_vertex.id == jv.id]
        return bool(evs) and all(
            ev.current_execution.state is ExecutionState.FINISHED for ev in evs
        )

    def inputs_consumable(self, jv: JobVertex) -> bool:
        return all(self.job_vertex_finished(edge.source) for edge in jv.inputs)

    def initialize_vertices_if_possible(self) -> None:
        """``initializeVerticesIfPossible``: attach every vertex whose parallelism is decided or
        can be decided now (its inputs finished), in topological order."""
        done = {jv.id for jv in self.initialized}
        newly = []
        for jv in self.jm.job_graph.vertices:
            if jv.id in done:
                continue
            producers_initialized = all(edge.source.id in done for edge in jv.inputs)
            if self.decided[jv.id] and producers_initialized:
                parallelism = jv.parallelism  # canInitialize: the program's parallelism
            elif all(self.job_vertex_finished(edge.source) for edge in jv.inputs):
                parallelism = self._decide(jv)
            else:
                continue
            self._initialize_job_vertex(jv, parallelism)
            done.add(jv.id)
            newly.append(jv)
        if newly:
            before = len(self.regions)
            self.compute_regions()
            self.bus.emit(
                "JobMaster",
                "DefaultExecutionTopology.notifyExecutionGraphUpdated",
                f"Built {len(self.regions) - before} new pipelined regions in 0 ms, total "
                f"{len(self.regions)} pipelined regions currently.",
                job=self.jm.job_id,
            )

    def _decide(self, jv: JobVertex) -> int:
        """``tryDecideParallelismAndInputInfos``."""
        infos = [self._blocking_result_info(edge) for edge in jv.inputs]

        def on_decided(total: int, initial: int) -> None:
            self.bus.emit(
                "JobMaster",
                "DefaultVertexParallelismAndInputInfosDecider.decideParallelism",
                f"The total size of non-broadcast data is {format_memory_size(total)}, the "
                f"initially decided parallelism of job vertex {jv.id} is {initial}.",
                job=self.jm.job_id,
                vertex=jv.name,
            )

        parallelism = self.dynamic.decide(jv, infos, on_decided)
        self.bus.emit(
            "JobMaster",
            "AdaptiveBatchScheduler.tryDecideParallelismAndInputInfos",
            f"Parallelism of JobVertex: {jv.name} ({jv.id}) is decided to be {parallelism}.",
            job=self.jm.job_id,
            vertex=jv.name,
        )
        return parallelism

    def _blocking_result_info(self, edge: Any) -> BlockingResultInfo:
        """What the producer's subtasks reported with FINISHED (``IOMetrics``'
        ``ResultPartitionBytes``): the bytes they wrote into the result, records as pickled
        (PyFlink's PICKLED_BYTE_ARRAY records)."""
        total = 0
        for ev in self.execution_vertices:
            if ev.job_vertex.id != edge.source.id:
                continue
            e = ev.current_execution
            pid = (edge.data_set.id, ev.subtask_index, e.attempt_id)
            partition = e.slot.task_executor.host.shuffle.partitions.get(pid) if e.slot else None
            if partition is not None:
                total += partition_bytes(partition, broadcast=is_broadcast(edge))
        return BlockingResultInfo(edge.data_set.id, total, is_broadcast(edge), is_pointwise(edge))

    def _initialize_job_vertex(self, jv: JobVertex, parallelism: int) -> None:
        """``initializeJobVertex``: the decided parallelism, the ExecutionJobVertex and its
        produced results' subpartitions (``getNumberOfSubpartitionsForDynamicGraph``)."""
        jv.parallelism = parallelism
        self.execution_graph.attach_job_graph([jv])
        ejv = self.execution_graph.get_job_vertex(jv.id)
        for result in ejv.produced_data_sets:
            edge = result.consumer_edge
            if edge is None or is_pointwise(edge):
                continue
            result.dynamic_subpartitions = num_subpartitions(edge)
        self.register_execution_vertices(ejv)
        self.initialized.append(jv)

    def consumed_subpartitions(self, graph_vertex: Any, num: int, edge: Any) -> range:
        """``ExecutionVertexInputInfo.getSubpartitionIndexRange``: a range of the producer's
        subpartitions (``VertexInputInfoComputationUtils``); the key-group range of the subtask
        on a HASH edge, so each key reaches the subtask whose state holds it."""
        if is_pointwise(edge):
            return super().consumed_subpartitions(graph_vertex, num, edge)
        return subpartition_range(edge, graph_vertex.parallelism, graph_vertex.subtask_index)

    # -- events ---------------------------------------------------------------------------------
    def on_task_finished(self, e: Any) -> None:
        """``AdaptiveBatchScheduler.onTaskFinished``: initialize what can be now, then let the
        strategy schedule the vertices whose inputs became consumable."""
        self.initialize_vertices_if_possible()
        self.strategy.on_execution_state_change()


def partition_bytes(partition: Any, broadcast: bool = False) -> int:
    """The bytes of the records a finished partition holds (the first subpartition only when
    the result is broadcast: every subpartition holds the same records)."""
    from pyflowkit.runtime.network import Watermark

    total = 0
    subpartitions = partition.subpartitions[:1] if broadcast else partition.subpartitions
    for sub in subpartitions:
        for buffer in sub.queue:
            if buffer.is_event:
                continue
            total += records_bytes(
                element[0] for element in buffer.elements if not isinstance(element, Watermark)
            )
    return total
