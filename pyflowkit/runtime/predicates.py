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
