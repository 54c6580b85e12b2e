"""What one subtask reports for one checkpoint (Flink's ``TaskStateSnapshot`` +
``CheckpointMetrics`` + ``OperatorState``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.state.snapshot import OperatorSnapshot


@dataclass
class CheckpointMetrics:
    """Flink's ``CheckpointMetrics``: durations (ms) and bytes of one subtask's snapshot."""

    sync_duration: int = 0
    async_duration: int = 0
    alignment_duration: int = 0
    bytes_buffered_in_alignment: int = 0  # always 0 in 1.11: channels block, nothing spills
    start_delay: int = 0


@dataclass
class ChannelState:
    """In-flight data of an unaligned checkpoint (Flink's ``InputChannelStateHandle`` /
    ``ResultSubpartitionStateHandle``): records as ``(value, timestamp)`` pairs."""

    input: dict[int, list[tuple[Any, int | None]]] = field(default_factory=dict)
    output: dict[int, dict[int, list[Any]]] = field(default_factory=dict)

    @property
    def is_empty(self) -> bool:
        if any(self.input.values()):
            return False
        return not any(any(per_sub.values()) for per_sub in self.output.values())

    def num_records(self) -> int:
        n = sum(len(v) for v in self.input.values())
        return n + sum(len(els) for per in self.output.values() for els in per.values())


@dataclass
class TaskStateSnapshot:
    """Flink's ``TaskStateSnapshot``: operator id → that operator's state, plus channel state.

    ``is_task_deployed_as_finished``: the snapshot of a task deployed finished on restore (1.20's
    ``TaskStateSnapshot.FINISHED_ON_RESTORE``, FLIP-147): no state, the task reports itself done.
    """

    operator_states: dict[str, OperatorSnapshot] = field(default_factory=dict)
    channel_state: ChannelState = field(default_factory=ChannelState)
    state_size: int = 0
    is_task_deployed_as_finished: bool = False
    # ``isTaskFinished`` (1.20): the task's operators had finished (endData) when it was taken
    is_task_finished: bool = False


class FinishedOperatorSubtaskState(OperatorSnapshot):
    """Flink 1.20's ``FinishedOperatorSubtaskState`` (FLIP-147): the state of a subtask that had
    FINISHED when the checkpoint was taken while other subtasks of its vertex still ran
    (``DefaultCheckpointPlan.fulfillSubtaskStateForPartiallyFinishedOperators``). It holds no
    state: restored, the subtask's operators start empty (``assignNonFinishedStateToTask``); its
    vertex counts as PARTIALLY_FINISHED for ``VertexFinishedStateChecker``."""

    is_finished = True


def is_finished_subtask_state(snapshot: Any) -> bool:
    """``OperatorSubtaskState.isFinished``."""
    return isinstance(snapshot, FinishedOperatorSubtaskState)


class FinishedOnRestore(dict):
    """The restore of a subtask whose vertex was fully finished in the restored checkpoint
    (Flink 1.20's ``TaskStateSnapshot.FINISHED_ON_RESTORE``, FLIP-147): no operator state; the
    task is deployed as finished (``TaskStateManager.isTaskDeployedAsFinished``) and runs a
    ``FinishedOperatorChain``: its source does not run again."""

    def __bool__(self) -> bool:
        return True


def is_task_deployed_as_finished(restore: Any) -> bool:
    """``TaskStateManagerImpl.isTaskDeployedAsFinished`` of a subtask's restore."""
    return isinstance(restore, FinishedOnRestore)


@dataclass
class OperatorState:
    """Flink's ``OperatorState``: one operator's state over all its subtasks."""

    operator_id: str
    parallelism: int
    max_parallelism: int
    subtask_states: dict[int, OperatorSnapshot] = field(default_factory=dict)
    operator_name: str = ""
    uid: str | None = None
    # 1.20's ``FullyFinishedOperatorState`` (FLIP-147): every subtask of the operator had
    # finished when the checkpoint was taken; it holds no state and restores FINISHED_ON_RESTORE
    fully_finished: bool = False

    def state_size(self) -> int:
        from pyflowkit.state.state_codec import state_size

        return sum(state_size(s.to_dict()) for s in self.subtask_states.values())
