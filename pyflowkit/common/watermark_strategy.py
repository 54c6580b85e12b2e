"""``WatermarkStrategy``, ``TimestampAssigner`` and the watermark generators behind them.

PyFlink's ``pyflink.common.watermark_strategy``; the generators are Flink's
``BoundedOutOfOrdernessWatermarks``, ``NoWatermarksGenerator`` and ``WatermarksWithIdleness``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from pyflowkit.common.time import Duration
from pyflowkit.java_semantics import LONG_MIN_VALUE


class TimestampAssigner:
    """PyFlink's ``TimestampAssigner``: extracts an event timestamp (ms) from a record."""

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        raise NotImplementedError(
            f"{type(self).__name__} must implement extract_timestamp(value, record_timestamp)."
        )


class RecordTimestampAssigner(TimestampAssigner):
    """Flink's ``RecordTimestampAssigner``: keeps the timestamp the record already carries."""

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return record_timestamp


class _CallableTimestampAssigner(TimestampAssigner):
    """A plain callable ``f(value, record_timestamp)`` used as a TimestampAssigner."""

    def __init__(self, fn: Callable[[Any, int], int]) -> None:
        self.fn = fn

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return self.fn(value, record_timestamp)


class WatermarkOutput:
    """Flink's ``WatermarkOutput``: where a generator emits watermarks (ms, ``int``)."""

    def emit_watermark(self, watermark: int) -> None:
        raise NotImplementedError

    def mark_idle(self) -> None:
        raise NotImplementedError

    def mark_active(self) -> None:
        """Flink marks the output active again on the next emitted watermark; default no-op."""


class WatermarkGenerator:
    """Flink's ``WatermarkGenerator``: ``on_event`` per record, ``on_periodic_emit`` per tick."""

    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        pass

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        pass


class BoundedOutOfOrdernessWatermarks(WatermarkGenerator):
    """Flink's ``BoundedOutOfOrdernessWatermarks``: watermark = maxTs − outOfOrderness − 1."""

    def __init__(self, max_out_of_orderness: Duration) -> None:
        millis = max_out_of_orderness.to_milliseconds()
        if millis < 0:
            raise ValueError("maxOutOfOrderness cannot be negative")
        self.out_of_orderness_millis = millis
        # start so that our lowest watermark would be Long.MIN_VALUE
        self.max_timestamp = LONG_MIN_VALUE + millis + 1

    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        if event_timestamp > self.max_timestamp:
            self.max_timestamp = event_timestamp

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        output.emit_watermark(self.max_timestamp - self.out_of_orderness_millis - 1)


class AscendingTimestampsWatermarks(BoundedOutOfOrdernessWatermarks):
    """Flink's ``AscendingTimestampsWatermarks``: bounded out-of-orderness of zero."""

    def __init__(self) -> None:
        super().__init__(Duration.of_millis(0))


class NoWatermarksGenerator(WatermarkGenerator):
    """Flink's ``NoWatermarksGenerator``: never emits a watermark."""


class WatermarksWithIdleness(WatermarkGenerator):
    """Flink's ``WatermarksWithIdleness``: marks the output idle after ``idle_timeout`` without
    events (checked on periodic emits, on the given clock in ms — Flink's ``IdlenessTimer``)."""

    def __init__(
        self,
        watermarks: WatermarkGenerator,
        idle_timeout: Duration,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.watermarks = watermarks
        self.max_idle_time = idle_timeout.to_milliseconds()
        self.clock = clock or (lambda: int(time.monotonic() * 1000))
        self._counter = 0
        self._last_counter = 0
        self._start_of_inactivity = 0
        self._is_idle_now = False

    def on_event(self, event: Any, event_timestamp: int, output: WatermarkOutput) -> None:
        self.watermarks.on_event(event, event_timestamp, output)
        self._counter += 1
        self._is_idle_now = False

    def _check_if_idle(self) -> bool:
        if self._counter != self._last_counter:
            self._last_counter = self._counter
            self._start_of_inactivity = 0
            return False
        now = self.clock()
        if self._start_of_inactivity == 0:
            self._start_of_inactivity = now
            return False
        return now - self._start_of_inactivity > self.max_idle_time

    def on_periodic_emit(self, output: WatermarkOutput) -> None:
        if self._check_if_idle():
            if not self._is_idle_now:
                output.mark_idle()
                self._is_idle_now = True
        else:
            self.watermarks.on_periodic_emit(output)


class WatermarkStrategy:
    """PyFlink's ``WatermarkStrategy``: a watermark generator recipe plus a timestamp assigner.

    ``create_watermark_generator()`` builds a fresh generator per subtask (Flink's
    ``createWatermarkGenerator``); ``create_timestamp_assigner()`` likewise.
    """

    def __init__(
        self,
        kind: str,
        out_of_orderness: Duration | None = None,
        timestamp_assigner: TimestampAssigner | None = None,
        idleness: Duration | None = None,
    ) -> None:
        self.kind = kind  # "bounded_out_of_orderness" | "monotonous" | "no_watermarks"
        self.out_of_orderness = out_of_orderness
        self.timestamp_assigner = timestamp_assigner
        self.idleness = idleness

    @staticmethod
    def for_monotonous_timestamps() -> WatermarkStrategy:
        return WatermarkStrategy("monotonous", Duration.of_millis(0))

    @staticmethod
    def for_bounded_out_of_orderness(max_out_of_orderness: Duration) -> WatermarkStrategy:
        if not isinstance(max_out_of_orderness, Duration):
            raise TypeError(
                "for_bounded_out_of_orderness needs a Duration, e.g. Duration.of_seconds(5); got "
                f"{max_out_of_orderness!r}."
            )
        if max_out_of_orderness.to_nanos() < 0:
            raise ValueError("maxOutOfOrderness cannot be negative")
        return WatermarkStrategy("bounded_out_of_orderness", max_out_of_orderness)

    @staticmethod
    def no_watermarks() -> WatermarkStrategy:
        return WatermarkStrategy("no_watermarks")

    def with_timestamp_assigner(
        self, timestamp_assigner: TimestampAssigner | Callable[[Any, int], int]
    ) -> WatermarkStrategy:
        if isinstance(timestamp_assigner, TimestampAssigner):
            assigner = timestamp_assigner
        elif callable(timestamp_assigner):
            assigner = _CallableTimestampAssigner(timestamp_assigner)
        else:
            raise TypeError(
                "with_timestamp_assigner needs a TimestampAssigner or a callable "
                f"(value, record_timestamp) -> int, got {timestamp_assigner!r}."
            )
        return WatermarkStrategy(self.kind, self.out_of_orderness, assigner, self.idleness)

    def with_idleness(self, idle_timeout: Duration) -> WatermarkStrategy:
        if not isinstance(idle_timeout, Duration) or idle_timeout.to_nanos() < 0:
            raise ValueError(f"idleTimeout must be a non-negative Duration, got {idle_timeout!r}.")
        return WatermarkStrategy(
            self.kind, self.out_of_orderness, self.timestamp_assigner, idle_timeout
        )

    def create_watermark_generator(
        self, clock: Callable[[], int] | None = None
    ) -> WatermarkGenerator:
        """A fresh generator; ``clock`` (ms) drives idleness detection (processing time)."""
        generator: WatermarkGenerator
        if self.kind == "no_watermarks":
            generator = NoWatermarksGenerator()
        elif self.kind == "monotonous":
            generator = AscendingTimestampsWatermarks()
        else:
            assert self.out_of_orderness is not None
            generator = BoundedOutOfOrdernessWatermarks(self.out_of_orderness)
        if self.idleness is not None:
            generator = WatermarksWithIdleness(generator, self.idleness, clock)
        return generator

    def create_timestamp_assigner(self) -> TimestampAssigner:
        return self.timestamp_assigner or RecordTimestampAssigner()

    def __repr__(self) -> str:
        if self.kind == "bounded_out_of_orderness":
            text = f"WatermarkStrategy.for_bounded_out_of_orderness({self.out_of_orderness!r})"
        elif self.kind == "monotonous":
            text = "WatermarkStrategy.for_monotonous_timestamps()"
        else:
            text = "WatermarkStrategy.no_watermarks()"
        if self.timestamp_assigner is not None:
            text += ".with_timestamp_assigner(...)"
        if self.idleness is not None:
            text += f".with_idleness({self.idleness!r})"
        return text
