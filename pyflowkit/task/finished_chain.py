"""The chain of a task deployed finished on restore (Flink 1.20's ``FinishedOperatorChain``).

FLIP-147 (Flink 1.14, default since 1.15): a checkpoint taken after a vertex's every subtask
FINISHED records its operators as ``FullyFinishedOperatorState``; a restore deploys that vertex
with ``TaskStateSnapshot.FINISHED_ON_RESTORE``. Its operators are neither initialized nor opened
nor closed; a legacy source skips its ``run`` ("skip execution since the task is finished on
restore") and the task ends at once: MAX_WATERMARK (``advanceToEndOfEventTime``), then the end of
its partitions. A record reaching it is an error (``FinishedOnRestoreInput``); its checkpoints
report ``FINISHED_ON_RESTORE`` again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyflowkit.errors import IllegalStateException
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.state.time import MAX_WATERMARK


class FinishedOperatorChain:
    """Flink's ``FinishedOperatorChain`` around the subtask's (never opened) ``OperatorChain``."""

    is_task_deployed_as_finished = True
    takes_carried_keys = True  # process_batch takes the keys a transport carried

    def __init__(self, chain: Any) -> None:
        self.inner = chain
        self.vertex = chain.vertex
        self.head = chain.head
        self.operators = chain.operators
        self.operator_ids = chain.operator_ids
        self.record_writer_outputs = chain.record_writer_outputs
        self._max_watermarks: set[int] = set()
        self._emitted_max = False

    @property
    def is_source(self) -> bool:
        return bool(self.inner.is_source)

    @property
    def operator_names(self) -> list[str]:
        return list(self.inner.operator_names)

    # ---- lifecycle: nothing to initialize, open, close or dispose ----
    def initialize_state(self, restored: Any = None) -> None:
        """``FinishedOperatorChain.initializeStateAndOpenOperators``: nothing."""

    def open(self) -> None:
        """The operators stay unopened."""

    def close(self) -> None:
        """``closeAllOperators`` does nothing; the outputs are flushed."""
        for writer in self.record_writer_outputs:
            writer.close()

    def dispose(self) -> None:
        """Nothing was opened."""

    def dispose_after_failure(self) -> None:
        """Nothing was opened."""

    # ---- input: only watermarks and the end of input arrive ----
    def _emit_max_watermark(self) -> None:
        if self._emitted_max:
            return
        self._emitted_max = True
        for writer in self.record_writer_outputs:
            writer.emit_watermark(MAX_WATERMARK)

    def emit_next(self, max_records: int) -> bool:
        """A legacy source finished on restore skips its run: MAX_WATERMARK, end of input."""
        self._emit_max_watermark()
        return False

    def process_element(self, value: Any, timestamp: int | None, input_index: int = 0) -> None:
        raise IllegalStateException(
            f"{self.vertex.name}: a task finished on restore should not receive any records "
            "(FinishedOnRestoreInput)."
        )

    def process_batch(
        self,
        values: Sequence[Any],
        timestamps: Sequence[int | None] | None = None,
        input_index: int = 0,
        keys: Sequence[Any] | None = None,
    ) -> None:
        if values:
            self.process_element(values[0], None, input_index)

    def process_watermark(self, watermark: int, input_index: int = 0) -> None:
        """``FinishedOnRestoreInput.processWatermark``: MAX_WATERMARK once every input sent it."""
        if watermark != MAX_WATERMARK:
            return
        self._max_watermarks.add(input_index)
        inputs = 2 if getattr(self.head, "is_two_input", False) else 1
        if len(self._max_watermarks) >= inputs:
            self._emit_max_watermark()

    def end_input(self, input_index: int = 0) -> None:
        """The operators are finished already."""

    # ---- checkpoints: no state; the snapshot is FINISHED_ON_RESTORE ----
    def prepare_snapshot_pre_barrier(self, checkpoint_id: int) -> None:
        """Nothing to prepare."""

    def snapshot_state(self, checkpoint_id: int, timestamp: int) -> dict[str, OperatorSnapshot]:
        return {}

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """No operator to notify."""

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        """No operator to notify."""

    def keyed_state(self) -> dict[str, dict[str, dict[Any, Any]]]:
        return {}
