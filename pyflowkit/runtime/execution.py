"""JobMaster-side view of the running job: ExecutionVertex and its Execution attempts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.graph.job_graph import JobVertex
from pyflowkit.runtime.execution_state import (
    EXECUTION_TRANSITIONS,
    ExecutionState,
    check_transition,
)

if TYPE_CHECKING:
    from pyflowkit.runtime.rpc import RpcBus


class ExecutionVertex:
    """One parallel subtask of a JobVertex (Flink's ``ExecutionVertex``), named ``name (i/n)``."""

    def __init__(self, job_vertex: JobVertex, subtask_index: int, job_id: str) -> None:
        self.job_vertex = job_vertex
        self.subtask_index = subtask_index
        self.job_id = job_id
        self.executions: list[Execution] = []

    @property
    def id(self) -> str:  # ExecutionVertexID printed as <jobVertexId>_<subtaskIndex>
        return f"{self.job_vertex.id}_{self.subtask_index}"

    @property
    def parallelism(self) -> int:
        return self.job_vertex.parallelism

    @property
    def name(self) -> str:
        return f"{self.job_vertex.name} ({self.subtask_index + 1}/{self.parallelism})"

    @property
    def current_execution(self) -> Execution:
        return self.executions[-1]

    def reset_for_new_execution(self, bus: RpcBus) -> Execution:
        """``resetForNewExecution``: a fresh attempt with ``attemptNumber = old + 1``."""
        attempt = len(self.executions)
        execution = Execution(self, attempt, bus.new_id())
        self.executions.append(execution)
        return execution


class Execution:
    """One attempt of an ExecutionVertex (Flink's ``Execution``), with its JM-side state."""

    def __init__(self, vertex: ExecutionVertex, attempt_number: int, attempt_id: str) -> None:
        self.vertex = vertex
        self.attempt_number = attempt_number
        self.attempt_id = attempt_id
        self.state = ExecutionState.CREATED
        self.slot: Any = None  # the physical slot (AllocatedSlot) it is assigned to
        self.failure_cause: BaseException | None = None
        self.failure_traceback: str | None = None

    @property
    def name(self) -> str:
        return self.vertex.name

    def transition_state(self, target: ExecutionState, bus: RpcBus, suffix: str = "") -> None:
        """``Execution.transitionState`` with Flink's JobMaster log line."""
        current = self.state
        check_transition(
            f"{self.name} (attempt #{self.attempt_number})", current, target, EXECUTION_TRANSITIONS
        )
        self.state = target
        bus.emit(
            "JobMaster",
            "Execution.transitionState",
            f"{self.name} ({self.attempt_id}) switched from {current.value} to {target.value}"
            f"{suffix}.",
            job=self.vertex.job_id,
            vertex=self.vertex.job_vertex.name,
            subtask=self.vertex.subtask_index,
            attempt=self.attempt_number,
            old_state=current.value,
            new_state=target.value,
        )
