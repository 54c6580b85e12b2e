"""PyFlink 1.20's ``register_next_fire_timestamp`` of the continuous triggers: the next fire is an
interval later but never after the window's end, so firing stops at the end even with allowed
lateness (event time), and a processing-time window fires once more at its end."""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.window import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    TimeWindow,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from tests.windows.harness import WindowHarness


def add_pairs(a: Any, b: Any) -> Any:
    return (a[0], a[1] + b[1])


class _State:
    def __init__(self) -> None:
        self.values: list[int] = []

    def add(self, value: int) -> None:
        self.values.append(value)


class _Ctx:
    def __init__(self) -> None:
        self.event_timers: list[int] = []
        self.processing_timers: list[int] = []

    def register_event_time_timer(self, time: int) -> None:
        self.event_timers.append(time)

    def register_processing_time_timer(self, time: int) -> None:
        self.processing_timers.append(time)


def test_next_fire_is_an_interval_later_capped_at_the_window_end() -> None:
    window = TimeWindow(0, 100)
    trigger, state, ctx = ContinuousEventTimeTrigger.of(30), _State(), _Ctx()
    trigger.register_next_fire_timestamp(30, window, ctx, state)
    trigger.register_next_fire_timestamp(90, window, ctx, state)
    assert state.values == ctx.event_timers == [60, 99]
    trigger = ContinuousProcessingTimeTrigger.of(30)
    state, ctx = _State(), _Ctx()
    trigger.register_next_fire_timestamp(80, window, ctx, state)
    assert state.values == ctx.processing_timers == [99] and ctx.event_timers == []


def test_event_time_firing_stops_at_the_window_end_despite_allowed_lateness() -> None:
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(100),
        trigger=ContinuousEventTimeTrigger.of(30),
        function=add_pairs,
        window_function_kind="reduce",
        allowed_lateness=200,
    )
    h.element(("a", 1), 5)
    h.watermark(99)
    assert [ts for _, ts in h.records] == [99, 99, 99, 99]  # fires at 30, 60, 90 and the end
    h.watermark(250)  # Flink 1.11 went on firing at 120, 150, … until the cleanup at 299
    assert len(h.records) == 4
    h.element(("a", 2), 50)  # a late element in the lateness fires at once
    assert h.values[-1] == ("a", 3)


def test_a_processing_time_window_fires_at_its_end_too() -> None:
    h = WindowHarness(
        window_assigner=TumblingProcessingTimeWindows.of(100),
        trigger=ContinuousProcessingTimeTrigger.of(30),
        function=add_pairs,
        window_function_kind="reduce",
    )
    h.set_processing_time(5)
    h.element(("a", 1))
    h.set_processing_time(95)
    assert h.values == [("a", 1)] * 3  # 30, 60, 90
    h.element(("a", 2))
    h.set_processing_time(99)  # capped next fire (not 120): the final state is emitted
    assert h.values[-1] == ("a", 3)
