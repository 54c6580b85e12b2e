"""Legal transitions of a job's ``JobStatus`` (Flink 1.11); the states live in ``common``."""

from __future__ import annotations

from pyflowkit.common.job_status import JobStatus
from pyflowkit.errors import IllegalStateException

J = JobStatus

# DefaultScheduler transitions in 1.11 (reference §5.4).
JOB_TRANSITIONS: frozenset[tuple[JobStatus, JobStatus]] = frozenset(
    {
        (J.CREATED, J.RUNNING),
        (J.RUNNING, J.RESTARTING),
        (J.RESTARTING, J.RUNNING),
        (J.RUNNING, J.FAILING),
        (J.RESTARTING, J.FAILING),
        (J.FAILING, J.FAILED),
        (J.RUNNING, J.CANCELLING),
        (J.CREATED, J.CANCELLING),
        (J.RESTARTING, J.CANCELLING),
        (J.FAILING, J.CANCELLING),
        (J.CANCELLING, J.CANCELED),
        (J.CANCELLING, J.FAILED),
        (J.RUNNING, J.FINISHED),
    }
    | {(s, J.SUSPENDED) for s in J if not s.is_terminal_state()}
)


def check_job_transition(job: str, current: JobStatus, target: JobStatus) -> None:
    """Raise Flink's ``IllegalStateException`` unless ``current → target`` is legal."""
    if current.is_terminal_state():
        raise IllegalStateException(
            f"Cannot leave terminal state {current.value} to transition to {target.value}."
        )
    if (current, target) not in JOB_TRANSITIONS:
        raise IllegalStateException(
            f"Job {job}: illegal transition from state {current.value} to {target.value} "
            "(not a Flink 1.11 JobStatus transition)."
        )
