"""Checkpoint kinds and their retention rules (Flink's ``CheckpointType``,
``CheckpointProperties`` and ``CheckpointOptions``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class CheckpointType(Enum):
    """Flink's ``CheckpointType``."""

    CHECKPOINT = "CHECKPOINT"
    SAVEPOINT = "SAVEPOINT"
    SYNC_SAVEPOINT = "SYNC_SAVEPOINT"

    @property
    def is_savepoint(self) -> bool:
        return self is not CheckpointType.CHECKPOINT

    @property
    def is_synchronous(self) -> bool:
        return self is CheckpointType.SYNC_SAVEPOINT


@dataclass(frozen=True)
class CheckpointProperties:
    """Flink's ``CheckpointProperties``: forced (ignores max-concurrent/min-pause), type, discards."""

    forced: bool
    checkpoint_type: CheckpointType
    discard_subsumed: bool
    discard_finished: bool
    discard_cancelled: bool
    discard_failed: bool
    discard_suspended: bool

    @property
    def is_savepoint(self) -> bool:
        return self.checkpoint_type.is_savepoint

    @property
    def is_synchronous(self) -> bool:
        return self.checkpoint_type.is_synchronous

    @staticmethod
    def for_savepoint(forced: bool = True) -> CheckpointProperties:
        """``forSavepoint``: never discarded automatically."""
        return CheckpointProperties(
            forced, CheckpointType.SAVEPOINT, False, False, False, False, False
        )

    @staticmethod
    def for_sync_savepoint() -> CheckpointProperties:
        """``forSyncSavepoint`` (stop-with-savepoint)."""
        return CheckpointProperties(
            True, CheckpointType.SYNC_SAVEPOINT, False, False, False, False, False
        )

    @staticmethod
    def for_checkpoint(retention_policy: str) -> CheckpointProperties:
        """``forCheckpoint(CheckpointRetentionPolicy)``."""
        from pyflowkit.graph.job_graph import checkpoints_discarded_on

        def discard(status: str) -> bool:
            return checkpoints_discarded_on(retention_policy, status)

        return CheckpointProperties(
            False,
            CheckpointType.CHECKPOINT,
            True,
            discard("FINISHED"),
            discard("CANCELED"),
            discard("FAILED"),
            discard("SUSPENDED"),
        )


@dataclass(frozen=True)
class CheckpointOptions:
    """Flink's ``CheckpointOptions``: what travels with a barrier (type, exactly-once, unaligned)."""

    checkpoint_type: CheckpointType
    target_location: str = "<default>"
    is_exactly_once: bool = True
    is_unaligned: bool = False

    @staticmethod
    def create(
        checkpoint_type: CheckpointType, exactly_once: bool, unaligned: bool, location: str
    ) -> CheckpointOptions:
        """Unaligned only for type CHECKPOINT (savepoints are always aligned)."""
        return CheckpointOptions(
            checkpoint_type,
            location,
            exactly_once,
            unaligned and checkpoint_type is CheckpointType.CHECKPOINT,
        )
