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

import math
import pickle
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.job_graph import DistributionPattern, JobVertex
from pyflowkit.runtime.default_scheduler import DefaultScheduler
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.state.key_groups import (
    compute_default_max_parallelism,
    compute_key_group_range_for_operator_index,
)

if TYPE_CHECKING:
    from pyflowkit.runtime.execution import ExecutionVertex
    from pyflowkit.runtime.job_master import JobMaster

SCHEDULER_KEY = "jobmanager.scheduler"
ENABLED_KEY = "execution.batch.adaptive.auto-parallelism.enabled"
MIN_PARALLELISM_KEY = "execution.batch.adaptive.auto-parallelism.min-parallelism"
MAX_PARALLELISM_KEY = "execution.batch.adaptive.auto-parallelism.max-parallelism"
AVG_DATA_VOLUME_KEY = "execution.batch.adaptive.auto-parallelism.avg-data-volume-per-task"
DEFAULT_SOURCE_PARALLELISM_KEY = (
    "execution.batch.adaptive.auto-parallelism.default-source-parallelism"
)
DEFAULT_AVG_DATA_VOLUME = 16 * 1024 * 1024  # 16 mb
DEFAULT_MAX_PARALLELISM = 128  # ADAPTIVE_AUTO_PARALLELISM_MAX_PARALLELISM's default
STRATEGY = "org.apache.flink.runtime.scheduler.strategy.VertexwiseSchedulingStrategy"

_UNITS = (("bytes", 1), ("kb", 1 << 10), ("mb", 1 << 20), ("gb", 1 << 30), ("tb", 1 << 40))
_UNIT_ALIASES = {
    "": 1,
    "b": 1,
    "bytes": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "kibibytes": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "mebibytes": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "gibibytes": 1 << 30,
    "t": 1 << 40,
    "tb": 1 << 40,
    "tebibytes": 1 << 40,
}


def parse_memory_size(text: Any) -> int:
    """``MemorySize.parse``: ``"16 mb"``, ``"16m"``, ``"1024"`` → bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(text))
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNIT_ALIASES:
        raise ValueError(
            f"Could not parse value '{text}' for key '{AVG_DATA_VOLUME_KEY}': a memory size such "
            "as '16 mb'."
        )
    return int(match.group(1)) * _UNIT_ALIASES[unit]


def format_memory_size(size: int) -> str:
    """``MemorySize.toString``: the largest unit that divides the size (``16 mb``, ``98 bytes``)."""
    name, multiplier = _UNITS[0]
    for unit, factor in _UNITS:
        if size % factor:
            break
        name, multiplier = unit, factor
    return f"{size // multiplier} {name}"


def uses_adaptive_batch_scheduler(job_graph: Any, profile: Any) -> bool:
    """``DefaultSlotPoolServiceSchedulerFactory.getSchedulerType``: a BATCH job gets the
    AdaptiveBatchScheduler under 1.20 unless ``jobmanager.scheduler`` names another one."""
    if not profile.batch_scheduling.adaptive or job_graph.runtime_mode != "BATCH":
        return False
    chosen = str(configuration_of(job_graph).get(SCHEDULER_KEY, "AdaptiveBatch"))
    return chosen.strip().lower() in ("adaptivebatch", "adaptive")


def configuration_of(job_graph: Any) -> dict[str, Any]:
    settings = getattr(job_graph.stream_graph, "execution_config", None)
    return dict(getattr(settings, "configuration", None) or {})


@dataclass(frozen=True)
class BlockingResultInfo:
    """Flink's ``BlockingResultInfo``: what a finished producer reported of one consumed result."""

    data_set_id: str
    num_bytes_produced: int
    is_broadcast: bool
    is_pointwise: bool


class DefaultVertexParallelismAndInputInfosDecider:
    """Flink's ``DefaultVertexParallelismAndInputInfosDecider``: a vertex's parallelism from the
    bytes of its consumed results."""

    def __init__(
        self,
        global_max_parallelism: int,
        global_min_parallelism: int,
        data_volume_per_task: int,
        global_default_source_parallelism: int,
    ) -> None:
        if global_min_parallelism <= 0:
            raise ValueError("The minimum parallelism must be larger than 0.")
        if global_max_parallelism < global_min_parallelism:
            raise ValueError(
                "Maximum parallelism should be greater than or equal to the minimum parallelism."
            )
        if global_default_source_parallelism <= 0:
            raise ValueError("The default source parallelism must be larger than 0.")
        self.global_max_parallelism = global_max_parallelism
        self.global_min_parallelism = global_min_parallelism
        self.data_volume_per_task = data_volume_per_task
        self.global_default_source_parallelism = global_default_source_parallelism

    @classmethod
    def from_configuration(
        cls, max_parallelism: int, configuration: dict[str, Any]
    ) -> DefaultVertexParallelismAndInputInfosDecider:
        """``DefaultVertexParallelismAndInputInfosDecider.from``."""
        return cls(
            max_parallelism,
            int(configuration.get(MIN_PARALLELISM_KEY, 1)),
            parse_memory_size(configuration.get(AVG_DATA_VOLUME_KEY, DEFAULT_AVG_DATA_VOLUME)),
            int(configuration.get(DEFAULT_SOURCE_PARALLELISM_KEY, max_parallelism)),
        )

    def decide_parallelism_for_vertex(
        self,
        consumed_results: list[BlockingResultInfo],
        vertex_max_parallelism: int,
        on_decided: Any = None,
    ) -> int:
        """``decideParallelismAndInputInfosForVertex`` of a vertex without a parallelism."""
        if not consumed_results:  # a source job vertex
            return min(self.global_default_source_parallelism, vertex_max_parallelism)
        min_parallelism = self.global_min_parallelism
        max_parallelism = self.global_max_parallelism
        if vertex_max_parallelism < min_parallelism:
            min_parallelism = vertex_max_parallelism
        if vertex_max_parallelism < max_parallelism:
            max_parallelism = vertex_max_parallelism
        return self.decide_parallelism(
            consumed_results, min_parallelism, max_parallelism, on_decided
        )

    def decide_parallelism(
        self,
        consumed_results: list[BlockingResultInfo],
        min_parallelism: int,
        max_parallelism: int,
        on_decided: Any = None,
    ) -> int:
        """``decideParallelism``: broadcast results are small, only the others count."""
        non_broadcast = [r for r in consumed_results if not r.is_broadcast]
        if not non_broadcast:
            return min_parallelism
        total_bytes = sum(r.num_bytes_produced for r in non_broadcast)
        parallelism = math.ceil(total_bytes / self.data_volume_per_task)
        if on_decided is not None:
            on_decided(total_bytes, parallelism)
        return max(min_parallelism, min(parallelism, max_parallelism))


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
        jg = self.jm.job_graph
        cfg = configuration_of(jg)
        settings = getattr(jg.stream_graph, "execution_config", None)
        env_parallelism = getattr(settings, "parallelism", -1)
        # getDefaultMaxParallelism: the option, else the environment's parallelism, else 128
        if MAX_PARALLELISM_KEY in cfg:
            default_max = int(cfg[MAX_PARALLELISM_KEY])
        else:
            default_max = env_parallelism if env_parallelism > 0 else DEFAULT_MAX_PARALLELISM
        self.auto_parallelism = str(cfg.get(ENABLED_KEY, "true")).strip().lower() != "false"
        self.decider = DefaultVertexParallelismAndInputInfosDecider.from_configuration(
            default_max, cfg
        )
        self.decided: dict[str, bool] = {}
        for jv in jg.vertices:
            # computeVertexParallelismStoreForDynamicGraph: a vertex whose parallelism is still
            # to be decided takes the global default max parallelism
            decided = jv.parallelism_configured or not self.auto_parallelism
            self.decided[jv.id] = decided
            if jv.max_parallelism <= 0:
                jv.max_parallelism = (
                    compute_default_max_parallelism(jv.parallelism) if decided else default_max
                )
        return ExecutionGraph.dynamic(jg)

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

        pointwise = [edge for edge in jv.inputs if self._pointwise(edge)]
        if pointwise:  # a forward group: the producer's parallelism (rescale/forward inputs)
            parallelism = max(edge.source.parallelism for edge in pointwise)
        else:
            parallelism = self.decider.decide_parallelism_for_vertex(
                infos, jv.max_parallelism, on_decided
            )
        self.bus.emit(
            "JobMaster",
            "AdaptiveBatchScheduler.tryDecideParallelismAndInputInfos",
            f"Parallelism of JobVertex: {jv.name} ({jv.id}) is decided to be {parallelism}.",
            job=self.jm.job_id,
            vertex=jv.name,
        )
        return parallelism

    @staticmethod
    def _pointwise(edge: Any) -> bool:
        return edge.distribution_pattern is DistributionPattern.POINTWISE

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
                total += partition_bytes(partition, broadcast=self._broadcast(edge))
        return BlockingResultInfo(
            edge.data_set.id, total, self._broadcast(edge), self._pointwise(edge)
        )

    @staticmethod
    def _broadcast(edge: Any) -> bool:
        return edge.ship_strategy.value == "BROADCAST"

    def _initialize_job_vertex(self, jv: JobVertex, parallelism: int) -> None:
        """``initializeJobVertex``: the decided parallelism, the ExecutionJobVertex and its
        produced results' subpartitions (``getNumberOfSubpartitionsForDynamicGraph``)."""
        jv.parallelism = parallelism
        self.execution_graph.attach_job_graph([jv])
        ejv = self.execution_graph.get_job_vertex(jv.id)
        for result in ejv.produced_data_sets:
            edge = result.consumer_edge
            if edge is None or self._pointwise(edge):
                continue
            result.dynamic_subpartitions = (
                1 if self._broadcast(edge) else self._max_parallelism(edge.target)
            )
        self.register_execution_vertices(ejv)
        self.initialized.append(jv)

    @staticmethod
    def _max_parallelism(jv: JobVertex) -> int:
        return jv.max_parallelism if jv.max_parallelism > 0 else 128

    def consumed_subpartitions(self, graph_vertex: Any, num: int, edge: Any) -> range:
        """``ExecutionVertexInputInfo.getSubpartitionIndexRange``: a range of the producer's
        subpartitions (``VertexInputInfoComputationUtils``); the key-group range of the subtask
        on a HASH edge, so each key reaches the subtask whose state holds it."""
        if self._pointwise(edge):
            return super().consumed_subpartitions(graph_vertex, num, edge)
        if self._broadcast(edge):
            return range(0, 1)
        n = self._max_parallelism(edge.target)
        p, i = graph_vertex.parallelism, graph_vertex.subtask_index
        if edge.ship_strategy.value == "HASH":
            kg = compute_key_group_range_for_operator_index(n, p, i)
            return range(kg.start_key_group, kg.end_key_group + 1)
        return range(i * n // p, (i + 1) * n // p)

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
            for element in buffer.elements:
                if isinstance(element, Watermark):
                    continue
                total += len(pickle.dumps(element[0], protocol=pickle.HIGHEST_PROTOCOL))
    return total
