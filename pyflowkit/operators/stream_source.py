"""Flink's ``StreamSource``: the operator of legacy sources (``SourceOperator`` is its own module).

The host calls ``emit_next(max_records)`` (Flink's ``emitNext``/the source thread's loop);
records go down the chain in batches. In ProcessingTime the source context drops timestamps
(``NonTimestampContext``); at the end of a bounded input ``Long.MAX_VALUE`` is emitted once
(``advanceToEndOfEventTime``). The reader position is operator list state, so it is
checkpointed and restored; a reader with a ``state_name`` keeps its own list state instead
(``snapshot_state``/``restore_state``, redistributed on rescale like a function's ListState).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, ClassVar

from pyflowkit.datastream.functions import CheckpointedFunction
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.base import AbstractUdfStreamOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.registry import register_operator
from pyflowkit.operators.sources import (
    SourceFunctionSource,
    SourceReader,
    SourceWatermark,
    as_source,
)
from pyflowkit.state.time import MAX_WATERMARK

POSITION_STATE = "reader-position"


class InputStatus(Enum):
    """Flink's ``InputStatus``."""

    MORE_AVAILABLE = "MORE_AVAILABLE"
    NOTHING_AVAILABLE = "NOTHING_AVAILABLE"
    END_OF_INPUT = "END_OF_INPUT"


class StreamSource(AbstractUdfStreamOperator):
    """Flink's ``StreamSource``: reads its ``Source`` with a positional reader."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD
    is_source: ClassVar[bool] = True

    def __init__(self, source: Any) -> None:
        super().__init__(as_source(source))
        self.source = self.user_function
        self.reader: SourceReader | None = None
        self.records_emitted = 0
        self._sent_max_watermark = False
        self._position_state: Any = None
        self._reader_state: Any = None  # the list state of a reader with a ``state_name``
        self.pending_pause = 0  # ms the source slept after its last batch (the host may wait)

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        source = params.get("source", params.get("function"))
        if source is None:
            raise IllegalArgumentException("StreamSource needs a 'source' parameter.")
        return cls(source)

    def initialize_operator_state(self, is_restored: bool) -> None:
        env = self._env
        self.reader = self.source.create_reader(env.subtask_index, env.parallelism)
        backend: Any = self.operator_state_backend
        state_name = getattr(self.reader, "state_name", None)
        if state_name is not None:  # the reader's own list state (e.g. the values to emit)
            names = backend.get_registered_state_names() if is_restored else set()
            self._reader_state = backend.get_list_state(state_name)
            if state_name in names:
                self.reader.restore_state(list(self._reader_state.get()))  # type: ignore[attr-defined]
                return
            if POSITION_STATE not in names:
                return
            self._position_state = backend.get_list_state(POSITION_STATE)
            positions = self._position_state.get()  # an older savepoint: one position a subtask
            if len(positions) != 1:
                raise IllegalArgumentException(
                    f"Source '{self.config.operator_name}' cannot restore an older savepoint "
                    f"(reader positions, not '{state_name}') at another parallelism: this "
                    f"subtask got {len(positions)} positions. Restore it at its parallelism, "
                    "take a new savepoint, then rescale."
                )
            self.reader.restore_position(positions[0])
            return
        self._position_state = backend.get_list_state(POSITION_STATE)
        if is_restored:
            positions = self._position_state.get()
            if len(positions) == 1:
                self.reader.restore_position(positions[0])
            elif positions:
                raise IllegalArgumentException(
                    f"Source '{self.config.operator_name}' cannot restore {len(positions)} reader "
                    "positions into one subtask (rescaling this source is not supported)."
                )

    @property
    def function_with_state(self) -> CheckpointedFunction | None:
        """A user ``SourceFunction`` that is a ``CheckpointedFunction``: its state is snapshotted
        between two of its emits (the task holds the checkpoint lock: its ``run`` waits in
        ``ctx.collect`` or between generator steps) and restored before its ``run`` starts."""
        fn = getattr(self.source, "function", None)
        return fn if isinstance(fn, CheckpointedFunction) else None

    def use_function(self, function: Any) -> None:
        self.source = self.user_function = SourceFunctionSource(function)
        if self.reader is not None:
            self.reader.use_function(function)  # type: ignore[attr-defined]

    def open(self) -> None:
        # a user SourceFunction is opened by the reader's first run; Sources have no open()
        opener = getattr(self.source, "function", None)
        if opener is not None and callable(getattr(opener, "open", None)):
            opener.open(self.runtime_context)

    def close(self) -> None:
        # closes once; a failed/canceled task's SourceFunction is closed by dispose() instead
        super().close()

    def dispose(self) -> None:
        """Also cancels a plain ``run`` still running on its thread (``StreamSource.cancel``)."""
        if self.reader is not None:
            self.reader.close()
        super().dispose()

    def _close_function(self) -> None:
        fn = getattr(self.source, "function", None)
        if fn is not None and callable(getattr(fn, "close", None)):
            fn.close()

    def emit_next(self, max_records: int) -> InputStatus:
        """Read up to ``max_records`` and push them down the chain."""
        reader = self.reader
        if reader is None:
            raise IllegalArgumentException(
                f"Source '{self.config.operator_name}' was polled before initialize_state()."
            )
        if reader.may_emit_watermarks:
            records = reader.poll(max_records) if max_records > 0 else []
            if records:
                self._emit(records)
            self.pending_pause += reader.take_pause()
        elif max_records > 0:
            values, timestamps = reader.poll_values(max_records)
            if values:
                self.records_emitted += len(values)
                if self.config.time_characteristic == "ProcessingTime":
                    timestamps = None  # NonTimestampContext
                self.output.collect_batch(values, timestamps)  # type: ignore[union-attr]
        if reader.is_finished():
            if not self._sent_max_watermark:
                self._sent_max_watermark = True
                self.output.emit_watermark(MAX_WATERMARK)  # type: ignore[union-attr]
            return InputStatus.END_OF_INPUT
        return InputStatus.MORE_AVAILABLE

    def advance_to_end_of_event_time(self) -> bool:
        """Stop-with-savepoint ``--drain``: MAX_WATERMARK, once, so every event-time timer
        downstream fires; True if it was emitted now. (A FLIP-27 ``SourceOperator`` has no such
        step in 1.11.) Flink's ``StreamSource.advanceToEndOfEventTime``."""
        if self._sent_max_watermark:
            return False
        self._sent_max_watermark = True
        self.current_watermark = MAX_WATERMARK
        self.output.emit_watermark(MAX_WATERMARK)  # type: ignore[union-attr]
        return True

    def _emit(self, records: list[tuple[Any, int | None]]) -> None:
        """A reader that may emit watermarks: records and ``SourceWatermark``s, in order."""
        out = self.output
        keep_ts = self.config.time_characteristic != "ProcessingTime"
        for value, ts in records:
            if type(value) is SourceWatermark:
                if keep_ts:
                    out.emit_watermark(value.timestamp)  # type: ignore[union-attr]
            else:
                self.records_emitted += 1
                out.collect(value, ts if keep_ts else None)  # type: ignore[union-attr]

    def snapshot_operator_state(self, checkpoint_id: int) -> None:
        reader = self.reader
        if reader is None:
            return
        if self._reader_state is not None:
            self._reader_state.update(reader.snapshot_state())  # type: ignore[attr-defined]
            if self._position_state is not None:
                self._position_state.clear()  # an older savepoint's position, now in the state
        elif self._position_state is not None:
            self._position_state.update([reader.snapshot_position()])


register_operator("StreamSource", StreamSource)
