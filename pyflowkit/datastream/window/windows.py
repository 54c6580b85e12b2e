"""Windows: ``TimeWindow``, ``CountWindow``, ``GlobalWindow`` (PyFlink's ``pyflink.datastream.window``).

Flink 1.11's ``org.apache.flink.streaming.api.windowing.windows``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pyflowkit.datastream.window._common import (
    MAX_LONG_VALUE,
    _java_rem,
)

if TYPE_CHECKING:
    from pyflowkit.datastream.window.assigners import MergingWindowAssigner


def long_to_int_with_bit_mixing(x: int) -> int:
    """PyFlink's ``long_to_int_with_bit_mixing`` (the splitmix64 finalizer of Flink's
    ``MathUtils.longToIntWithBitMixing``, in Python's unbounded ints as PyFlink computes it)."""
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
    x = (x ^ (x >> 27)) * 0x94D049BB133111EB
    return x ^ (x >> 31)


def mod_inverse(x: int) -> int:
    """The inverse of an odd ``x`` modulo 2**32 by Newton's iteration (PyFlink's
    ``mod_inverse``; Flink's ``TimeWindow.modInverse``), unreduced as PyFlink returns it."""
    inverse = x * x * x
    inverse *= 2 - x * inverse
    inverse *= 2 - x * inverse
    inverse *= 2 - x * inverse
    return inverse


class Window(ABC):
    """A finite bucket of elements with a maximum timestamp (Flink's ``Window``)."""

    __slots__ = ()

    @abstractmethod
    def max_timestamp(self) -> int: ...


class TimeWindow(Window):
    """The interval ``[start, end)``, immutable, its hash computed once (Flink's ``TimeWindow``).

    Equal iff ``start`` and ``end`` are equal (Flink's ``equals``). Windows are namespaces of
    keyed state and timers, so they are hashed on every state access and timer registration.
    """

    __slots__ = ("start", "end", "_hash")
    start: int
    end: int
    _hash: int

    def __init__(self, start: int, end: int) -> None:
        _set_start(self, start)  # the slots' own setters: __setattr__ refuses writes
        _set_end(self, end)
        _set_hash(self, hash((start, end)))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"TimeWindow is immutable: cannot set '{name}'.")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"TimeWindow is immutable: cannot delete '{name}'.")

    def __reduce__(self) -> tuple[type[TimeWindow], tuple[int, int]]:
        return (TimeWindow, (self.start, self.end))

    def __copy__(self) -> TimeWindow:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> TimeWindow:
        return self

    def max_timestamp(self) -> int:
        """``end - 1``: the last timestamp that belongs to the window."""
        return self.end - 1

    def get_start(self) -> int:
        return self.start

    def get_end(self) -> int:
        return self.end

    def intersects(self, other: TimeWindow) -> bool:
        """True if the windows overlap or touch (``start <= other.end && end >= other.start``)."""
        return self.start <= other.end and self.end >= other.start

    def cover(self, other: TimeWindow) -> TimeWindow:
        """The smallest window that covers both windows."""
        return TimeWindow(min(self.start, other.start), max(self.end, other.end))

    @staticmethod
    def get_window_start_with_offset(timestamp: int, offset: int, window_size: int) -> int:
        """``TimeWindow.getWindowStartWithOffset``: ``ts - (ts - offset + size) % size``, Java %."""
        return timestamp - _java_rem(timestamp - offset + window_size, window_size)

    @staticmethod
    def merge_windows(
        windows: Iterable[TimeWindow], callback: MergingWindowAssigner.MergeCallback
    ) -> None:
        """``TimeWindow.mergeWindows``: merge overlapping windows, sorted by start."""
        merged: list[tuple[TimeWindow, list[TimeWindow]]] = []
        current: tuple[TimeWindow, list[TimeWindow]] | None = None
        for candidate in sorted(windows, key=lambda w: w.start):
            if current is None:
                current = (candidate, [candidate])
            elif current[0].intersects(candidate):
                current = (current[0].cover(candidate), current[1] + [candidate])
            else:
                merged.append(current)
                current = (candidate, [candidate])
        if current is not None:
            merged.append(current)
        for merge_result, to_be_merged in merged:
            if len(to_be_merged) > 1:
                callback.merge(to_be_merged, merge_result)

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, TimeWindow) and self.start == other.start and self.end == other.end
        )

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: TimeWindow) -> bool:
        return (self.start, self.end) < (other.start, other.end)

    def __repr__(self) -> str:
        return f"TimeWindow{{start={self.start}, end={self.end}}}"


_set_start = TimeWindow.start.__set__  # type: ignore[attr-defined]
_set_end = TimeWindow.end.__set__  # type: ignore[attr-defined]
_set_hash = TimeWindow._hash.__set__  # type: ignore[attr-defined]


class CountWindow(Window):
    """A window identified by a count id (PyFlink's ``CountWindow``)."""

    __slots__ = ("id",)

    def __init__(self, id: int) -> None:  # noqa: A002 - PyFlink's argument name
        self.id = id

    def max_timestamp(self) -> int:
        return MAX_LONG_VALUE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CountWindow) and self.id == other.id

    def __hash__(self) -> int:
        return hash(("CountWindow", self.id))

    def __repr__(self) -> str:
        return f"CountWindow(id={self.id})"


class GlobalWindow(Window):
    """The single window of ``GlobalWindows`` (Flink's ``GlobalWindow``)."""

    __slots__ = ()
    _instance: GlobalWindow | None = None

    def __new__(cls) -> GlobalWindow:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    @staticmethod
    def get() -> GlobalWindow:
        return GlobalWindow()

    def max_timestamp(self) -> int:
        return MAX_LONG_VALUE

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GlobalWindow)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "GlobalWindow"
