"""``JobStatus``: the states of a job (PyFlink's ``pyflink.common.job_status``)."""

from __future__ import annotations

from enum import Enum


class JobStatus(Enum):
    """A job's state (PyFlink's ``JobStatus``; Flink's ``api.common.JobStatus``, declaration order).

    The simulated cluster's ``JobMaster`` moves through these (``runtime/job_status.py`` holds
    the legal transitions)."""

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
