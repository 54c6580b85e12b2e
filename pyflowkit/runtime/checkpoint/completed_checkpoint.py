"""Completed checkpoints and where they are kept (Flink's ``CompletedCheckpoint`` and
``StandaloneCompletedCheckpointStore``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties
from pyflowkit.runtime.checkpoint.task_state import OperatorState

NOT_EXTERNALLY_ADDRESSABLE = "<checkpoint-not-externally-addressable>"


@dataclass
class CompletedCheckpoint:
    """Flink's ``CompletedCheckpoint``: the state of every operator at checkpoint ``id``."""

    job_id: str
    checkpoint_id: int
    timestamp: int
    completion_timestamp: int
    operator_states: dict[str, OperatorState]
    props: CheckpointProperties
    channel_states: dict[tuple[str, int], Any] = field(default_factory=dict)
    external_pointer: str | None = None
    discarded: bool = False
    state_released: bool = False  # a discarded checkpoint past the inspection history

    @property
    def is_savepoint(self) -> bool:
        return self.props.is_savepoint

    @property
    def duration(self) -> int:
        return self.completion_timestamp - self.timestamp

    def state_size(self) -> int:
        return sum(s.state_size() for s in self.operator_states.values())

    def discard_on_subsume(self) -> bool:
        """``discardOnSubsume``: drop the state unless the properties keep it (savepoints)."""
        if self.props.discard_subsumed:
            self.discarded = True
            return True
        return False

    def release_state(self) -> None:
        """Drop the state of a discarded checkpoint (Flink deletes it on subsume; pyflowkit keeps
        it a while for inspection, then lets it go so an endless job's memory stays flat)."""
        if not self.discarded:
            raise IllegalArgumentException(
                f"Checkpoint {self.checkpoint_id} is not discarded: its state is still needed."
            )
        self.operator_states = {}
        self.channel_states = {}
        self.state_released = True

    def __str__(self) -> str:
        return f"Checkpoint {self.checkpoint_id} @ {self.timestamp} for {self.job_id}"


class StandaloneCompletedCheckpointStore:
    """Flink's ``StandaloneCompletedCheckpointStore`` (non-HA): keep the newest ``N``."""

    def __init__(
        self, max_number_of_checkpoints_to_retain: int = 1, prefer_checkpoint: bool = False
    ) -> None:
        if max_number_of_checkpoints_to_retain < 1:
            raise IllegalArgumentException("Must retain at least one checkpoint.")
        self.max_retained = max_number_of_checkpoints_to_retain
        self.prefer_checkpoint = prefer_checkpoint
        self.checkpoints: list[CompletedCheckpoint] = []
        self.on_discard: Callable[[CompletedCheckpoint], None] | None = None

    def add_checkpoint(self, checkpoint: CompletedCheckpoint) -> None:
        """``addCheckpoint``: append, then subsume the oldest above the retained number."""
        self.checkpoints.append(checkpoint)
        while len(self.checkpoints) > self.max_retained:
            old = self.checkpoints.pop(0)
            old.discard_on_subsume()
            if self.on_discard is not None:
                self.on_discard(old)

    def get_latest_checkpoint(self) -> CompletedCheckpoint | None:
        """``getLatestCheckpoint(isPreferCheckpointForRecovery)``."""
        if not self.checkpoints:
            return None
        if self.prefer_checkpoint:
            for cp in reversed(self.checkpoints):
                if not cp.is_savepoint:
                    return cp
        return self.checkpoints[-1]

    def get_all_checkpoints(self) -> list[CompletedCheckpoint]:
        return list(self.checkpoints)

    def get_number_of_retained_checkpoints(self) -> int:
        return len(self.checkpoints)

    def shutdown(self) -> None:
        self.checkpoints.clear()
