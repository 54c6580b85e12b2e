"""Process operators: Flink's ``ProcessOperator`` and ``KeyedProcessOperator``.

Functions yield outputs (PyFlink's convention); a yielded ``(OutputTag, value)`` goes to that side
output. Outputs carry the input record's timestamp; from ``on_timer`` the timer's timestamp for
event time and none for processing time (Flink's ``TimestampedCollector``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pyflowkit.datastream.functions import TimeDomain, resolve_method
from pyflowkit.operators.base import AbstractUdfStreamOperator, split_process_output
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.process_contexts import (
    KeyedProcessContext,
    NonKeyedTimerService,
    ProcessContext,
    SimpleTimerService,
    is_output_tag,
)
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.timer_service import InternalTimer

USER_TIMERS = "user-timers"  # Flink's timer service name for process functions


class OnTimerTriggerable:
    """The ``Triggerable`` side of Flink's ``KeyedProcessOperator``/``KeyedCoProcessOperator``:
    a timer calls the user's ``on_timer(timestamp, ctx)`` with the time domain set."""

    _on_timer: Any
    _ctx: Any
    output: Any

    def _fire(self, timer: InternalTimer, domain: TimeDomain, timestamp: int | None) -> None:
        if self._on_timer is None:
            return
        ctx = self._ctx
        ctx.current_timestamp = timer.timestamp  # type: ignore[union-attr]
        ctx.current_time_domain = domain  # type: ignore[union-attr]
        result = self._on_timer(timer.timestamp, ctx)
        split_process_output(result, self.output, timestamp, is_output_tag)  # type: ignore[arg-type]
        ctx.current_time_domain = None  # type: ignore[union-attr]

    def on_event_time(self, timer: InternalTimer) -> None:
        self._fire(timer, TimeDomain.EVENT_TIME, timer.timestamp)

    def on_processing_time(self, timer: InternalTimer) -> None:
        self._fire(timer, TimeDomain.PROCESSING_TIME, None)


class ProcessOperator(AbstractUdfStreamOperator):
    """Flink's ``ProcessOperator``: ``ProcessFunction.process_element(value, ctx)``."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._process = resolve_method(function, "process_element", "ProcessFunction", "Process")
        self._ctx: ProcessContext | None = None

    def open(self) -> None:
        super().open()
        self._ctx = ProcessContext(NonKeyedTimerService(self))

    def process_element(self, value: Any, timestamp: int | None) -> None:
        ctx = self._ctx
        ctx.current_timestamp = timestamp  # type: ignore[union-attr]
        split_process_output(self._process(value, ctx), self.output, timestamp, is_output_tag)  # type: ignore[arg-type]


class KeyedProcessOperator(OnTimerTriggerable, AbstractUdfStreamOperator):
    """Flink's ``KeyedProcessOperator``: keyed state, event/processing-time timers, ``on_timer``."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._process = resolve_method(
            function, "process_element", "KeyedProcessFunction", "KeyedProcess"
        )
        self._on_timer = getattr(function, "on_timer", None)
        self._ctx: KeyedProcessContext | None = None

    def open(self) -> None:
        super().open()
        internal = self.get_internal_timer_service(USER_TIMERS, self)
        self._ctx = KeyedProcessContext(SimpleTimerService(internal), self.keyed_state_backend)

    def process_element(self, value: Any, timestamp: int | None) -> None:
        ctx = self._ctx
        ctx.current_timestamp = timestamp  # type: ignore[union-attr]
        ctx.current_time_domain = None  # type: ignore[union-attr]
        split_process_output(self._process(value, ctx), self.output, timestamp, is_output_tag)  # type: ignore[arg-type]


register_operator("ProcessOperator", ProcessOperator)
register_operator("KeyedProcessOperator", KeyedProcessOperator)
