"""Flink's ``TimestampsAndWatermarksOperator`` (``assign_timestamps_and_watermarks``).

Per record: extract the timestamp, emit the record, ``on_event``. Every auto-watermark interval
of processing time (only if > 0; 1.11 sets 200 ms for EventTime) ``on_periodic_emit``. Upstream
watermarks are ignored except ``Long.MAX_VALUE``, which is forwarded; ``close`` emits once more.
Emitted watermarks only ever increase. In BATCH execution mode no progressive watermark is
emitted (Flink 1.12's ``emitProgressiveWatermarks = false``): only the end of input's ``MAX``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.base import ProcessingTimeCallbackOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.time import LONG_MIN_VALUE, MAX_WATERMARK


class _WatermarkEmitter:
    """Flink's ``TimestampsAndWatermarksOperator.WatermarkEmitter``: forwards increasing marks."""

    def __init__(self, operator: TimestampsAndWatermarksOperator) -> None:
        self.operator = operator
        self.idle = False

    def emit_watermark(self, watermark: Any) -> None:
        ts = watermark if isinstance(watermark, int) else int(watermark.timestamp)
        op = self.operator
        if ts <= op.current_watermark or (op.config.is_batch and ts < MAX_WATERMARK):
            return
        op._flush_pending()  # records of a batch seen before this watermark go first
        op.current_watermark = ts
        self.idle = False
        op.output.emit_watermark(ts)  # type: ignore[union-attr]

    def mark_idle(self) -> None:
        # StreamStatus.IDLE is not modelled on operator outputs; the generator stops emitting.
        self.idle = True

    def mark_active(self) -> None:
        self.idle = False


class TimestampsAndWatermarksOperator(ProcessingTimeCallbackOperator):
    """Flink's ``TimestampsAndWatermarksOperator`` driven by a ``WatermarkStrategy``."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, watermark_strategy: Any) -> None:
        super().__init__()
        if not callable(getattr(watermark_strategy, "create_watermark_generator", None)):
            raise IllegalArgumentException(
                "Timestamps/Watermarks needs a WatermarkStrategy (e.g. WatermarkStrategy."
                f"for_monotonous_timestamps()), got {watermark_strategy!r}."
            )
        self.watermark_strategy = watermark_strategy
        self._pending: tuple[list[Any], list[int]] | None = None  # a batch's unflushed records

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        return cls(params.get("watermark_strategy"))

    def open(self) -> None:
        pts = self._env.processing_time_service
        strategy = self.watermark_strategy
        self.timestamp_assigner = strategy.create_timestamp_assigner()
        try:
            self.watermark_generator = strategy.create_watermark_generator(
                pts.get_current_processing_time
            )
        except TypeError:
            self.watermark_generator = strategy.create_watermark_generator()
        self.wm_output = _WatermarkEmitter(self)
        self._extract = self.timestamp_assigner.extract_timestamp
        self._on_event = self.watermark_generator.on_event
        self.watermark_interval = self.config.auto_watermark_interval
        if self.watermark_interval > 0 and not self.config.is_batch:
            self._schedule(pts.get_current_processing_time() + self.watermark_interval)

    def on_processing_time(self, timestamp: int) -> None:
        """The periodic tick: ``onPeriodicEmit``, then re-register ``now + interval``."""
        self.watermark_generator.on_periodic_emit(self.wm_output)
        self._schedule(self.get_processing_time() + self.watermark_interval)

    def process_element(self, value: Any, timestamp: int | None) -> None:
        ts = self._extract(value, LONG_MIN_VALUE if timestamp is None else timestamp)
        self.output.collect(value, ts)  # type: ignore[union-attr]
        self._on_event(value, ts, self.wm_output)

    def batch_keys_itself(self) -> bool:
        """Timestamp assigners and watermark generators read no keyed state."""
        return True

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        """Stamps the batch and emits it as one batch; a watermark the generator emits from
        ``on_event`` first flushes the records before it, so the order is ``process_element``'s."""
        extract, on_event, emitter = self._extract, self._on_event, self.wm_output
        out_v: list[Any] = []
        out_t: list[int] = []
        self._pending = (out_v, out_t)
        try:
            stamps = timestamps if timestamps is not None else (None,) * len(values)
            for value, timestamp in zip(values, stamps, strict=False):
                ts = extract(value, LONG_MIN_VALUE if timestamp is None else timestamp)
                out_v.append(value)
                out_t.append(ts)
                on_event(value, ts, emitter)
        finally:  # on a user-function error the records before it were still emitted
            self._flush_pending()
            self._pending = None

    def _flush_pending(self) -> None:
        pending = self._pending
        if pending is not None and pending[0]:
            self.output.collect_batch(pending[0][:], pending[1][:])  # type: ignore[union-attr]
            pending[0].clear()
            pending[1].clear()

    def process_watermark(self, watermark: int) -> None:
        if watermark == MAX_WATERMARK and self.current_watermark != MAX_WATERMARK:
            self.current_watermark = MAX_WATERMARK
            self.output.emit_watermark(MAX_WATERMARK)  # type: ignore[union-attr]

    def close(self) -> None:
        self.watermark_generator.on_periodic_emit(self.wm_output)
        self._cancel()

    def dispose(self) -> None:
        self._cancel()
        super().dispose()


register_operator("TimestampsAndWatermarksOperator", TimestampsAndWatermarksOperator)
