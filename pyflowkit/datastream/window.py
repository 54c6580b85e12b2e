"""Windows, window assigners, triggers and evictors (PyFlink's ``pyflink.datastream.window``).

Semantics are Flink 1.11's ``org.apache.flink.streaming.api.windowing`` package; ``str()`` of an
assigner or trigger is Flink's ``toString()`` (operator names are built from it).
"""

from __future__ import annotations

import datetime
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable
from enum import Enum
from typing import Any

from pyflowkit.errors import IllegalArgumentException, IllegalStateException

MIN_LONG_VALUE = -(2**63)
MAX_LONG_VALUE = 2**63 - 1

NO_TIMESTAMP_MESSAGE = (
    "Record has Long.MIN_VALUE timestamp (= no timestamp marker). Is the time characteristic "
    "set to 'ProcessingTime', or did you forget to call "
    "'DataStream.assignTimestampsAndWatermarks(...)'?"
)

__all__ = [
    "Window",
    "TimeWindow",
    "CountWindow",
    "GlobalWindow",
    "WindowAssigner",
    "MergingWindowAssigner",
    "TumblingEventTimeWindows",
    "SlidingEventTimeWindows",
    "TumblingProcessingTimeWindows",
    "SlidingProcessingTimeWindows",
    "EventTimeSessionWindows",
    "ProcessingTimeSessionWindows",
    "DynamicEventTimeSessionWindows",
    "DynamicProcessingTimeSessionWindows",
    "SessionWindowTimeGapExtractor",
    "GlobalWindows",
    "TriggerResult",
    "Trigger",
    "EventTimeTrigger",
    "ProcessingTimeTrigger",
    "CountTrigger",
    "PurgingTrigger",
    "ContinuousEventTimeTrigger",
    "ContinuousProcessingTimeTrigger",
    "NeverTrigger",
    "TimestampedValue",
    "Evictor",
    "CountEvictor",
    "TimeEvictor",
]


def to_millis(value: Any, what: str) -> int:
    """Milliseconds of a ``Time``/``Duration`` (has ``to_milliseconds()``), timedelta or int."""
    if isinstance(value, bool):
        raise IllegalArgumentException(f"{what} must be a Time or milliseconds, got {value!r}.")
    if isinstance(value, int):
        return value
    if hasattr(value, "to_milliseconds"):
        return int(value.to_milliseconds())
    if isinstance(value, datetime.timedelta):
        return value // datetime.timedelta(milliseconds=1)
    raise IllegalArgumentException(f"{what} must be a Time or milliseconds, got {value!r}.")


def _java_rem(a: int, b: int) -> int:
    """Java's ``%`` on longs (the result takes the sign of the dividend)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


# ---------------------------------------------------------------------------------------------
# Windows
# ---------------------------------------------------------------------------------------------
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


# ---------------------------------------------------------------------------------------------
# Triggers
# ---------------------------------------------------------------------------------------------
class TriggerResult(Enum):
    """What a trigger decides for a pane (Flink's ``TriggerResult``): (fire, purge)."""

    CONTINUE = (False, False)
    FIRE_AND_PURGE = (True, True)
    FIRE = (True, False)
    PURGE = (False, True)

    def is_fire(self) -> bool:
        return self.value[0]

    def is_purge(self) -> bool:
        return self.value[1]


class Trigger(ABC):
    """Decides when a pane is evaluated (Flink's ``Trigger``); state lives in the context."""

    class TriggerContext(ABC):
        """Timers and partitioned state for one key and window (``Trigger.TriggerContext``)."""

        @abstractmethod
        def get_current_processing_time(self) -> int: ...

        @abstractmethod
        def get_current_watermark(self) -> int: ...

        @abstractmethod
        def register_processing_time_timer(self, time: int) -> None: ...

        @abstractmethod
        def register_event_time_timer(self, time: int) -> None: ...

        @abstractmethod
        def delete_processing_time_timer(self, time: int) -> None: ...

        @abstractmethod
        def delete_event_time_timer(self, time: int) -> None: ...

        @abstractmethod
        def get_partitioned_state(self, state_descriptor: Any) -> Any: ...

    class OnMergeContext(TriggerContext):
        """Context of ``on_merge`` (``Trigger.OnMergeContext``)."""

        @abstractmethod
        def merge_partitioned_state(self, state_descriptor: Any) -> None: ...

    @abstractmethod
    def on_element(
        self, element: Any, timestamp: int, window: Window, ctx: Trigger.TriggerContext
    ) -> TriggerResult: ...

    @abstractmethod
    def on_processing_time(
        self, time: int, window: Window, ctx: Trigger.TriggerContext
    ) -> TriggerResult: ...

    @abstractmethod
    def on_event_time(
        self, time: int, window: Window, ctx: Trigger.TriggerContext
    ) -> TriggerResult: ...

    def can_merge(self) -> bool:
        return False

    def on_merge(self, window: Window, ctx: Trigger.OnMergeContext) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not support merging.")

    @abstractmethod
    def clear(self, window: Window, ctx: Trigger.TriggerContext) -> None: ...


class _EventTimeTimers:
    """Timer hooks of triggers that work in event time (the watermark is their clock)."""

    @staticmethod
    def _now(ctx: Trigger.TriggerContext) -> int:
        return ctx.get_current_watermark()

    @staticmethod
    def _register_timer(ctx: Trigger.TriggerContext, time: int) -> None:
        ctx.register_event_time_timer(time)

    @staticmethod
    def _delete_timer(ctx: Trigger.TriggerContext, time: int) -> None:
        ctx.delete_event_time_timer(time)


class _ProcessingTimeTimers:
    """Timer hooks of triggers that work in processing time."""

    @staticmethod
    def _now(ctx: Trigger.TriggerContext) -> int:
        return ctx.get_current_processing_time()

    @staticmethod
    def _register_timer(ctx: Trigger.TriggerContext, time: int) -> None:
        ctx.register_processing_time_timer(time)

    @staticmethod
    def _delete_timer(ctx: Trigger.TriggerContext, time: int) -> None:
        ctx.delete_processing_time_timer(time)


class _WindowEndTrigger(Trigger):
    """Fires once its clock passes the window's end; merges by re-registering that timer."""

    _now: Callable[[Trigger.TriggerContext], int]
    _register_timer: Callable[[Trigger.TriggerContext, int], None]
    _delete_timer: Callable[[Trigger.TriggerContext, int], None]

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        if window.max_timestamp() > self._now(ctx):
            self._register_timer(ctx, window.max_timestamp())

    def clear(self, window, ctx) -> None:
        self._delete_timer(ctx, window.max_timestamp())

    @classmethod
    def create(cls) -> Any:
        return cls()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class EventTimeTrigger(_EventTimeTimers, _WindowEndTrigger):
    """Fires when the watermark passes the window's end (Flink's ``EventTimeTrigger``)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE  # the watermark is already past the window
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE


class ProcessingTimeTrigger(_ProcessingTimeTimers, _WindowEndTrigger):
    """Fires when processing time passes the window's end (Flink's ``ProcessingTimeTrigger``)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE


class NeverTrigger(Trigger):
    """Never fires; the default of ``GlobalWindows`` (Flink's ``GlobalWindows.NeverTrigger``)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        return None

    def clear(self, window, ctx) -> None:
        return None

    def __repr__(self) -> str:
        # Flink's NeverTrigger has no toString(); this stands in for Object.toString().
        return "NeverTrigger()"


def _sum(a: int, b: int) -> int:
    return a + b


def _min(a: int, b: int) -> int:
    return min(a, b)


def _reducing_descriptor(name: str, reduce_function: Callable[[Any, Any], Any]) -> Any:
    """A ``ReducingStateDescriptor`` of longs, as Flink's triggers declare their state."""
    from pyflowkit.datastream.state import ReducingStateDescriptor

    try:
        from pyflowkit.common import Types

        long_type = Types.LONG()
    except ImportError:  # pragma: no cover - the common package always provides Types
        long_type = None
    return ReducingStateDescriptor(name, reduce_function, long_type)


class CountTrigger(Trigger):
    """Fires once the pane holds ``max_count`` elements (Flink's ``CountTrigger``)."""

    def __init__(self, window_size: int) -> None:
        if isinstance(window_size, bool) or not isinstance(window_size, int):
            raise IllegalArgumentException(f"CountTrigger needs an int count, got {window_size!r}.")
        self.max_count = window_size
        self._state_desc: Any = None

    @staticmethod
    def of(window_size: int) -> CountTrigger:
        return CountTrigger(window_size)

    @property
    def state_desc(self) -> Any:
        if self._state_desc is None:
            self._state_desc = _reducing_descriptor("count", _sum)
        return self._state_desc

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        count = ctx.get_partitioned_state(self.state_desc)
        count.add(1)
        if count.get() >= self.max_count:
            count.clear()
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        ctx.merge_partitioned_state(self.state_desc)

    def clear(self, window, ctx) -> None:
        ctx.get_partitioned_state(self.state_desc).clear()

    def __repr__(self) -> str:
        return f"CountTrigger({self.max_count})"


class PurgingTrigger(Trigger):
    """Turns every FIRE of a nested trigger into FIRE_AND_PURGE (Flink's ``PurgingTrigger``)."""

    def __init__(self, nested_trigger: Trigger) -> None:
        if not isinstance(nested_trigger, Trigger):
            raise IllegalArgumentException(
                f"PurgingTrigger needs a Trigger to wrap, got {nested_trigger!r}."
            )
        self.nested_trigger = nested_trigger

    @staticmethod
    def of(nested_trigger: Trigger) -> PurgingTrigger:
        return PurgingTrigger(nested_trigger)

    @staticmethod
    def _purging(result: TriggerResult) -> TriggerResult:
        return TriggerResult.FIRE_AND_PURGE if result.is_fire() else result

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        return self._purging(self.nested_trigger.on_element(element, timestamp, window, ctx))

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return self._purging(self.nested_trigger.on_event_time(time, window, ctx))

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return self._purging(self.nested_trigger.on_processing_time(time, window, ctx))

    def can_merge(self) -> bool:
        return self.nested_trigger.can_merge()

    def on_merge(self, window, ctx) -> None:
        self.nested_trigger.on_merge(window, ctx)

    def clear(self, window, ctx) -> None:
        self.nested_trigger.clear(window, ctx)

    def __repr__(self) -> str:
        return f"PurgingTrigger({self.nested_trigger!r})"


class _ContinuousTrigger(Trigger):
    """Fires every ``interval`` ms; the next fire time is kept in a ``fire-time`` state."""

    def __init__(self, interval: int) -> None:
        self.interval = interval
        self._state_desc: Any = None

    @classmethod
    def of(cls, interval: Any) -> Any:
        ms = to_millis(interval, f"{cls.__name__} interval")
        if ms <= 0:
            raise IllegalArgumentException(f"{cls.__name__} interval must be positive, got {ms}.")
        return cls(ms)

    @property
    def state_desc(self) -> Any:
        if self._state_desc is None:
            self._state_desc = _reducing_descriptor("fire-time", _min)
        return self._state_desc

    _register_timer: Callable[[Trigger.TriggerContext, int], None]
    _delete_timer: Callable[[Trigger.TriggerContext, int], None]

    def _register_first_fire(self, now: int, ctx: Trigger.TriggerContext) -> None:
        """The first fire time: the end of the interval ``now`` falls in."""
        state = ctx.get_partitioned_state(self.state_desc)
        if state.get() is None:
            next_fire = now - _java_rem(now, self.interval) + self.interval
            self._register_timer(ctx, next_fire)
            state.add(next_fire)

    def _fire_if_due(self, time: int, ctx: Trigger.TriggerContext) -> TriggerResult:
        """FIRE at the stored fire time and schedule the next one an interval later."""
        state = ctx.get_partitioned_state(self.state_desc)
        if state.get() == time:
            state.clear()
            state.add(time + self.interval)
            self._register_timer(ctx, time + self.interval)
            return TriggerResult.FIRE
        return TriggerResult.CONTINUE

    def can_merge(self) -> bool:
        return True

    def on_merge(self, window, ctx) -> None:
        ctx.merge_partitioned_state(self.state_desc)
        next_fire = ctx.get_partitioned_state(self.state_desc).get()
        if next_fire is not None:
            self._register_timer(ctx, next_fire)

    def clear(self, window, ctx) -> None:
        state = ctx.get_partitioned_state(self.state_desc)
        timestamp = state.get()
        if timestamp is not None:
            self._delete_timer(ctx, timestamp)
            state.clear()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.interval})"


class ContinuousEventTimeTrigger(_EventTimeTimers, _ContinuousTrigger):
    """Fires every ``interval`` of event time and at the window end.

    Flink 1.11's ``ContinuousEventTimeTrigger``.
    """

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        self._register_first_fire(timestamp, ctx)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        return self._fire_if_due(time, ctx)

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE


class ContinuousProcessingTimeTrigger(_ProcessingTimeTimers, _ContinuousTrigger):
    """Fires every ``interval`` of processing time (Flink's ``ContinuousProcessingTimeTrigger``)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        self._register_first_fire(ctx.get_current_processing_time(), ctx)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return self._fire_if_due(time, ctx)


# ---------------------------------------------------------------------------------------------
# Window assigners
# ---------------------------------------------------------------------------------------------
class WindowAssigner(ABC):
    """Assigns zero or more windows to an element (Flink's ``WindowAssigner``)."""

    class WindowAssignerContext(ABC):
        """Gives an assigner the current processing time (``WindowAssignerContext``)."""

        @abstractmethod
        def get_current_processing_time(self) -> int: ...

    @abstractmethod
    def assign_windows(
        self, element: Any, timestamp: int | None, context: WindowAssigner.WindowAssignerContext
    ) -> Collection[Window]: ...

    @abstractmethod
    def get_default_trigger(self, env: Any = None) -> Trigger: ...

    @abstractmethod
    def is_event_time(self) -> bool: ...


class MergingWindowAssigner(WindowAssigner):
    """A window assigner whose windows can merge (Flink's ``MergingWindowAssigner``)."""

    class MergeCallback(ABC):
        """Receives the groups of windows to merge (``MergingWindowAssigner.MergeCallback``)."""

        @abstractmethod
        def merge(self, to_be_merged: Collection[Window], merge_result: Window) -> None: ...

    @abstractmethod
    def merge_windows(
        self, windows: Iterable[Window], callback: MergingWindowAssigner.MergeCallback
    ) -> None: ...


def _event_timestamp(timestamp: int | None) -> int:
    if timestamp is None or timestamp <= MIN_LONG_VALUE:
        raise RuntimeError(NO_TIMESTAMP_MESSAGE)
    return timestamp


class _EventTimeAssigner:
    """Assigns by the element's timestamp; default trigger ``EventTimeTrigger``."""

    def _assignment_time(self, timestamp: int | None, context: Any) -> int:
        return _event_timestamp(timestamp)

    def get_default_trigger(self, env: Any = None) -> Trigger:
        return EventTimeTrigger.create()

    def is_event_time(self) -> bool:
        return True


class _ProcessingTimeAssigner:
    """Assigns by the operator's processing time; default trigger ``ProcessingTimeTrigger``."""

    def _assignment_time(self, timestamp: int | None, context: Any) -> int:
        return context.get_current_processing_time()

    def get_default_trigger(self, env: Any = None) -> Trigger:
        return ProcessingTimeTrigger.create()

    def is_event_time(self) -> bool:
        return False


class _TumblingTimeWindows(WindowAssigner):
    """Tumbling windows of ``size`` ms shifted by ``offset`` (event or processing time)."""

    _assignment_time: Callable[[int | None, Any], int]

    def __init__(self, size: int, offset: int = 0) -> None:
        if abs(offset) >= size:
            raise IllegalArgumentException(
                f"{type(self).__name__} parameters must satisfy abs(offset) < size"
            )
        self.size = size
        self.offset = offset

    @classmethod
    def of(cls, size: Any, offset: Any = None) -> Any:
        return cls(to_millis(size, "size"), to_millis(offset or 0, "offset"))

    def assign_windows(self, element, timestamp, context) -> list[TimeWindow]:
        now = self._assignment_time(timestamp, context)
        start = TimeWindow.get_window_start_with_offset(now, self.offset, self.size)
        return [TimeWindow(start, start + self.size)]

    def get_size(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size})"


class TumblingEventTimeWindows(_EventTimeAssigner, _TumblingTimeWindows):
    """Non-overlapping event-time windows of fixed size (Flink's ``TumblingEventTimeWindows``)."""


class TumblingProcessingTimeWindows(_ProcessingTimeAssigner, _TumblingTimeWindows):
    """Non-overlapping processing-time windows (Flink's ``TumblingProcessingTimeWindows``)."""


class _SlidingTimeWindows(WindowAssigner):
    """Windows of ``size`` ms every ``slide`` ms, shifted by ``offset``."""

    _assignment_time: Callable[[int | None, Any], int]

    def __init__(self, size: int, slide: int, offset: int = 0) -> None:
        if abs(offset) >= slide or size <= 0:
            raise IllegalArgumentException(
                f"{type(self).__name__} parameters must satisfy abs(offset) < slide and size > 0"
            )
        self.size = size
        self.slide = slide
        self.offset = offset

    @classmethod
    def of(cls, size: Any, slide: Any, offset: Any = None) -> Any:
        return cls(
            to_millis(size, "size"), to_millis(slide, "slide"), to_millis(offset or 0, "offset")
        )

    def assign_windows(self, element, timestamp, context) -> list[TimeWindow]:
        """``[start, start+size)`` for start = last start, last start − slide, … > t − size."""
        now = self._assignment_time(timestamp, context)
        windows = []
        start = TimeWindow.get_window_start_with_offset(now, self.offset, self.slide)
        while start > now - self.size:
            windows.append(TimeWindow(start, start + self.size))
            start -= self.slide
        return windows

    def get_size(self) -> int:
        return self.size

    def get_slide(self) -> int:
        return self.slide

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size}, {self.slide})"


class SlidingEventTimeWindows(_EventTimeAssigner, _SlidingTimeWindows):
    """Overlapping event-time windows (Flink's ``SlidingEventTimeWindows``)."""


class SlidingProcessingTimeWindows(_ProcessingTimeAssigner, _SlidingTimeWindows):
    """Overlapping processing-time windows (Flink's ``SlidingProcessingTimeWindows``)."""


class _SessionWindows(MergingWindowAssigner):
    """Sessions split by a fixed gap of inactivity (``session_timeout`` ms)."""

    _assignment_time: Callable[[int | None, Any], int]

    def __init__(self, session_gap: int) -> None:
        if session_gap <= 0:
            raise IllegalArgumentException(
                f"{type(self).__name__} parameters must satisfy 0 < size"
            )
        self.session_timeout = session_gap  # Flink's field name

    @classmethod
    def with_gap(cls, size: Any) -> Any:
        return cls(to_millis(size, "session gap"))

    def assign_windows(self, element, timestamp, context) -> list[TimeWindow]:
        start = self._assignment_time(timestamp, context)
        return [TimeWindow(start, start + self.session_timeout)]

    def merge_windows(self, windows, callback) -> None:
        TimeWindow.merge_windows(windows, callback)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.session_timeout})"


class SessionWindowTimeGapExtractor(ABC):
    """Extracts a per-element session gap in ms (Flink's ``SessionWindowTimeGapExtractor``)."""

    @abstractmethod
    def extract(self, element: Any) -> int: ...


class _DynamicSessionWindows(MergingWindowAssigner):
    """Sessions whose gap the extractor gives per element."""

    _assignment_time: Callable[[int | None, Any], int]

    def __init__(self, session_window_time_gap_extractor: Any) -> None:
        self.session_window_time_gap_extractor = session_window_time_gap_extractor

    @classmethod
    def with_dynamic_gap(cls, extractor: Any) -> Any:
        return cls(extractor)

    def assign_windows(self, element, timestamp, context) -> list[TimeWindow]:
        start = self._assignment_time(timestamp, context)
        extractor = self.session_window_time_gap_extractor
        gap = extractor.extract(element) if hasattr(extractor, "extract") else extractor(element)
        if gap <= 0:
            raise IllegalArgumentException(
                f"Dynamic session time gap must satisfy 0 < gap ({self!r}), got {gap}."
            )
        return [TimeWindow(start, start + gap)]

    def merge_windows(self, windows, callback) -> None:
        TimeWindow.merge_windows(windows, callback)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class DynamicEventTimeSessionWindows(_EventTimeAssigner, _DynamicSessionWindows):
    """Event-time sessions with a gap per element (Flink's ``DynamicEventTimeSessionWindows``)."""


class DynamicProcessingTimeSessionWindows(_ProcessingTimeAssigner, _DynamicSessionWindows):
    """Processing-time sessions with a gap per element (``DynamicProcessingTimeSessionWindows``)."""


class EventTimeSessionWindows(_EventTimeAssigner, _SessionWindows):
    """Event-time sessions split by a gap of inactivity (Flink's ``EventTimeSessionWindows``)."""

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicEventTimeSessionWindows:
        return DynamicEventTimeSessionWindows(extractor)


class ProcessingTimeSessionWindows(_ProcessingTimeAssigner, _SessionWindows):
    """Processing-time sessions (Flink's ``ProcessingTimeSessionWindows``)."""

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicProcessingTimeSessionWindows:
        return DynamicProcessingTimeSessionWindows(extractor)


class GlobalWindows(WindowAssigner):
    """Puts every element into the one ``GlobalWindow`` (Flink's ``GlobalWindows``)."""

    @staticmethod
    def create() -> GlobalWindows:
        return GlobalWindows()

    def assign_windows(self, element, timestamp, context) -> list[GlobalWindow]:
        return [GlobalWindow.get()]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        return NeverTrigger()

    def is_event_time(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "GlobalWindows()"


# ---------------------------------------------------------------------------------------------
# Evictors
# ---------------------------------------------------------------------------------------------
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
