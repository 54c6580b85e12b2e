"""Flink 1.20's checkpoint plan (FLIP-147): which tasks a checkpoint triggers, waits for, commits to.

Flink 1.11's ``CheckpointCoordinator`` triggers the job's sources and waits for every task; one
FINISHED task makes every later trigger fail. Since 1.14 (default since 1.15) the coordinator
asks a ``CheckpointPlanCalculator`` for a ``CheckpointPlan`` instead: while every task runs, the
plan is 1.11's (``calculateWithAllTasksRunning``); once some task FINISHED
(``calculateAfterTasksFinished``) it triggers the running tasks that have no running
predecessor, waits for the running tasks only and reports the finished ones finished
(``FinishedTaskStateProvider``: a job vertex none of whose subtasks runs is *fully finished*, its
operators' state ``FullyFinishedOperatorState``).

Only the 1.20 profile uses this module (``FlinkVersionProfile.finished_tasks``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.job_graph import DistributionPattern

RUNNING = "RUNNING"
FINISHED = "FINISHED"
_NOT_STARTED = frozenset({"CREATED", "SCHEDULED", "DEPLOYING"})


class CheckpointPlanException(Exception):
    """The ``CheckpointException`` (NOT_ALL_REQUIRED_TASKS_RUNNING) the calculator throws."""


class PartialFinishingNotSupportedByStateException(Exception):
    """Flink 1.20's ``FinishedTaskStateProvider.PartialFinishingNotSupportedByStateException``:
    ``DefaultCheckpointPlan.fulfillFinishedTaskStatus`` refuses to finalize a checkpoint in which a
    vertex that uses union list state is partly finished; ``CheckpointCoordinator
    .finalizeCheckpoint`` aborts it with ``CHECKPOINT_DECLINED_TASK_CLOSING``."""


def partly_finished_union_state_message(vertex_name: str, vertex_id: str, tasks: bool) -> str:
    """The text of ``checkNoPartlyFinishedVertexUsedUnionListState`` (``tasks``: some subtasks
    FINISHED) or ``checkNoPartlyOperatorsFinishedVertexUsedUnionListState`` (some subtasks only
    called their operators' finish method)."""
    part = (
        "part of its tasks are FINISHED."
        if tasks
        else "part of its tasks has called operators' finish method."
    )
    return f"The vertex {vertex_name} (id = {vertex_id}) has used UnionListState, but {part}"


@dataclass
class CheckpointPlan:
    """Flink's ``DefaultCheckpointPlan`` (``CheckpointPlan`` + ``FinishedTaskStateProvider``)."""

    tasks_to_trigger: list[Any]  # Executions
    tasks_to_wait_for: list[tuple[Any, Any]]  # (JobVertex, Execution)
    tasks_to_commit_to: list[Any]  # Executions
    finished_tasks: list[Any] = field(default_factory=list)  # Executions
    fully_finished_job_vertices: list[Any] = field(default_factory=list)  # JobVertices

    def fully_finished_operators(self) -> list[str]:
        """``fulfillFinishedTaskStatus``: the operators whose state is reported
        ``FullyFinishedOperatorState`` (every subtask of their vertex finished)."""
        return [n.operator_name for jv in self.fully_finished_job_vertices for n in jv.stream_nodes]


def pointwise_predecessors(index: int, parallelism: int, upstream_parallelism: int) -> range:
    """The upstream subtasks subtask ``index`` consumes over a POINTWISE edge
    (``EdgeManagerBuildUtil.connectPointwise``)."""
    if upstream_parallelism == parallelism:
        return range(index, index + 1)
    if upstream_parallelism > parallelism:
        start = index * upstream_parallelism // parallelism
        end = (index + 1) * upstream_parallelism // parallelism
        return range(start, end)
    source = index * upstream_parallelism // parallelism
    return range(source, source + 1)


class DefaultCheckpointPlanCalculator:
    """Flink's ``DefaultCheckpointPlanCalculator`` over the job's vertices in topological order."""

    def __init__(self, job_id: str, vertices: list[Any], gateway: Any, allow: bool) -> None:
        self.job_id = job_id
        self.vertices = vertices
        self.gateway = gateway  # current_executions(vertex id)
        self.allow_checkpoints_after_tasks_finished = allow

    def calculate_checkpoint_plan(self) -> CheckpointPlan:
        """``calculateCheckpointPlan``; raises ``CheckpointPlanException`` with Flink's text."""
        executions = {jv.id: self.gateway.current_executions(jv.id) for jv in self.vertices}
        has_finished = any(e.state.value == FINISHED for es in executions.values() for e in es)
        if has_finished and not self.allow_checkpoints_after_tasks_finished:
            raise CheckpointPlanException(
                f"some tasks of job {self.job_id} has been finished, abort the checkpoint"
            )
        plan = (
            self.calculate_after_tasks_finished(executions)
            if has_finished
            else self.calculate_with_all_tasks_running(executions)
        )
        self.check_tasks_started(plan.tasks_to_trigger)
        return plan

    def check_tasks_started(self, to_trigger: list[Any]) -> None:
        """``checkTasksStarted``: every task to trigger has left CREATED/SCHEDULED/DEPLOYING."""
        for e in to_trigger:
            if e.state.value in _NOT_STARTED:
                raise CheckpointPlanException(
                    f"Checkpoint triggering task {e.vertex.name} of job {self.job_id} has not "
                    "being executed at the moment. Aborting checkpoint."
                )

    def calculate_with_all_tasks_running(self, executions: dict[str, list[Any]]) -> CheckpointPlan:
        """Every source triggered; every task waited for and committed to (1.11's plan)."""
        trigger = [e for jv in self.vertices if not jv.inputs for e in executions[jv.id]]
        wait = [(jv, e) for jv in self.vertices for e in executions[jv.id]]
        return CheckpointPlan(trigger, wait, [e for _, e in wait])

    def calculate_after_tasks_finished(self, executions: dict[str, list[Any]]) -> CheckpointPlan:
        """The running tasks without running predecessors are triggered; finished ones reported."""
        running = {vid: [e.state.value != FINISHED for e in es] for vid, es in executions.items()}
        plan = CheckpointPlan([], [], [])
        for jv in self.vertices:
            status = running[jv.id]
            if not any(status):
                plan.fully_finished_job_vertices.append(jv)
                plan.finished_tasks.extend(executions[jv.id])
                continue
            must_trigger = self._some_tasks_must_be_triggered(jv, running)
            for i, e in enumerate(executions[jv.id]):
                if not status[i]:
                    plan.finished_tasks.append(e)
                    continue
                plan.tasks_to_wait_for.append((jv, e))
                plan.tasks_to_commit_to.append(e)
                if must_trigger and not self._has_running_precedent_tasks(jv, i, running):
                    plan.tasks_to_trigger.append(e)
        return plan

    @staticmethod
    def _some_tasks_must_be_triggered(jv: Any, running: dict[str, list[bool]]) -> bool:
        """``someTasksMustBeTriggered``: no input edge has an active upstream vertex (ALL_TO_ALL:
        some predecessor runs; POINTWISE: all predecessors run)."""
        for edge in jv.inputs:
            upstream = running[edge.source.id]
            if edge.distribution_pattern is DistributionPattern.ALL_TO_ALL and any(upstream):
                return False
            if edge.distribution_pattern is DistributionPattern.POINTWISE and all(upstream):
                return False
        return True

    @staticmethod
    def _has_running_precedent_tasks(jv: Any, index: int, running: dict[str, list[bool]]) -> bool:
        """``hasRunningPrecedentTasks``: a POINTWISE predecessor of subtask ``index`` runs."""
        for edge in jv.inputs:
            if edge.distribution_pattern is not DistributionPattern.POINTWISE:
                continue
            upstream = running[edge.source.id]
            for j in pointwise_predecessors(index, jv.parallelism, len(upstream)):
                if upstream[j]:
                    return True
        return False
