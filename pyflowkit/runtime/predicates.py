"""Ready-made stopping conditions for ``JobRun.run_until``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_status import JobStatus

Predicate = Callable[[Any], bool]


def job_status_is(status: JobStatus | str) -> Predicate:
    """True once the job is in ``status``."""
    target = JobStatus(status) if isinstance(status, str) else status
    return lambda run: run.job_status is target


def job_finished() -> Predicate:
    """True once the job reached a globally terminal state (FINISHED, FAILED, CANCELED)."""
    return lambda run: run.job_status.is_globally_terminal_state()


def task_state_is(vertex: str, subtask: int, state: ExecutionState | str) -> Predicate:
    """True once the JobMaster sees ``vertex (subtask+1/n)`` in ``state``."""
    target = ExecutionState(state) if isinstance(state, str) else state
    return lambda run: run.execution_state(vertex, subtask) is target


def all_tasks_in(state: ExecutionState | str) -> Predicate:
    """True once every current execution is in ``state`` (e.g. RUNNING)."""
    target = ExecutionState(state) if isinstance(state, str) else state
    return lambda run: bool(run.executions()) and all(e.state is target for e in run.executions())


def next_state_change() -> Predicate:
    """True right after the next step that changed a task's or the job's state."""
    marker: dict[str, int] = {}

    def pred(run: Any) -> bool:
        if "start" not in marker:
            marker["start"] = len(run.trace)
            return False
        return any(e.new_state is not None for e in run.trace[marker["start"] :])

    return pred


def checkpoint_completed(n: int | None = None) -> Predicate:
    """True once checkpoint ``n`` completed, or (``n=None``) the next checkpoint that completes
    after the predicate was first asked (savepoints count too)."""
    marker: dict[str, int] = {}

    def completed(run: Any) -> set[int]:
        coord = run.checkpoint_coordinator
        return set() if coord is None else set(coord.completed_by_id)

    def pred(run: Any) -> bool:
        done = completed(run)
        if n is not None:
            return n in done
        if "seen" not in marker:
            marker["seen"] = max(done, default=0)
            return False
        return any(i > marker["seen"] for i in done)

    return pred


# -- protocol phases of a checkpoint (for failure injection at a chosen phase) --------------------
def alignment_in_progress() -> Predicate:
    """True while a RUNNING task's barrier handler blocks a channel: barrier n arrived on it but not
    yet on every channel (``CheckpointBarrierAligner``; never true for at-least-once/unaligned)."""

    def pred(run: Any) -> bool:
        for te in run.task_executors:
            if not te.alive:
                continue
            for task in te.tasks.values():
                handler = task.checkpointing.handler
                if handler is not None and task.state is ExecutionState.RUNNING:
                    if handler.blocked_channels():
                        return True
        return False

    return pred


def _attempt_is_running(run: Any, vertex: str, subtask: int, attempt: int | None) -> bool:
    """Whether ``vertex (subtask)``'s current Execution is ``attempt`` (any when None) and RUNNING."""
    jm = run.job_master
    if jm is None:
        return False
    jv = run.job_graph.get_vertex(vertex)
    execution = jm.scheduler.by_key[(jv.id, subtask)].current_execution
    same = attempt is None or execution.attempt_number == attempt
    return same and execution.state is ExecutionState.RUNNING


def _open_spans(start_method: str, end_method: str, keep: Callable[[Any, int], bool]) -> Predicate:
    """True while some (vertex, subtask, checkpoint) has a ``start_method`` trace event without
    its ``end_method`` event, its attempt still RUNNING and ``keep(run, checkpoint)``."""
    open_: set[tuple[str, int, int | None, int]] = set()
    seen = [0]

    def pred(run: Any) -> bool:
        for e in run.trace[seen[0] :]:
            if e.checkpoint is None or e.vertex is None or e.subtask is None:
                continue
            if e.method == start_method:
                open_.add((e.vertex, e.subtask, e.attempt, e.checkpoint))
            elif e.method == end_method:
                open_.difference_update(
                    k
                    for k in list(open_)
                    if (k[0], k[1], k[3]) == (e.vertex, e.subtask, e.checkpoint)
                )
        seen[0] = len(run.trace)
        for span in list(open_):
            vertex, subtask, attempt, checkpoint = span
            if not keep(run, checkpoint) or not _attempt_is_running(run, vertex, subtask, attempt):
                open_.discard(span)
        return bool(open_)

    return pred


def snapshot_not_acknowledged() -> Predicate:
    """True while a subtask has taken the synchronous part of a still-pending checkpoint
    (``SubtaskCheckpointCoordinatorImpl.checkpointState``) whose acknowledgement has not yet
    reached ``PendingCheckpoint.acknowledgeTask`` on the JobMaster."""

    def still_pending(run: Any, checkpoint: int) -> bool:
        coord = run.checkpoint_coordinator
        return coord is not None and checkpoint in coord.pending

    return _open_spans(
        "SubtaskCheckpointCoordinatorImpl.checkpointState",
        "PendingCheckpoint.acknowledgeTask",
        still_pending,
    )


def notification_in_flight() -> Predicate:
    """True while checkpoint n completed and ``Execution.notifyCheckpointComplete`` was sent to a
    running subtask that has not yet run ``notifyCheckpointComplete`` through its chain."""
    return _open_spans(
        "Execution.notifyCheckpointComplete",
        "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete",
        lambda run, checkpoint: True,
    )
