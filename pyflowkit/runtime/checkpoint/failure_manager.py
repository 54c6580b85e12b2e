"""Counting failed checkpoints against the tolerable number (Flink's ``CheckpointFailureManager``)."""

from __future__ import annotations

from collections.abc import Callable

from pyflowkit.errors import CheckpointException
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R

EXCEEDED_MESSAGE = "Exceeded checkpoint tolerable failure threshold."
_COUNTED = {R.CHECKPOINT_DECLINED, R.CHECKPOINT_EXPIRED}


class CheckpointFailureManager:
    """Flink 1.11's ``CheckpointFailureManager``: only DECLINED and EXPIRED count; success resets.

    When the consecutive count exceeds ``tolerable_failures`` the job fails through
    ``fail_job(CheckpointException("Exceeded checkpoint tolerable failure threshold."))``.
    """

    def __init__(self, tolerable_failures: int, fail_job: Callable[[BaseException], None]) -> None:
        self.tolerable_failures = tolerable_failures
        self.fail_job = fail_job
        self.continuous_failure_counter = 0
        self.counted_ids: set[int] = set()

    def handle_job_level_checkpoint_exception(self, reason: R, checkpoint_id: int | None) -> None:
        """``handleJobLevelCheckpointException``."""
        if reason not in _COUNTED:
            return
        if checkpoint_id is not None:
            if checkpoint_id in self.counted_ids:
                return
            self.counted_ids.add(checkpoint_id)
        self.continuous_failure_counter += 1
        if self.continuous_failure_counter > self.tolerable_failures:
            self.fail_job(CheckpointException(EXCEEDED_MESSAGE, "CHECKPOINT_DECLINED"))

    def handle_checkpoint_success(self, checkpoint_id: int) -> None:
        """``handleCheckpointSuccess``: reset the consecutive counter."""
        self.continuous_failure_counter = 0
        self.counted_ids.clear()
