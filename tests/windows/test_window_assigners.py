"""Window assigners, windows and evictors: Flink 1.11's assignment rules and toString()s."""

from __future__ import annotations

import datetime

import pytest

from pyflowkit.datastream.window import (
    NO_TIMESTAMP_MESSAGE,
    CountEvictor,
    CountWindow,
    EventTimeSessionWindows,
    EventTimeTrigger,
    GlobalWindow,
    GlobalWindows,
    MergingWindowAssigner,
    NeverTrigger,
    ProcessingTimeSessionWindows,
    ProcessingTimeTrigger,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TimeEvictor,
    TimestampedValue,
    TimeWindow,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from pyflowkit.errors import IllegalArgumentException


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def get_current_processing_time(self) -> int:
        return self.now


class Collect(MergingWindowAssigner.MergeCallback):
    def __init__(self) -> None:
        self.merges: list[tuple[list[TimeWindow], TimeWindow]] = []

    def merge(self, to_be_merged, merge_result) -> None:
        self.merges.append((sorted(to_be_merged), merge_result))


def test_to_string_matches_flink():
    assert str(TumblingEventTimeWindows.of(5000)) == "TumblingEventTimeWindows(5000)"
    assert str(SlidingEventTimeWindows.of(10000, 5000)) == "SlidingEventTimeWindows(10000, 5000)"
    assert str(TumblingProcessingTimeWindows.of(3)) == "TumblingProcessingTimeWindows(3)"
    assert str(SlidingProcessingTimeWindows.of(4, 2)) == "SlidingProcessingTimeWindows(4, 2)"
    assert str(EventTimeSessionWindows.with_gap(7)) == "EventTimeSessionWindows(7)"
    assert str(ProcessingTimeSessionWindows.with_gap(7)) == "ProcessingTimeSessionWindows(7)"
    assert str(GlobalWindows.create()) == "GlobalWindows()"
    assert str(TimeWindow(0, 5)) == "TimeWindow{start=0, end=5}"
    assert str(GlobalWindow.get()) == "GlobalWindow"


def test_time_like_sizes_are_converted_to_millis():
    class FakeTime:
        def to_milliseconds(self) -> int:
            return 5000

    assert TumblingEventTimeWindows.of(FakeTime()).size == 5000
    assert TumblingEventTimeWindows.of(datetime.timedelta(seconds=2)).size == 2000
    with pytest.raises(IllegalArgumentException, match="size must be a Time"):
        TumblingEventTimeWindows.of("5s")


def test_time_window_basics():
    w = TimeWindow(0, 5000)
    assert w.max_timestamp() == 4999
    assert w.intersects(TimeWindow(5000, 6000))  # touching windows intersect (Flink's rule)
    assert not w.intersects(TimeWindow(5001, 6000))
    assert w.cover(TimeWindow(3000, 8000)) == TimeWindow(0, 8000)
    assert TimeWindow(0, 5) == TimeWindow(0, 5) and hash(TimeWindow(0, 5)) == hash(TimeWindow(0, 5))
    assert CountWindow(3) == CountWindow(3) and CountWindow(3) != CountWindow(4)
    assert GlobalWindow() is GlobalWindow.get()
    assert GlobalWindow.get().max_timestamp() == 2**63 - 1


@pytest.mark.parametrize(
    ("ts", "offset", "size", "start"),
    [
        (0, 0, 5, 0),
        (4, 0, 5, 0),
        (5, 0, 5, 5),
        (7, 2, 5, 7),
        (6, 2, 5, 2),
        (-1, 0, 5, -5),
        (-3, 0, 5, -5),
    ],
)
def test_window_start_with_offset_uses_java_remainder(ts, offset, size, start):
    assert TimeWindow.get_window_start_with_offset(ts, offset, size) == start


def test_tumbling_event_time_assignment_and_errors():
    a = TumblingEventTimeWindows.of(5000)
    assert a.assign_windows("x", 4999, None) == [TimeWindow(0, 5000)]
    assert a.assign_windows("x", 5000, None) == [TimeWindow(5000, 10000)]
    assert TumblingEventTimeWindows.of(5000, 1000).assign_windows("x", 500, None) == [
        TimeWindow(-4000, 1000)
    ]
    assert a.is_event_time() and isinstance(a.get_default_trigger(), EventTimeTrigger)
    with pytest.raises(RuntimeError) as e:
        a.assign_windows("x", None, None)
    assert str(e.value) == NO_TIMESTAMP_MESSAGE
    with pytest.raises(IllegalArgumentException) as e2:
        TumblingEventTimeWindows.of(5, 5)
    assert str(e2.value) == "TumblingEventTimeWindows parameters must satisfy abs(offset) < size"


def test_sliding_event_time_assignment_newest_first():
    a = SlidingEventTimeWindows.of(10, 5)
    assert a.assign_windows("x", 7, None) == [TimeWindow(5, 15), TimeWindow(0, 10)]
    assert a.assign_windows("x", 10, None) == [TimeWindow(10, 20), TimeWindow(5, 15)]
    assert len(SlidingEventTimeWindows.of(10, 3).assign_windows("x", 99, None)) == 4  # 99,96,93,90
    with pytest.raises(IllegalArgumentException, match="abs\\(offset\\) < slide and size > 0"):
        SlidingEventTimeWindows.of(0, 5)


def test_processing_time_assigners_use_the_clock_not_the_timestamp():
    clock = Clock(12)
    assert TumblingProcessingTimeWindows.of(5).assign_windows("x", None, clock) == [
        TimeWindow(10, 15)
    ]
    assert SlidingProcessingTimeWindows.of(10, 5).assign_windows("x", 1, clock) == [
        TimeWindow(10, 20),
        TimeWindow(5, 15),
    ]
    assert ProcessingTimeSessionWindows.with_gap(3).assign_windows("x", 999, clock) == [
        TimeWindow(12, 15)
    ]
    assert not TumblingProcessingTimeWindows.of(5).is_event_time()
    assert isinstance(
        SlidingProcessingTimeWindows.of(10, 5).get_default_trigger(), ProcessingTimeTrigger
    )


def test_session_windows_and_merge():
    a = EventTimeSessionWindows.with_gap(10)
    assert a.assign_windows("x", 3, None) == [TimeWindow(3, 13)]
    cb = Collect()
    a.merge_windows(
        [TimeWindow(20, 30), TimeWindow(0, 10), TimeWindow(10, 15), TimeWindow(40, 50)], cb
    )
    assert cb.merges == [([TimeWindow(0, 10), TimeWindow(10, 15)], TimeWindow(0, 15))]
    with pytest.raises(
        IllegalArgumentException, match="EventTimeSessionWindows parameters must satisfy 0 < size"
    ):
        EventTimeSessionWindows.with_gap(0)


def test_global_windows():
    a = GlobalWindows.create()
    assert a.assign_windows("x", None, None) == [GlobalWindow.get()]
    assert isinstance(a.get_default_trigger(), NeverTrigger)
    assert not a.is_event_time()


def test_count_evictor_before_and_after():
    elements = [TimestampedValue(i, i) for i in range(5)]
    CountEvictor.of(2).evict_before(elements, 5, GlobalWindow.get(), None)
    assert [e.value for e in elements] == [3, 4]
    after = CountEvictor.of(2, do_evict_after=True)
    elements = [TimestampedValue(i, i) for i in range(5)]
    after.evict_before(elements, 5, GlobalWindow.get(), None)
    assert len(elements) == 5
    after.evict_after(elements, 5, GlobalWindow.get(), None)
    assert [e.value for e in elements] == [3, 4]


def test_time_evictor_keeps_elements_newer_than_cutoff():
    elements = [TimestampedValue(v, ts) for v, ts in [("a", 1), ("b", 5), ("c", 9), ("d", 7)]]
    TimeEvictor.of(4).evict_before(elements, 4, TimeWindow(0, 10), None)
    assert [e.value for e in elements] == ["c", "d"]  # cutoff 9-4=5: ts <= 5 evicted
    untimed = [TimestampedValue("a"), TimestampedValue("b")]
    TimeEvictor.of(4).evict_before(untimed, 2, GlobalWindow.get(), None)
    assert len(untimed) == 2


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda: TumblingProcessingTimeWindows.of(5, -5),
            "TumblingProcessingTimeWindows parameters must satisfy abs(offset) < size",
        ),
        (
            lambda: SlidingProcessingTimeWindows.of(10, 5, 5),
            "SlidingProcessingTimeWindows parameters must satisfy abs(offset) < slide and size > 0",
        ),
        (
            lambda: ProcessingTimeSessionWindows.with_gap(-1),
            "ProcessingTimeSessionWindows parameters must satisfy 0 < size",
        ),
    ],
)
def test_each_assigner_names_itself_in_flinks_parameter_check(make, message):
    with pytest.raises(IllegalArgumentException) as e:
        make()
    assert str(e.value) == message


def test_offset_defaults_to_none_as_pyflink_of():
    from pyflowkit.common import Time

    assert TumblingEventTimeWindows.of(Time.seconds(5), None).offset == 0
    assert SlidingEventTimeWindows.of(Time.seconds(10), Time.seconds(5), None).offset == 0
    assert SlidingEventTimeWindows.of(10, 5, Time.milliseconds(2)).assign_windows("x", 9, None) == [
        TimeWindow(7, 17),
        TimeWindow(2, 12),
    ]


def test_dynamic_sessions_take_the_gap_per_element():
    from pyflowkit.datastream.window import (
        DynamicEventTimeSessionWindows,
        DynamicProcessingTimeSessionWindows,
    )

    a = EventTimeSessionWindows.with_dynamic_gap(lambda e: e * 10)
    assert isinstance(a, DynamicEventTimeSessionWindows) and a.is_event_time()
    assert a.assign_windows(2, 100, None) == [TimeWindow(100, 120)]
    p = DynamicProcessingTimeSessionWindows.with_dynamic_gap(lambda e: 4)
    assert p.assign_windows("x", None, Clock(50)) == [TimeWindow(50, 54)]
    assert isinstance(p.get_default_trigger(), ProcessingTimeTrigger)
    with pytest.raises(IllegalArgumentException, match="0 < gap"):
        a.assign_windows(0, 100, None)


class TimerLog:
    """A TriggerContext that records timer calls."""

    def __init__(self, watermark: int, now: int) -> None:
        self.watermark, self.now, self.calls = watermark, now, []

    def get_current_watermark(self) -> int:
        return self.watermark

    def get_current_processing_time(self) -> int:
        return self.now

    def register_event_time_timer(self, t: int) -> None:
        self.calls.append(("register event", t))

    def register_processing_time_timer(self, t: int) -> None:
        self.calls.append(("register processing", t))

    def delete_event_time_timer(self, t: int) -> None:
        self.calls.append(("delete event", t))

    def delete_processing_time_timer(self, t: int) -> None:
        self.calls.append(("delete processing", t))


def test_window_end_triggers_merge_and_clear_in_their_own_time():
    w = TimeWindow(0, 10)
    ctx = TimerLog(watermark=5, now=20)
    EventTimeTrigger.create().on_merge(w, ctx)  # 9 > watermark 5: re-register
    ProcessingTimeTrigger.create().on_merge(w, ctx)  # 9 <= now 20: nothing
    EventTimeTrigger().clear(w, ctx)
    ProcessingTimeTrigger().clear(w, ctx)
    assert ctx.calls == [("register event", 9), ("delete event", 9), ("delete processing", 9)]
    assert str(EventTimeTrigger.create()) == "EventTimeTrigger()"
    assert isinstance(ProcessingTimeTrigger.create(), ProcessingTimeTrigger)
