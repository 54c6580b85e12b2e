"""Window assigners (PyFlink's ``pyflink.datastream.window``).

Flink 1.11's ``org.apache.flink.streaming.api.windowing.assigners``; ``str()`` is Flink's ``toString()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable
from typing import Any, Generic, TypeVar

from pyflowkit.common.serializer import TypeSerializer
from pyflowkit.common.typeinfo import Types
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.datastream.window._common import (
    MIN_LONG_VALUE,
    NO_TIMESTAMP_MESSAGE,
    to_millis,
)
from pyflowkit.datastream.window.serializers import (
    CountWindowSerializer,
    GlobalWindowSerializer,
    TimeWindowSerializer,
)
from pyflowkit.datastream.window.triggers import (
    CountTrigger,
    EventTimeTrigger,
    NeverTrigger,
    ProcessingTimeTrigger,
    Trigger,
)
from pyflowkit.datastream.window.windows import CountWindow, GlobalWindow, TimeWindow, Window
from pyflowkit.errors import IllegalArgumentException

T = TypeVar("T")
W = TypeVar("W")
W2 = TypeVar("W2")


class WindowAssigner(ABC, Generic[T, W]):
    """Assigns zero or more windows to an element (Flink's ``WindowAssigner``)."""

    class WindowAssignerContext(ABC):
        """Gives an assigner the current processing time (``WindowAssignerContext``)."""

        @abstractmethod
        def get_current_processing_time(self) -> int: ...

        @abstractmethod
        def get_runtime_context(self) -> Any:
            """The operator's ``RuntimeContext`` (keyed state of the current key)."""

    @abstractmethod
    def assign_windows(
        self, element: Any, timestamp: int | None, context: WindowAssigner.WindowAssignerContext
    ) -> Collection[Window]: ...

    @abstractmethod
    def get_default_trigger(self, env: Any = None) -> Trigger: ...

    @abstractmethod
    def is_event_time(self) -> bool: ...

    @abstractmethod
    def get_window_serializer(self) -> TypeSerializer:
        """The serializer of this assigner's windows (PyFlink's ``get_window_serializer``)."""


class MergingWindowAssigner(WindowAssigner[T, W]):
    """A window assigner whose windows can merge (Flink's ``MergingWindowAssigner``)."""

    class MergeCallback(ABC, Generic[W2]):
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


class _TumblingTimeWindows(WindowAssigner[T, TimeWindow]):
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

    def get_window_serializer(self) -> TypeSerializer:
        return TimeWindowSerializer()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size})"


class TumblingEventTimeWindows(_EventTimeAssigner, _TumblingTimeWindows[T]):
    """Non-overlapping event-time windows of fixed size (Flink's ``TumblingEventTimeWindows``)."""


class TumblingProcessingTimeWindows(_ProcessingTimeAssigner, _TumblingTimeWindows[T]):
    """Non-overlapping processing-time windows (Flink's ``TumblingProcessingTimeWindows``)."""


class _SlidingTimeWindows(WindowAssigner[T, TimeWindow]):
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

    def get_window_serializer(self) -> TypeSerializer:
        return TimeWindowSerializer()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.size}, {self.slide})"


class SlidingEventTimeWindows(_EventTimeAssigner, _SlidingTimeWindows[T]):
    """Overlapping event-time windows (Flink's ``SlidingEventTimeWindows``)."""


class SlidingProcessingTimeWindows(_ProcessingTimeAssigner, _SlidingTimeWindows[T]):
    """Overlapping processing-time windows (Flink's ``SlidingProcessingTimeWindows``)."""


class _SessionWindows(MergingWindowAssigner[T, TimeWindow]):
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

    def get_window_serializer(self) -> TypeSerializer:
        return TimeWindowSerializer()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.session_timeout})"


class SessionWindowTimeGapExtractor(ABC):
    """Extracts a per-element session gap in ms (Flink's ``SessionWindowTimeGapExtractor``)."""

    @abstractmethod
    def extract(self, element: Any) -> int: ...


class _DynamicSessionWindows(MergingWindowAssigner[T, TimeWindow]):
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

    def get_window_serializer(self) -> TypeSerializer:
        return TimeWindowSerializer()

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class DynamicEventTimeSessionWindows(_EventTimeAssigner, _DynamicSessionWindows[T]):
    """Event-time sessions with a gap per element (Flink's ``DynamicEventTimeSessionWindows``)."""


class DynamicProcessingTimeSessionWindows(_ProcessingTimeAssigner, _DynamicSessionWindows[T]):
    """Processing-time sessions with a gap per element (``DynamicProcessingTimeSessionWindows``)."""


class EventTimeSessionWindows(_EventTimeAssigner, _SessionWindows[T]):
    """Event-time sessions split by a gap of inactivity (Flink's ``EventTimeSessionWindows``)."""

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicEventTimeSessionWindows:
        return DynamicEventTimeSessionWindows(extractor)


class ProcessingTimeSessionWindows(_ProcessingTimeAssigner, _SessionWindows[T]):
    """Processing-time sessions (Flink's ``ProcessingTimeSessionWindows``)."""

    @staticmethod
    def with_dynamic_gap(extractor: Any) -> DynamicProcessingTimeSessionWindows:
        return DynamicProcessingTimeSessionWindows(extractor)


class GlobalWindows(WindowAssigner[T, GlobalWindow]):
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

    def get_window_serializer(self) -> TypeSerializer:
        return GlobalWindowSerializer()

    def __repr__(self) -> str:
        return "GlobalWindows()"


def _positive_count(assigner: str, what: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise IllegalArgumentException(f"{assigner}: {what} must be an int >= 1, got {value!r}.")
    return value


def _next_count(context: Any, descriptor: Any) -> int:
    """This key's element count before the current element; counts the element (keyed state)."""
    count_state = context.get_runtime_context().get_state(descriptor)
    current = count_state.value() or 0
    count_state.update(current + 1)
    return current


def _count_descriptor(name: str) -> ValueStateDescriptor:
    return ValueStateDescriptor(name, Types.LONG())


class CountTumblingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Element n (0-based, per key) goes to ``CountWindow(n // window_size)``; fires when full.

    Mirrors PyFlink's ``CountTumblingWindowAssigner`` (count kept in keyed ValueState
    'tumble-count-assigner', so it is checkpointed with the key)."""

    def __init__(self, window_size: int) -> None:
        self._window_size = _positive_count(
            "CountTumblingWindowAssigner", "window_size", window_size
        )
        self._count_descriptor = _count_descriptor("tumble-count-assigner")

    @staticmethod
    def of(window_size: int) -> CountTumblingWindowAssigner:
        return CountTumblingWindowAssigner(window_size)

    def assign_windows(self, element, timestamp, context) -> list[CountWindow]:
        return [CountWindow(_next_count(context, self._count_descriptor) // self._window_size)]

    def get_default_trigger(self, env: Any = None) -> Trigger:
        return CountTrigger(self._window_size)

    def is_event_time(self) -> bool:
        return False

    def get_window_serializer(self) -> TypeSerializer:
        return CountWindowSerializer()

    def __repr__(self) -> str:
        return f"CountTumblingWindowAssigner({self._window_size})"


class CountSlidingWindowAssigner(WindowAssigner[T, CountWindow]):
    """Window i holds elements ``[i*slide, i*slide + size)`` of its key; fires when it holds size.

    Mirrors PyFlink's ``CountSlidingWindowAssigner`` (count in keyed ValueState
    'slide-count-assigner'; default trigger ``CountTrigger(window_size)``)."""

    def __init__(self, window_size: int, window_slide: int) -> None:
        name = "CountSlidingWindowAssigner"
        self._window_size = _positive_count(name, "window_size", window_size)
        self._window_slide = _positive_count(name, "window_slide", window_slide)
        self._count_descriptor = _count_descriptor("slide-count-assigner")

    @staticmethod
    def of(window_size: int, window_slide: int) -> CountSlidingWindowAssigner:
        return CountSlidingWindowAssigner(window_size, window_slide)

    def assign_windows(self, element, timestamp, context) -> list[CountWindow]:
        current = _next_count(context, self._count_descriptor)
        size, slide = self._window_size, self._window_slide
        windows = []
        window_id = current // slide  # newest first: each id whose [id*slide, id*slide+size-1]
        while window_id >= 0 and window_id * slide + size - 1 >= current:  # holds `current`
            windows.append(CountWindow(window_id))
            window_id -= 1
        return windows

    def get_default_trigger(self, env: Any = None) -> Trigger:
        return CountTrigger(self._window_size)

    def is_event_time(self) -> bool:
        return False

    def get_window_serializer(self) -> TypeSerializer:
        return CountWindowSerializer()

    def __repr__(self) -> str:
        return f"CountSlidingWindowAssigner({self._window_size}, {self._window_slide})"
