"""A checkpoint waiting for acknowledgements (Flink's ``PendingCheckpoint``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pyflowkit.errors import IllegalStateException
from pyflowkit.runtime.checkpoint.checkpoint_plan import (
    PartialFinishingNotSupportedByStateException,
    partly_finished_union_state_message,
)
from pyflowkit.runtime.checkpoint.completed_checkpoint import CompletedCheckpoint
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties
from pyflowkit.runtime.checkpoint.task_state import (
    CheckpointMetrics,
    FinishedOperatorSubtaskState,
    OperatorState,
    TaskStateSnapshot,
)
from pyflowkit.state.snapshot import UNION


class TaskAcknowledgeResult(Enum):
    """Flink's ``PendingCheckpoint.TaskAcknowledgeResult``."""

    SUCCESS = "SUCCESS"
    DUPLICATE = "DUPLICATE"
    UNKNOWN = "UNKNOWN"
    DISCARDED = "DISCARDED"


@dataclass(frozen=True)
class AckTask:
    """One subtask a checkpoint waits for: ``ExecutionVertex`` coordinates of an attempt."""

    attempt_id: str
    vertex_id: str
    vertex_name: str
    subtask_index: int
    parallelism: int
    max_parallelism: int
    operator_ids: tuple[str, ...]
    operator_names: tuple[str, ...]
    operator_uids: tuple[str | None, ...]


class PendingCheckpoint:
    """Flink's ``PendingCheckpoint``: ``notYetAcknowledgedTasks`` shrinks with every ack."""

    def __init__(
        self,
        job_id: str,
        checkpoint_id: int,
        timestamp: int,
        ack_tasks: dict[str, AckTask],
        props: CheckpointProperties,
        target_location: str | None = None,
        finished_tasks: dict[str, AckTask] | None = None,
        fully_finished_vertices: Iterable[str] = (),
        may_have_finished_tasks: bool = False,
    ) -> None:
        self.job_id = job_id
        self.checkpoint_id = checkpoint_id
        self.checkpoint_timestamp = timestamp
        self.props = props
        self.target_location = target_location
        self.ack_tasks = dict(ack_tasks)
        self.not_yet_acknowledged: dict[str, AckTask] = dict(ack_tasks)
        self.acknowledged: dict[str, AckTask] = {}
        self.operator_states: dict[str, OperatorState] = {}
        self.channel_states: dict[tuple[str, int], Any] = {}
        self.subtask_stats: dict[tuple[str, int], dict[str, Any]] = {}
        self.discarded = False
        self.failure_reason: CheckpointFailureReason | None = None
        self.canceller: Any = None
        # 1.20's CheckpointPlan (FLIP-147): the tasks FINISHED when it was triggered, and the
        # vertices none of whose subtasks runs (or that were deployed finished on restore)
        self.finished_tasks = dict(finished_tasks or {})
        self.fully_finished_vertices = set(fully_finished_vertices)
        # DefaultCheckpointPlan.mayHaveFinishedTasks: checkpoints after tasks finish are on
        self.may_have_finished_tasks = may_have_finished_tasks or bool(self.finished_tasks)
        # reportTaskHasFinishedOperators: vertex id → subtasks that acknowledged after endData
        self.operators_finished_count: dict[str, int] = {}
        self._vertex_of: dict[str, str] = {}
        states = self.operator_states
        for task in [*ack_tasks.values(), *self.finished_tasks.values()]:
            for op_id, name, uid in zip(
                task.operator_ids, task.operator_names, task.operator_uids, strict=True
            ):
                self._vertex_of[op_id] = task.vertex_id
                if op_id not in states:  # one OperatorState per operator, not per subtask
                    states[op_id] = OperatorState(
                        op_id, task.parallelism, task.max_parallelism, {}, name, uid
                    )

    @property
    def number_of_acknowledged_tasks(self) -> int:
        return len(self.acknowledged)

    @property
    def number_of_non_acknowledged_tasks(self) -> int:
        return len(self.not_yet_acknowledged)

    def are_tasks_fully_acknowledged(self) -> bool:
        return not self.not_yet_acknowledged and not self.discarded

    def can_be_subsumed(self) -> bool:
        """Savepoints are never subsumed."""
        return not self.props.is_savepoint

    def acknowledge_task(
        self,
        attempt_id: str,
        snapshot: TaskStateSnapshot | None,
        metrics: CheckpointMetrics,
        ack_timestamp: int,
    ) -> TaskAcknowledgeResult:
        """``acknowledgeTask``: store the subtask's state under each of its operators."""
        if self.discarded:
            return TaskAcknowledgeResult.DISCARDED
        task = self.not_yet_acknowledged.pop(attempt_id, None)
        if task is None:
            if attempt_id in self.acknowledged:
                return TaskAcknowledgeResult.DUPLICATE
            return TaskAcknowledgeResult.UNKNOWN
        self.acknowledged[attempt_id] = task
        size = 0
        if snapshot is not None and snapshot.is_task_deployed_as_finished:
            # ``checkpointPlan.reportTaskFinishedOnRestore``: its vertex is finished again
            self.fully_finished_vertices.add(task.vertex_id)
        elif snapshot is not None:
            if snapshot.is_task_finished:  # checkpointPlan.reportTaskHasFinishedOperators
                count = self.operators_finished_count.get(task.vertex_id, 0)
                self.operators_finished_count[task.vertex_id] = count + 1
            size = snapshot.state_size
            for op_id, op_snapshot in snapshot.operator_states.items():
                state = self.operator_states.get(op_id)
                if state is not None:
                    state.subtask_states[task.subtask_index] = op_snapshot
            if not snapshot.channel_state.is_empty:
                self.channel_states[(task.vertex_id, task.subtask_index)] = snapshot.channel_state
        self.subtask_stats[(task.vertex_id, task.subtask_index)] = {
            "ack_timestamp": ack_timestamp,
            "end_to_end_duration": ack_timestamp - self.checkpoint_timestamp,
            "state_size": size,
            "sync": metrics.sync_duration,
            "async": metrics.async_duration,
            "alignment_buffered": metrics.bytes_buffered_in_alignment,
            "alignment_duration": metrics.alignment_duration,
            "start_delay": metrics.start_delay,
        }
        return TaskAcknowledgeResult.SUCCESS

    def finalize_checkpoint(self, completion_timestamp: int) -> CompletedCheckpoint:
        """``finalizeCheckpoint``: all acks are in; the state becomes a CompletedCheckpoint."""
        self.fulfill_finished_task_status()
        return CompletedCheckpoint(
            job_id=self.job_id,
            checkpoint_id=self.checkpoint_id,
            timestamp=self.checkpoint_timestamp,
            completion_timestamp=completion_timestamp,
            operator_states=self.operator_states,
            channel_states=self.channel_states,
            props=self.props,
            external_pointer=self.target_location,
        )

    def fulfill_finished_task_status(self) -> None:
        """``DefaultCheckpointPlan.fulfillFinishedTaskStatus`` (1.20, FLIP-147): the operators of
        a fully finished (or finished-on-restore) vertex become ``FullyFinishedOperatorState``s,
        so that a restore deploys that vertex finished instead of running its sources again.
        First the two union-list-state checks: a vertex using union list state must not be
        partly finished (``PartialFinishingNotSupportedByStateException``)."""
        if self.may_have_finished_tasks:
            self.check_no_partly_finished_vertex_used_union_list_state()
        for op_id, state in self.operator_states.items():
            if self._vertex_of.get(op_id) not in self.fully_finished_vertices:
                continue
            if any(not s.is_empty for s in state.subtask_states.values()):
                raise IllegalStateException(
                    "There should be no states or only coordinator state reported for fully "
                    "finished operators"
                )
            state.subtask_states = {}
            state.fully_finished = True
        # fulfillSubtaskStateForPartiallyFinishedOperators: a finished subtask of a vertex that
        # still runs holds FinishedOperatorSubtaskState (not "no state")
        for task in self.finished_tasks.values():
            if task.vertex_id in self.fully_finished_vertices:
                continue
            for op_id in task.operator_ids:
                state = self.operator_states[op_id]
                if not state.fully_finished:
                    state.subtask_states[task.subtask_index] = FinishedOperatorSubtaskState()

    def check_no_partly_finished_vertex_used_union_list_state(self) -> None:
        """``checkNoPartlyFinishedVertexUsedUnionListState`` and
        ``checkNoPartlyOperatorsFinishedVertexUsedUnionListState``: a union list state restored
        from a partly finished vertex would miss the finished subtasks' entries, so Flink refuses
        the checkpoint; the second check makes the fast subtasks of such a vertex wait for the
        slow ones, so that all of them take the same final checkpoint."""
        partly: dict[str, AckTask] = {}
        for task in self.finished_tasks.values():
            if task.vertex_id not in self.fully_finished_vertices:
                partly.setdefault(task.vertex_id, task)
        for vertex_id, task in partly.items():
            if self._has_used_union_list_state(vertex_id):
                raise PartialFinishingNotSupportedByStateException(
                    partly_finished_union_state_message(task.vertex_name, vertex_id, True)
                )
        tasks = {t.vertex_id: t for t in self.ack_tasks.values()}
        for vertex_id, count in self.operators_finished_count.items():
            task = tasks[vertex_id]
            if vertex_id in partly or count == task.parallelism:
                continue
            if self._has_used_union_list_state(vertex_id):
                raise PartialFinishingNotSupportedByStateException(
                    partly_finished_union_state_message(task.vertex_name, vertex_id, False)
                )

    def _has_used_union_list_state(self, vertex_id: str) -> bool:
        """``hasUsedUnionListState``: a subtask of one of the vertex's operators reported a
        list state whose distribution mode is UNION."""
        for op_id, state in self.operator_states.items():
            if self._vertex_of.get(op_id) != vertex_id:
                continue
            for snapshot in state.subtask_states.values():
                registered = getattr(snapshot, "operator_state", None) or {}
                if any(st.get("mode") == UNION for st in registered.values()):
                    return True
        return False

    def abort(self, reason: CheckpointFailureReason) -> None:
        """``abort``: discard the collected state and stop the canceller."""
        self.discarded = True
        self.failure_reason = reason
        self.operator_states = {}
        self.channel_states = {}
        if self.canceller is not None:
            self.canceller.cancelled = True
