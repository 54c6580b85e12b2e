"""The contexts and timer services process functions see (Flink's ``ProcessOperator.ContextImpl``,
``KeyedProcessOperator.ContextImpl``/``OnTimerContextImpl`` and ``SimpleTimerService``)."""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.functions import (
    KeyedProcessFunction,
    ProcessFunction,
    TimeDomain,
    TimerService,
)
from pyflowkit.errors import UnsupportedOperationException
from pyflowkit.state.time import VOID_NAMESPACE

_NO_TIMERS = "Setting timers is only supported on a keyed streams."


def is_output_tag(obj: Any) -> bool:
    """True for a ``pyflowkit.datastream.OutputTag`` (imported lazily, once: API layer)."""
    if not _OUTPUT_TAG:
        from pyflowkit.datastream.output_tag import OutputTag

        _OUTPUT_TAG.append(OutputTag)
    return isinstance(obj, _OUTPUT_TAG[0])


_OUTPUT_TAG: list[type] = []  # the OutputTag class once imported


class NonKeyedTimerService(TimerService):
    """``ProcessOperator.ContextImpl``'s timer service: clocks only; timers need a keyed stream."""

    def __init__(self, operator: Any) -> None:
        self.operator = operator

    def current_processing_time(self) -> int:
        return self.operator.get_processing_time()

    def current_watermark(self) -> int:
        return self.operator.current_watermark

    def register_processing_time_timer(self, timestamp: int) -> None:
        raise UnsupportedOperationException(_NO_TIMERS)

    def register_event_time_timer(self, timestamp: int) -> None:
        raise UnsupportedOperationException(_NO_TIMERS)

    def delete_processing_time_timer(self, timestamp: int) -> None:
        raise UnsupportedOperationException(_NO_TIMERS)

    def delete_event_time_timer(self, timestamp: int) -> None:
        raise UnsupportedOperationException(_NO_TIMERS)


class SimpleTimerService(TimerService):
    """Flink's ``SimpleTimerService``: the user's view of an ``InternalTimerService``."""

    def __init__(self, internal: Any) -> None:
        self.internal = internal

    def current_processing_time(self) -> int:
        return self.internal.current_processing_time()

    def current_watermark(self) -> int:
        return self.internal.current_watermark()

    def register_processing_time_timer(self, timestamp: int) -> None:
        self.internal.register_processing_time_timer(VOID_NAMESPACE, timestamp)

    def register_event_time_timer(self, timestamp: int) -> None:
        self.internal.register_event_time_timer(VOID_NAMESPACE, timestamp)

    def delete_processing_time_timer(self, timestamp: int) -> None:
        self.internal.delete_processing_time_timer(VOID_NAMESPACE, timestamp)

    def delete_event_time_timer(self, timestamp: int) -> None:
        self.internal.delete_event_time_timer(VOID_NAMESPACE, timestamp)


class ProcessContext(ProcessFunction.Context):
    """``ProcessOperator.ContextImpl``: the current record's timestamp and the timer service."""

    def __init__(self, timer_service: TimerService) -> None:
        self._timer_service = timer_service
        self.current_timestamp: int | None = None

    def timer_service(self) -> TimerService:
        return self._timer_service

    def timestamp(self) -> int | None:
        return self.current_timestamp


class KeyedProcessContext(KeyedProcessFunction.OnTimerContext):
    """``KeyedProcessOperator.ContextImpl``/``OnTimerContextImpl`` (one object, reused)."""

    def __init__(self, timer_service: TimerService, key_context: Any) -> None:
        self._timer_service = timer_service
        self._key_context = key_context
        self.current_timestamp: int | None = None
        self.current_time_domain: TimeDomain | None = None

    def timer_service(self) -> TimerService:
        return self._timer_service

    def timestamp(self) -> int | None:
        return self.current_timestamp

    def get_current_key(self) -> Any:
        return self._key_context.current_key

    def time_domain(self) -> TimeDomain:
        if self.current_time_domain is None:
            raise UnsupportedOperationException(
                "time_domain() is only available in on_timer (OnTimerContext)."
            )
        return self.current_time_domain
