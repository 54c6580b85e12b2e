"""Triggers and ``TriggerResult`` (PyFlink's ``pyflink.datastream.window``).

Flink 1.11's ``org.apache.flink.streaming.api.windowing.triggers``; ``str()`` is Flink's ``toString()``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from enum import Enum
from typing import Any, Generic, TypeVar

from pyflowkit.datastream.functions import ReduceFunction
from pyflowkit.datastream.window._common import (
    _java_rem,
    to_millis,
)
from pyflowkit.datastream.window.windows import CountWindow, GlobalWindow, TimeWindow, Window
from pyflowkit.errors import IllegalArgumentException

T = TypeVar("T")
W = TypeVar("W")


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


class Trigger(ABC, Generic[T, W]):
    """Decides when a pane is evaluated (Flink's ``Trigger``); state lives in the context."""

    class TriggerContext(ABC):
        """Timers and partitioned state for one key and window (``Trigger.TriggerContext``)."""

        @abstractmethod
        def get_current_processing_time(self) -> int: ...

        @abstractmethod
        def get_metric_group(self) -> Any:
            """The operator's metric group, as a user function's ``RuntimeContext`` gives it."""

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


class _WindowEndTrigger(Trigger[T, TimeWindow]):
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


class EventTimeTrigger(_EventTimeTimers, _WindowEndTrigger[T]):
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


class ProcessingTimeTrigger(_ProcessingTimeTimers, _WindowEndTrigger[T]):
    """Fires when processing time passes the window's end (Flink's ``ProcessingTimeTrigger``)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        ctx.register_processing_time_timer(window.max_timestamp())
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.FIRE


class NeverTrigger(Trigger[T, GlobalWindow]):
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


class Min(ReduceFunction):
    """The smaller of two values: the reducer of a continuous trigger's ``fire-time`` state.

    Mirrors PyFlink's ``pyflink.datastream.window.Min`` (Flink's ``ContinuousEventTimeTrigger.Min``)."""

    def reduce(self, value1: Any, value2: Any) -> Any:
        return min(value1, value2)


def _reducing_descriptor(name: str, reduce_function: Callable[[Any, Any], Any]) -> Any:
    """A ``ReducingStateDescriptor`` of longs, as Flink's triggers declare their state."""
    from pyflowkit.datastream.state import ReducingStateDescriptor

    try:
        from pyflowkit.common import Types

        long_type = Types.LONG()
    except ImportError:  # pragma: no cover - the common package always provides Types
        long_type = None
    return ReducingStateDescriptor(name, reduce_function, long_type)


class CountTrigger(Trigger[T, CountWindow]):
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


class PurgingTrigger(Trigger[T, Window]):
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


class _ContinuousTrigger(Trigger[T, TimeWindow]):
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
            self._state_desc = _reducing_descriptor("fire-time", Min())
        return self._state_desc

    _register_timer: Callable[[Trigger.TriggerContext, int], None]
    _delete_timer: Callable[[Trigger.TriggerContext, int], None]

    def register_next_fire_timestamp(
        self, time: int, window: TimeWindow, ctx: Trigger.TriggerContext, fire_timestamp_state: Any
    ) -> None:
        """The next fire an interval after ``time``: stored in ``fire_timestamp_state`` and
        registered as a timer. The cap is the job's version profile (the window operator's
        context hands it over as ``continuous_trigger_fire``): 1.11 does not cap the next fire at
        the window's end, so event-time firing goes on through allowed lateness and a
        processing-time window does not fire at its end; 1.15+ (FLINK-20443) registers
        ``min(time + interval, window.maxTimestamp())``. A context without the rule is 1.11."""
        next_fire = time + self.interval
        rule = getattr(ctx, "continuous_trigger_fire", None)
        if rule is not None:
            next_fire = rule.next_fire(next_fire, window.max_timestamp())
        fire_timestamp_state.add(next_fire)
        self._register_timer(ctx, next_fire)

    def _register_first_fire(
        self, now: int, window: TimeWindow, ctx: Trigger.TriggerContext
    ) -> None:
        """The first fire time: the end of the interval ``now`` falls in."""
        state = ctx.get_partitioned_state(self.state_desc)
        if state.get() is None:
            start = now - _java_rem(now, self.interval)
            self.register_next_fire_timestamp(start, window, ctx, state)

    def _fire_if_due(
        self, time: int, window: TimeWindow, ctx: Trigger.TriggerContext
    ) -> TriggerResult:
        """FIRE at the stored fire time and schedule the next one."""
        state = ctx.get_partitioned_state(self.state_desc)
        if state.get() == time:
            state.clear()
            self.register_next_fire_timestamp(time, window, ctx, state)
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


class ContinuousEventTimeTrigger(_EventTimeTimers, _ContinuousTrigger[T]):
    """Fires every ``interval`` of event time and at the window end.

    Flink 1.11's ``ContinuousEventTimeTrigger``.
    """

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        if window.max_timestamp() <= ctx.get_current_watermark():
            return TriggerResult.FIRE
        ctx.register_event_time_timer(window.max_timestamp())
        self._register_first_fire(timestamp, window, ctx)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        if time == window.max_timestamp():
            return TriggerResult.FIRE
        return self._fire_if_due(time, window, ctx)

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE


class ContinuousProcessingTimeTrigger(_ProcessingTimeTimers, _ContinuousTrigger[T]):
    """Fires every ``interval`` of processing time (Flink's ``ContinuousProcessingTimeTrigger``)."""

    def on_element(self, element, timestamp, window, ctx) -> TriggerResult:
        self._register_first_fire(ctx.get_current_processing_time(), window, ctx)
        return TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx) -> TriggerResult:
        return self._fire_if_due(time, window, ctx)
