"""Checkpoint events in the data stream (Flink's ``CheckpointBarrier``, ``CancelCheckpointMarker``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from pyflowkit.runtime.checkpoint.properties import CheckpointOptions


@dataclass(frozen=True)
class CheckpointBarrier:
    """Flink's ``CheckpointBarrier``: separates the records of checkpoint ``id`` from later ones."""

    id: int
    timestamp: int
    options: CheckpointOptions

    def __repr__(self) -> str:
        return self._text

    @cached_property
    def _text(self) -> str:
        """The repr, made once: one barrier object travels every channel of its checkpoint."""
        return (
            f"CheckpointBarrier {self.id} @ {self.timestamp} ({self.options.checkpoint_type.value})"
        )


@dataclass(frozen=True)
class CancelCheckpointMarker:
    """Flink's ``CancelCheckpointMarker``: tells downstream tasks checkpoint ``id`` was aborted."""

    checkpoint_id: int

    def __repr__(self) -> str:
        return f"CancelCheckpointMarker {self.checkpoint_id}"
