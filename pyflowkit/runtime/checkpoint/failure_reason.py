"""Why a checkpoint failed (Flink 1.11's ``CheckpointFailureReason``, names and messages exact)."""

from __future__ import annotations

from enum import Enum

from pyflowkit.errors import CheckpointException


class CheckpointFailureReason(Enum):
    """Flink's ``CheckpointFailureReason``: ``(pre_flight, message)`` per member."""

    PERIODIC_SCHEDULER_SHUTDOWN = (True, "Periodic checkpoint scheduler is shut down.")
    TOO_MANY_CONCURRENT_CHECKPOINTS = (
        True,
        "The maximum number of concurrent checkpoints is exceeded",
    )
    TOO_MANY_CHECKPOINT_REQUESTS = (
        True,
        "The maximum number of queued checkpoint requests exceeded",
    )
    MINIMUM_TIME_BETWEEN_CHECKPOINTS = (
        True,
        "The minimum time between checkpoints is still pending. Checkpoint will be triggered "
        "after the minimum time.",
    )
    NOT_ALL_REQUIRED_TASKS_RUNNING = (True, "Not all required tasks are currently running.")
    EXCEPTION = (True, "An Exception occurred while triggering the checkpoint.")
    CHECKPOINT_EXPIRED = (False, "Checkpoint expired before completing.")
    CHECKPOINT_SUBSUMED = (False, "Checkpoint has been subsumed.")
    CHECKPOINT_DECLINED = (False, "Checkpoint was declined.")
    CHECKPOINT_DECLINED_TASK_NOT_READY = (False, "Checkpoint was declined (tasks not ready)")
    CHECKPOINT_DECLINED_TASK_CLOSING = (
        False,
        "Checkpoint was declined (task's operators partially closed)",
    )
    CHECKPOINT_DECLINED_TASK_NOT_CHECKPOINTING = (False, "Task does not support checkpointing")
    CHECKPOINT_DECLINED_SUBSUMED = (
        False,
        "Checkpoint was canceled because a barrier from newer checkpoint was received.",
    )
    CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER = (
        False,
        "Task received cancellation from one of its inputs",
    )
    CHECKPOINT_DECLINED_ALIGNMENT_LIMIT_EXCEEDED = (
        False,
        "The checkpoint alignment phase needed to buffer more than the configured maximum bytes",
    )
    CHECKPOINT_DECLINED_INPUT_END_OF_STREAM = (
        False,
        "Checkpoint was declined because one input stream is finished",
    )
    CHECKPOINT_COORDINATOR_SHUTDOWN = (False, "CheckpointCoordinator shutdown.")
    CHECKPOINT_COORDINATOR_SUSPEND = (False, "Checkpoint Coordinator is suspending.")
    JOB_FAILURE = (False, "The job has failed.")
    JOB_FAILOVER_REGION = (False, "FailoverRegion is restarting.")
    TASK_FAILURE = (False, "Task has failed.")
    TASK_CHECKPOINT_FAILURE = (False, "Task local checkpoint failure.")
    UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE = (
        False,
        "Unknown task for the checkpoint to notify.",
    )
    FINALIZE_CHECKPOINT_FAILURE = (False, "Failure to finalize checkpoint.")
    TRIGGER_CHECKPOINT_FAILURE = (False, "Trigger checkpoint failure.")

    @property
    def is_pre_flight(self) -> bool:
        """``isPreFlight``: the trigger was refused before a PendingCheckpoint existed."""
        return self.value[0]

    @property
    def message(self) -> str:
        return self.value[1]


def checkpoint_exception(reason: CheckpointFailureReason) -> CheckpointException:
    """``new CheckpointException(reason)``: the reason's message, its name as ``reason``."""
    return CheckpointException(reason.message, reason.name)


def reason_of(exc: BaseException | None) -> CheckpointFailureReason | None:
    """The failure reason a (possibly wrapped) ``CheckpointException`` carries, if any."""
    while exc is not None:
        if isinstance(exc, CheckpointException):
            return CheckpointFailureReason[exc.reason]
        exc = exc.__cause__
    return None
