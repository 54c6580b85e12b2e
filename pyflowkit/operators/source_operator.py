"""Flink's FLIP-27 ``SourceOperator`` (``from_source``): reads a ``Source`` and applies the
``WatermarkStrategy`` itself.

As Flink's ``ProgressiveTimestampsAndWatermarks``: every record goes through the timestamp
assigner (a reader gives no timestamp: ``Long.MIN_VALUE``) and the watermark generator of its
split (``createOutputForSplit``); split watermarks are combined by a ``WatermarkOutputMultiplexer``
(minimum over live splits); a finished split's output is released. Generators emit periodically
every auto-watermark interval of processing time (none when it is 0). The reader's unfinished
splits are operator list state ``SourceReaderState`` (one entry per split, so a rescale spreads
them over the new subtasks); at the end of a bounded input ``Long.MAX_VALUE`` is emitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pyflowkit.common.watermark_strategy import WatermarkGenerator, WatermarkOutput
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.base import CloseOnce, ProcessingTimeCallbackOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.file_source import FileSource, FileSourceReader
from pyflowkit.operators.hybrid_source import HybridSource, HybridSourceReader
from pyflowkit.operators.registry import register_operator
from pyflowkit.operators.sources import SourceReader, as_source
from pyflowkit.operators.stream_source import InputStatus
from pyflowkit.operators.watermark_multiplexer import WatermarkOutputMultiplexer
from pyflowkit.state.time import LONG_MIN_VALUE, MAX_WATERMARK

SPLITS_STATE = "SourceReaderState"
SEEN_PATHS_STATE = "SourceEnumeratorState"
_SPLIT_READERS = (FileSourceReader, HybridSourceReader)  # readers that report finished splits
MAIN_SPLIT = "main"  # the one "split" of readers that do not report splits


class _SplitWatermarks:
    """One split's watermark generator and its immediate/deferred multiplexer outputs."""

    __slots__ = ("generator", "immediate", "deferred")

    def __init__(
        self, generator: WatermarkGenerator, immediate: WatermarkOutput, deferred: WatermarkOutput
    ) -> None:
        self.generator = generator
        self.immediate = immediate
        self.deferred = deferred


class SourceOperator(ProcessingTimeCallbackOperator):
    """Flink's ``SourceOperator`` + ``SourceOperatorStreamTask``'s input: ``emit_next`` reads up to
    ``max_records`` records, stamps them and drives the per-split watermark generators."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD
    is_source: ClassVar[bool] = True

    def __init__(self, source: Any, watermark_strategy: Any = None) -> None:
        super().__init__()
        if source is None or not callable(getattr(source, "create_reader", None)):
            source = as_source(source)
        if watermark_strategy is not None and not callable(
            getattr(watermark_strategy, "create_watermark_generator", None)
        ):
            raise IllegalArgumentException(
                f"SourceOperator needs a WatermarkStrategy, got {watermark_strategy!r}."
            )
        self.source = source
        self.watermark_strategy = watermark_strategy
        self.reader: SourceReader | None = None
        self._reader_closer = CloseOnce()
        self.records_emitted = 0
        self._splits_state: Any = None
        self._seen_state: Any = None
        self._sent_max_watermark = False
        self._split_watermarks: dict[str, _SplitWatermarks] = {}

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        source = params.get("source")
        if source is None:
            raise IllegalArgumentException("SourceOperator needs a 'source' parameter.")
        return cls(source, params.get("watermark_strategy"))

    # ---- state ----
    def initialize_operator_state(self, is_restored: bool) -> None:
        env = self._env
        clock = env.processing_time_service.get_current_processing_time
        if isinstance(self.source, FileSource | HybridSource):
            self.reader = self.source.create_reader(env.subtask_index, env.parallelism, clock)
        else:
            self.reader = self.source.create_reader(env.subtask_index, env.parallelism)
        backend = self.operator_state_backend
        self._splits_state = backend.get_list_state(SPLITS_STATE)  # type: ignore[union-attr]
        self._seen_state = backend.get_union_list_state(SEEN_PATHS_STATE)  # type: ignore[union-attr]
        if not is_restored:
            return
        entries = list(self._splits_state.get())
        if callable(getattr(self.reader, "restore_splits", None)):  # split-based readers
            self.reader.restore_splits(entries, list(self._seen_state.get()))
        elif len(entries) == 1:
            self.reader.restore_position(entries[0])
        elif entries:
            raise IllegalArgumentException(
                f"Source '{self.config.operator_name}' cannot restore {len(entries)} reader "
                "positions into one subtask (this source has no splits to redistribute)."
            )

    def snapshot_operator_state(self, checkpoint_id: int) -> None:
        reader = self.reader
        if reader is None or self._splits_state is None:
            return
        if callable(getattr(reader, "snapshot_splits", None)):  # one entry per split
            self._splits_state.update(reader.snapshot_splits())
            self._seen_state.update(getattr(reader, "seen_paths", []))
        else:
            self._splits_state.update([reader.snapshot_position()])

    # ---- event time ----
    def open(self) -> None:
        strategy = self.watermark_strategy
        self._assigner = strategy.create_timestamp_assigner() if strategy is not None else None
        self._mux = WatermarkOutputMultiplexer(self._emit_combined, lambda: None)
        interval = self.config.auto_watermark_interval
        if strategy is not None and interval > 0 and not self.config.is_batch:
            self._interval = interval
            self._schedule(self.get_processing_time() + interval)

    def _emit_combined(self, watermark: int) -> None:
        if self.config.is_batch and watermark < MAX_WATERMARK:
            return  # BATCH: no progressive watermarks (Flink 1.12's emitProgressiveWatermarks)
        if watermark > self.current_watermark:
            self.current_watermark = watermark
            self.output.emit_watermark(watermark)  # type: ignore[union-attr]

    def _split(self, split_id: str) -> _SplitWatermarks:
        sw = self._split_watermarks.get(split_id)
        if sw is None:
            pts = self._env.processing_time_service
            try:
                gen = self.watermark_strategy.create_watermark_generator(
                    pts.get_current_processing_time
                )
            except TypeError:
                gen = self.watermark_strategy.create_watermark_generator()
            self._mux.register_new_output(split_id)
            sw = _SplitWatermarks(
                gen,
                self._mux.get_immediate_output(split_id),
                self._mux.get_deferred_output(split_id),
            )
            self._split_watermarks[split_id] = sw
        return sw

    def _release(self, split_id: str) -> None:
        if self._split_watermarks.pop(split_id, None) is not None:
            self._mux.unregister_output(split_id)

    def on_processing_time(self, timestamp: int) -> None:
        """The periodic tick: every split's ``onPeriodicEmit``, then the combined watermark."""
        for sw in list(self._split_watermarks.values()):
            sw.generator.on_periodic_emit(sw.deferred)
        self._mux.on_periodic_emit()
        self._schedule(self.get_processing_time() + self._interval)

    # ---- reading ----
    def emit_next(self, max_records: int) -> InputStatus:
        reader = self.reader
        if reader is None:
            raise IllegalArgumentException(
                f"Source '{self.config.operator_name}' was polled before initialize_state()."
            )
        remaining = max_records
        while remaining > 0:
            records = reader.poll(remaining)
            split_id = getattr(reader, "current_split_id", None) or MAIN_SPLIT
            if records:
                self._emit(records, split_id)
                remaining -= len(records)
            finished = reader.take_finished() if isinstance(reader, _SPLIT_READERS) else []
            for done in finished:
                self._release(done)
            if not records and not finished:
                break
        if reader.is_finished():
            if not self._sent_max_watermark:
                self._sent_max_watermark = True
                self.current_watermark = MAX_WATERMARK
                self.output.emit_watermark(MAX_WATERMARK)  # type: ignore[union-attr]
            return InputStatus.END_OF_INPUT
        return InputStatus.MORE_AVAILABLE

    def _emit(self, records: list[tuple[Any, int | None]], split_id: str) -> None:
        out = self.output
        self.records_emitted += len(records)
        if self._assigner is None:
            out.collect_batch([v for v, _ in records], None)  # type: ignore[union-attr]
            return
        extract = self._assigner.extract_timestamp
        sw = self._split(split_id)
        on_event, wm_out = sw.generator.on_event, sw.immediate
        for value, ts in records:
            stamped = extract(value, LONG_MIN_VALUE if ts is None else ts)
            out.collect(value, stamped)  # type: ignore[union-attr]
            on_event(value, stamped, wm_out)

    # ---- lifecycle ----
    def close(self) -> None:
        """``SourceOperator.close``: stop the periodic watermarks, close the reader."""
        self._cancel()
        self._reader_closer.close(self.reader)

    def dispose(self) -> None:
        """After a failure or cancel: the reader is closed unless close() did it already."""
        self._cancel()
        self._reader_closer.close(self.reader)
        super().dispose()


register_operator("SourceOperator", SourceOperator)
