"""``register_next_fire_timestamp`` of the continuous triggers (PyFlink 1.20's name) with Flink
1.11's rule: the next fire is an interval later and not capped at the window's end (the cap came
with FLINK-20443 in 1.15), so event-time firing goes on through allowed lateness and a
processing-time window does not fire at its end."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.datastream.window import (
    ContinuousEventTimeTrigger,
    ContinuousProcessingTimeTrigger,
    TimeWindow,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from tests.windows.harness import WindowHarness

pytestmark = pytest.mark.flink_version("1.11")  # the rule before FLINK-20443 (1.15)


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


def test_next_fire_is_an_interval_later_and_not_capped_at_the_window_end() -> None:
    window = TimeWindow(0, 100)
    trigger, state, ctx = ContinuousEventTimeTrigger.of(30), _State(), _Ctx()
    trigger.register_next_fire_timestamp(30, window, ctx, state)
    trigger.register_next_fire_timestamp(90, window, ctx, state)
    assert state.values == ctx.event_timers == [60, 120]
    trigger = ContinuousProcessingTimeTrigger.of(30)
    state, ctx = _State(), _Ctx()
    trigger.register_next_fire_timestamp(80, window, ctx, state)
    assert state.values == ctx.processing_timers == [110] and ctx.event_timers == []


def test_event_time_firing_goes_on_through_allowed_lateness() -> None:
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
    h.watermark(250)  # 1.11 goes on firing at 120, 150, 180, 210, 240 until the cleanup at 299
    assert len(h.records) == 9
    h.element(("a", 2), 50)  # a late element in the lateness fires at once
    assert h.values[-1] == ("a", 3)


def test_a_processing_time_window_does_not_fire_at_its_end() -> None:
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
    h.set_processing_time(150)  # the next fire (120) is after the cleanup at 99: nothing more
    assert h.values == [("a", 1)] * 3
