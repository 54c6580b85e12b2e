"""What ``Execution.deploy`` sends to a TaskExecutor (Flink's ``TaskDeploymentDescriptor``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.job_graph import JobEdge, JobVertex

PartitionId = tuple[
    str, int, str
]  # (IntermediateDataSet id, producer subtask, producer attempt id)


@dataclass(frozen=True)
class ResultPartitionDeploymentDescriptor:
    """Flink's ``ResultPartitionDeploymentDescriptor``: one produced partition of the task."""

    edge: JobEdge
    partition_id: PartitionId
    number_of_subpartitions: int
    consumer_max_parallelism: int  # HASH partitioners use the CONSUMER's max parallelism
    # a BLOCKING partition of a dynamic graph: written in full before its consumer is deployed
    # (BoundedBlockingSubpartition: no credit back-pressure on the producer)
    blocking: bool = False


@dataclass(frozen=True)
class InputGateDeploymentDescriptor:
    """Flink's ``InputGateDeploymentDescriptor``: the partitions one input gate reads."""

    edge: JobEdge
    input_index: int  # 0 for one-input tasks, the type number (1/2) for two-input tasks
    channels: tuple[tuple[PartitionId, int], ...]  # (partition, subpartition index) per channel


@dataclass(frozen=True)
class TaskDeploymentDescriptor:
    """Flink's ``TaskDeploymentDescriptor``."""

    job_id: str
    job_name: str
    job_vertex: JobVertex
    subtask_index: int
    attempt_number: int
    attempt_id: str
    allocation_id: str
    target_slot_number: int
    max_parallelism: int
    produced_partitions: tuple[ResultPartitionDeploymentDescriptor, ...]
    input_gates: tuple[InputGateDeploymentDescriptor, ...]
    settings: Any = None  # the StreamGraph's EnvironmentSettings
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def task_name_with_subtasks(self) -> str:
        p = self.job_vertex.parallelism
        return f"{self.job_vertex.name} ({self.subtask_index + 1}/{p})"
