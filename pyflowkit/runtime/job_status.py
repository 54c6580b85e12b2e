"""Job states and their legal transitions (Flink 1.11's ``JobStatus``)."""

from __future__ import annotations

from enum import Enum

from pyflowkit.errors import IllegalStateException


class JobStatus(Enum):
    """Flink 1.11's ``org.apache.flink.api.common.JobStatus`` (declaration order)."""

    CREATED = "CREATED"
    RUNNING = "RUNNING"
    FAILING = "FAILING"
    FAILED = "FAILED"
    CANCELLING = "CANCELLING"
    CANCELED = "CANCELED"
    FINISHED = "FINISHED"
    RESTARTING = "RESTARTING"
    SUSPENDED = "SUSPENDED"
    RECONCILING = "RECONCILING"

    def is_globally_terminal_state(self) -> bool:
        """``isGloballyTerminalState``: FAILED, CANCELED or FINISHED."""
        return self in (JobStatus.FAILED, JobStatus.CANCELED, JobStatus.FINISHED)

    def is_terminal_state(self) -> bool:
        """``isTerminalState``: globally terminal or SUSPENDED (locally terminal)."""
        return self.is_globally_terminal_state() or self is JobStatus.SUSPENDED


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
