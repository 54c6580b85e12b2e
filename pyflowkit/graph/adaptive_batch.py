"""Flink 1.20's adaptive batch parallelism (FLIP-187), the part every host shares: which BATCH
job vertices get their parallelism at run time and how it is decided from the bytes they consume.

Flink's ``org.apache.flink.runtime.scheduler.adaptivebatch``: ``DefaultVertexParallelismAndInputInfosDecider``
(a vertex's parallelism from its consumed results' bytes), ``computeVertexParallelismStoreForDynamicGraph``
(the max parallelism of a vertex still to be decided) and ``VertexInputInfoComputationUtils`` (which
subpartitions of a result each consumer subtask reads: a produced result has as many subpartitions
as its consumer's max parallelism, 1 if broadcast). The simulated cluster's ``AdaptiveBatchScheduler``
and the Spark batch plan both decide through this module; each host only measures the bytes its
finished producers wrote.
"""

from __future__ import annotations

import math
import pickle
import re
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.runtime_mode import BATCH, job_runtime_mode
from pyflowkit.state.key_groups import (
    compute_default_max_parallelism,
    compute_key_group_range_for_operator_index,
)

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
    AdaptiveBatchScheduler under 1.20 unless ``jobmanager.scheduler`` names another one (an
    AUTOMATIC job whose sources are all bounded is a BATCH job: ``JobType.BATCH``)."""
    if not profile.batch_scheduling.adaptive or job_runtime_mode(job_graph) != BATCH:
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


def records_bytes(values: Any) -> int:
    """The bytes a producer wrote for ``values`` into a BLOCKING result, as Flink's
    ``ResultPartitionBytes`` counts them: each record serialized, here as PyFlink's
    PICKLED_BYTE_ARRAY (pickled), so every host measures the same number."""
    return sum(len(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) for v in values)


def default_max_parallelism_of(job_graph: Any) -> int:
    """``AdaptiveBatchSchedulerFactory.getDefaultMaxParallelism``: the max-parallelism option,
    else the environment's parallelism, else 128."""
    cfg = configuration_of(job_graph)
    if MAX_PARALLELISM_KEY in cfg:
        return int(cfg[MAX_PARALLELISM_KEY])
    settings = getattr(job_graph.stream_graph, "execution_config", None)
    env_parallelism = getattr(settings, "parallelism", -1)
    return env_parallelism if env_parallelism > 0 else DEFAULT_MAX_PARALLELISM


@dataclass
class DynamicParallelism:
    """The dynamic graph's parallelism store (``computeVertexParallelismStoreForDynamicGraph``)
    and its decider: which vertices are decided, and the decision for the others."""

    decider: DefaultVertexParallelismAndInputInfosDecider
    auto_parallelism: bool
    decided: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def of(cls, job_graph: Any) -> DynamicParallelism:
        """A vertex whose parallelism is still to be decided takes the global default max
        parallelism (unless it has its own); a decided one Flink's default for its parallelism."""
        cfg = configuration_of(job_graph)
        default_max = default_max_parallelism_of(job_graph)
        auto = str(cfg.get(ENABLED_KEY, "true")).strip().lower() != "false"
        store = cls(
            DefaultVertexParallelismAndInputInfosDecider.from_configuration(default_max, cfg), auto
        )
        for jv in job_graph.vertices:
            decided = jv.parallelism_configured or not auto
            store.decided[jv.id] = decided
            if jv.max_parallelism <= 0:
                jv.max_parallelism = (
                    compute_default_max_parallelism(jv.parallelism) if decided else default_max
                )
        return store

    def is_decided(self, jv: Any) -> bool:
        return self.decided[jv.id]

    def decide(
        self, jv: Any, consumed_results: list[BlockingResultInfo], on_decided: Any = None
    ) -> int:
        """``tryDecideParallelismAndInputInfos`` of an undecided vertex whose inputs finished: a
        vertex with a pointwise (forward, rescale) input takes its producer's parallelism (its
        forward group), any other the decider's answer from the consumed bytes."""
        pointwise = [edge for edge in jv.inputs if is_pointwise(edge)]
        if pointwise:
            return max(edge.source.parallelism for edge in pointwise)
        return self.decider.decide_parallelism_for_vertex(
            consumed_results, jv.max_parallelism, on_decided
        )

    def undecided_consumer(self, edge: Any) -> bool:
        """Whether ``edge``'s consumer is decided at run time from an all-to-all input: its
        producer then writes ``num_subpartitions(edge)`` subpartitions."""
        return not self.decided[edge.target.id] and not is_pointwise(edge)


def is_pointwise(edge: Any) -> bool:
    return getattr(edge.distribution_pattern, "value", edge.distribution_pattern) == "POINTWISE"


def is_broadcast(edge: Any) -> bool:
    return getattr(edge.ship_strategy, "value", edge.ship_strategy) == "BROADCAST"


def max_parallelism_of(jv: Any) -> int:
    return jv.max_parallelism if jv.max_parallelism > 0 else DEFAULT_MAX_PARALLELISM


def num_subpartitions(edge: Any) -> int:
    """``getNumberOfSubpartitionsForDynamicGraph``: the consumer's max parallelism (1 if the
    result is broadcast), so that any parallelism it is later given reads whole ranges."""
    return 1 if is_broadcast(edge) else max_parallelism_of(edge.target)


def subpartition_range(edge: Any, parallelism: int, subtask_index: int) -> range:
    """``ExecutionVertexInputInfo.getSubpartitionIndexRange`` of an all-to-all edge
    (``VertexInputInfoComputationUtils``): the key-group range of the subtask on a HASH edge, so
    each key reaches the subtask whose state holds it; an even range otherwise; subpartition 0
    for every subtask of a broadcast result."""
    if is_broadcast(edge):
        return range(0, 1)
    n = max_parallelism_of(edge.target)
    p, i = parallelism, subtask_index
    if getattr(edge.ship_strategy, "value", edge.ship_strategy) == "HASH":
        kg = compute_key_group_range_for_operator_index(n, p, i)
        return range(kg.start_key_group, kg.end_key_group + 1)
    return range(i * n // p, (i + 1) * n // p)


def readers_of_subpartitions(edge: Any, parallelism: int) -> list[list[int]]:
    """For each subpartition of ``edge``'s result, the consumer subtasks that read it."""
    readers: list[list[int]] = [[] for _ in range(num_subpartitions(edge))]
    for i in range(parallelism):
        for s in subpartition_range(edge, parallelism, i):
            readers[s].append(i)
    return readers
