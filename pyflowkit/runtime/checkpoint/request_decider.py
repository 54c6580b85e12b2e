"""Whether a checkpoint request may start now (Flink's ``CheckpointRequestDecider``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R

MAX_QUEUED_REQUESTS = 1000


class Decision(Enum):
    """What happens to one request."""

    EXECUTE = "EXECUTE"
    QUEUE = "QUEUE"
    DROP = "DROP"


@dataclass
class CheckpointTriggerRequest:
    """Flink's ``CheckpointTriggerRequest``: periodic or forced (savepoints)."""

    is_periodic: bool
    forced: bool
    kind: str = "CHECKPOINT"  # CheckpointType name
    target: str | None = None


class CheckpointRequestDecider:
    """Flink 1.11's ``CheckpointRequestDecider``: max concurrent and min pause for periodic ones.

    Forced requests (savepoints) always execute. A periodic request waits while
    ``pending >= max_concurrent``, is dropped with ``MINIMUM_TIME_BETWEEN_CHECKPOINTS`` while the
    pause since the last completion runs, and the queue holds at most 1000 requests.
    """

    def __init__(self, max_concurrent: int, min_pause: int) -> None:
        self.max_concurrent = max_concurrent
        self.min_pause = min_pause
        self.queued: list[CheckpointTriggerRequest] = []

    def decide(
        self, request: CheckpointTriggerRequest, pending: int, now: int, last_completion: int
    ) -> tuple[Decision, R | None]:
        if request.forced:
            return Decision.EXECUTE, None
        if pending >= self.max_concurrent:
            if len(self.queued) >= MAX_QUEUED_REQUESTS:
                return Decision.DROP, R.TOO_MANY_CHECKPOINT_REQUESTS
            return Decision.QUEUE, None
        if self.min_pause > 0 and now < last_completion + self.min_pause:
            return Decision.DROP, R.MINIMUM_TIME_BETWEEN_CHECKPOINTS
        return Decision.EXECUTE, None

    def next_queued(self) -> CheckpointTriggerRequest | None:
        return self.queued.pop(0) if self.queued else None
