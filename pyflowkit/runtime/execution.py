"""JobMaster-side view of the running job: ExecutionVertex and its Execution attempts.

The structure (names, ids, produced partitions, input edges) is the graph's ExecutionVertex
(``pyflowkit.graph.execution_graph``); this side adds the attempts and their states.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.graph import execution_graph
from pyflowkit.runtime.execution_state import (
    EXECUTION_TRANSITIONS,
    ExecutionState,
    check_transition,
)

if TYPE_CHECKING:
    from pyflowkit.runtime.rpc import RpcBus


class ExecutionVertex:
    """One parallel subtask of a JobVertex with its attempts (Flink's ``ExecutionVertex``)."""

    def __init__(self, graph_vertex: execution_graph.ExecutionVertex, job_id: str) -> None:
        self.graph_vertex = graph_vertex
        self.job_vertex = graph_vertex.job_vertex.job_vertex  # the JobVertex
        self.subtask_index = graph_vertex.subtask_index
        self.job_id = job_id
        self.executions: list[Execution] = []

    @property
    def id(self) -> str:  # ExecutionVertexID printed as <jobVertexId>_<subtaskIndex>
        return self.graph_vertex.id

    @property
    def parallelism(self) -> int:
        return self.graph_vertex.parallelism

    @property
    def name(self) -> str:
        return self.graph_vertex.task_name_with_subtask_index

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
        self.failed_operator: str | None = None  # the chained operator whose code failed

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
