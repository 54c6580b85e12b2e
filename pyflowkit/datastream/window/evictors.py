"""Evictors and ``TimestampedValue`` (PyFlink's ``pyflink.datastream.window``).

Flink 1.11's ``org.apache.flink.streaming.api.windowing.evictors``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from pyflowkit.datastream.window._common import (
    to_millis,
)
from pyflowkit.datastream.window.windows import Window
from pyflowkit.errors import IllegalArgumentException, IllegalStateException


class TimestampedValue:
    """A value with its optional timestamp (Flink's ``TimestampedValue``)."""

    __slots__ = ("value", "timestamp")

    def __init__(self, value: Any, timestamp: int | None = None) -> None:
        self.value = value
        self.timestamp = timestamp

    def get_value(self) -> Any:
        return self.value

    def get_timestamp(self) -> int:
        if self.timestamp is None:
            raise IllegalStateException(
                "Record has no timestamp. Is the time characteristic set to 'ProcessingTime', "
                "or did you forget to call 'DataStream.assignTimestampsAndWatermarks(...)'?"
            )
        return self.timestamp

    def has_timestamp(self) -> bool:
        return self.timestamp is not None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TimestampedValue)
            and self.value == other.value
            and self.timestamp == other.timestamp
        )

    def __repr__(self) -> str:
        return f"TimestampedValue({self.value!r}, {self.timestamp})"


class Evictor(ABC):
    """Removes elements from a pane before/after the window function (Flink's ``Evictor``).

    ``elements`` is a mutable list of ``TimestampedValue``; evictors remove from it in place.
    """

    class EvictorContext(ABC):
        """``Evictor.EvictorContext``."""

        @abstractmethod
        def get_current_processing_time(self) -> int: ...

        @abstractmethod
        def get_current_watermark(self) -> int: ...

    @abstractmethod
    def evict_before(
        self, elements: list[TimestampedValue], size: int, window: Window, ctx: Any
    ) -> None: ...

    @abstractmethod
    def evict_after(
        self, elements: list[TimestampedValue], size: int, window: Window, ctx: Any
    ) -> None: ...


class CountEvictor(Evictor):
    """Keeps only the last ``max_count`` elements of a pane (Flink's ``CountEvictor``)."""

    def __init__(self, max_count: int, do_evict_after: bool = False) -> None:
        if isinstance(max_count, bool) or not isinstance(max_count, int):
            raise IllegalArgumentException(f"CountEvictor needs an int count, got {max_count!r}.")
        self.max_count = max_count
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(max_count: int, do_evict_after: bool = False) -> CountEvictor:
        return CountEvictor(max_count, do_evict_after)

    def evict_before(self, elements, size, window, ctx) -> None:
        if not self.do_evict_after:
            self._evict(elements, size)

    def evict_after(self, elements, size, window, ctx) -> None:
        if self.do_evict_after:
            self._evict(elements, size)

    def _evict(self, elements: list[TimestampedValue], size: int) -> None:
        if size <= self.max_count:
            return
        del elements[: size - self.max_count]

    def __repr__(self) -> str:
        # Flink's CountEvictor has no toString(); operator names use the class name only.
        return f"CountEvictor({self.max_count})"


class TimeEvictor(Evictor):
    """Keeps elements newer than ``max(ts) - window_size`` (Flink's ``TimeEvictor``)."""

    def __init__(self, window_size: int, do_evict_after: bool = False) -> None:
        self.window_size = window_size
        self.do_evict_after = do_evict_after

    @staticmethod
    def of(window_size: Any, do_evict_after: bool = False) -> TimeEvictor:
        return TimeEvictor(to_millis(window_size, "TimeEvictor window size"), do_evict_after)

    def evict_before(self, elements, size, window, ctx) -> None:
        if not self.do_evict_after:
            self._evict(elements)

    def evict_after(self, elements, size, window, ctx) -> None:
        if self.do_evict_after:
            self._evict(elements)

    def _evict(self, elements: list[TimestampedValue]) -> None:
        if not elements or not elements[0].has_timestamp():
            return
        cutoff = max(e.get_timestamp() for e in elements) - self.window_size
        elements[:] = [e for e in elements if e.get_timestamp() > cutoff]

    def __repr__(self) -> str:
        return f"TimeEvictor({self.window_size})"
