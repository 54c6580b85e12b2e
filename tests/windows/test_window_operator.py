"""WindowOperator / EvictingWindowOperator against plain-Python expectations (reference §9.4)."""

from __future__ import annotations

import pytest

from pyflowkit.datastream.functions import AggregateFunction, ProcessWindowFunction
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.datastream.window import (
    CountEvictor,
    CountTrigger,
    EventTimeSessionWindows,
    GlobalWindows,
    NeverTrigger,
    ProcessingTimeSessionWindows,
    PurgingTrigger,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from tests.windows.harness import WindowHarness

MAX = 2**63 - 1


def add_pairs(a, b):
    return (a[0], a[1] + b[1])


class Tag:
    """Stands in for an OutputTag (the operator only passes it to the output)."""

    def __init__(self, tag_id: str) -> None:
        self.tag_id = tag_id


class Describe(ProcessWindowFunction):
    """Emits (key, start, end, values, watermark) and counts firings per window in window state."""

    def process(self, key, context, elements):
        fired = context.window_state().get_state(ValueStateDescriptor("fired"))
        fired.update((fired.value() or 0) + 1)
        total = context.global_state().get_state(ValueStateDescriptor("total"))
        total.update((total.value() or 0) + 1)
        w = context.window()
        yield (
            key,
            w.start,
            w.end,
            sorted(v[1] for v in elements),
            context.current_watermark(),
            fired.value(),
            total.value(),
        )


class Average(AggregateFunction):
    def create_accumulator(self):
        return (0, 0)

    def add(self, value, accumulator):
        return (accumulator[0] + value[1], accumulator[1] + 1)

    def get_result(self, accumulator):
        return accumulator[0] / accumulator[1]

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


class NonMerging(NeverTrigger):
    def can_merge(self) -> bool:
        return False


def tumbling_reduce(**extra) -> WindowHarness:
    return WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(5000),
        function=add_pairs,
        window_function_kind="reduce",
        **extra,
    )


def test_tumbling_event_time_reduce_out_of_order_then_late_dropped():
    h = tumbling_reduce()
    for value, ts in [
        (("a", 1), 1000),
        (("a", 2), 3000),
        (("b", 5), 2000),
        (("a", 3), 6000),
        (("a", 4), 4000),
    ]:
        h.element(value, ts)
    assert h.records == []
    h.watermark(4999)
    assert h.records == [(("a", 7), 4999), (("b", 5), 4999)]
    assert h.output.watermarks == [4999]  # timers fire before the watermark is forwarded
    assert h.output.events[-1] == ("watermark", 4999, None)
    h.element(("a", 100), 3000)  # window [0, 5000) is gone: dropped, counted
    assert h.operator.num_late_records_dropped == 1
    h.watermark(MAX)
    assert h.records[2:] == [(("a", 3), 9999)]
    assert h.operator.keyed_state_backend.num_entries() == 0  # cleanup timers cleared all state


def test_reference_run_late_element_after_watermark_6999_is_dropped():
    """§9.4 [run]: ts=3000 after watermark 6999 is dropped; [0,5000) counted 2, not 3."""
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(5000),
        function=lambda a, b: (a[0], a[1] + b[1]),
        window_function_kind="reduce",
    )
    h.element(("k", 1), 1000)
    h.element(("k", 1), 2000)
    h.watermark(6999)
    h.element(("k", 1), 3000)
    h.watermark(MAX)
    assert h.records == [(("k", 2), 4999)]
    assert h.operator.metrics["numLateRecordsDropped"] == 1


def test_allowed_lateness_refires_then_late_data_goes_to_side_output():
    tag = Tag("late")
    h = tumbling_reduce(allowed_lateness=2000, late_data_output_tag=tag)
    h.element(("a", 1), 1000)
    h.watermark(5000)
    assert h.records == [(("a", 1), 4999)]
    h.element(("a", 2), 3000)  # late but within lateness: the EventTimeTrigger fires at once
    assert h.records[-1] == (("a", 3), 4999)
    h.watermark(6999)  # cleanup time 4999 + 2000
    h.element(("a", 5), 4000)  # window state is gone; element is late
    assert h.output.side_values(tag) == [("a", 5)]
    assert h.output.side["late"] == [(("a", 5), 4000)]
    assert len(h.records) == 2
    assert h.operator.num_late_records_dropped == 0


def test_sliding_event_time_process_window_function_context_and_state():
    h = WindowHarness(
        window_assigner=SlidingEventTimeWindows.of(10, 5),
        function=Describe(),
        window_function_kind="process",
    )
    h.element(("a", 1), 3)
    h.element(("a", 2), 7)
    h.element(("a", 3), 12)
    h.watermark(9)
    h.watermark(14)
    h.watermark(30)
    assert h.values == [
        ("a", -5, 5, [1], 9, 1, 1),
        ("a", 0, 10, [1, 2], 9, 1, 2),
        ("a", 5, 15, [2, 3], 14, 1, 3),
        ("a", 10, 20, [3], 30, 1, 4),
    ]
    assert [ts for _, ts in h.records] == [4, 9, 14, 19]


def test_aggregate_with_window_function():
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(10),
        function=Average(),
        window_function_kind="aggregate",
        window_function=lambda key, window, inputs: [(key, window.end, list(inputs))],
        window_function_type="apply",
    )
    for v, ts in [(("x", 2), 1), (("x", 4), 2), (("y", 10), 3), (("x", 9), 11)]:
        h.element(v, ts)
    h.watermark(MAX)
    assert h.values == [("x", 10, [3.0]), ("y", 10, [10.0]), ("x", 20, [9.0])]


def test_session_windows_merge_and_bridge():
    h = WindowHarness(
        window_assigner=EventTimeSessionWindows.with_gap(3000),
        function=Describe(),
        window_function_kind="process",
    )
    h.element(("a", 1), 1000)
    h.element(("a", 2), 6000)
    h.element(("b", 9), 1500)
    h.element(("a", 3), 3500)  # [3500, 6500) bridges [1000, 4000) and [6000, 9000)
    h.element(("a", 4), 20000)
    h.watermark(10000)
    assert [v[:4] for v in h.values] == [("b", 1500, 4500, [9]), ("a", 1000, 9000, [1, 2, 3])]
    assert [ts for _, ts in h.records] == [4499, 8999]
    h.watermark(MAX)
    assert h.values[-1][:4] == ("a", 20000, 23000, [4])
    # window contents and the merging window set are gone; the function's own per-window state
    # stays until ProcessWindowFunction.clear() removes it (as in Flink)
    tables = h.operator.keyed_state_backend.tables
    assert {name for name, t in tables.items() if t.size()} == {"fired", "total"}
    assert tables["total"].size() == 2 and tables["fired"].size() == 3


def test_session_reduce_merges_state():
    h = WindowHarness(
        window_assigner=EventTimeSessionWindows.with_gap(10),
        function=add_pairs,
        window_function_kind="reduce",
    )
    for ts in (0, 5, 30, 12, 21):
        h.element(("k", ts), ts)
    h.watermark(MAX)
    assert h.records == [(("k", 68), 39)]  # 0..5..12..21..30 chain into [0, 40)


def test_count_window_tumbling_purges():
    h = WindowHarness(
        window_assigner=GlobalWindows.create(),
        trigger=PurgingTrigger.of(CountTrigger.of(3)),
        aggregation={"kind": "sum", "field": 1},
        window_function_kind="reduce",
    )
    for i in range(7):
        h.element(("a", i))
    assert h.values == [("a", 3), ("a", 12)]
    assert h.records[0][1] == MAX  # GlobalWindow.maxTimestamp()


def test_count_window_sliding_matches_flink_run():
    """§9.4 [run]: countWindow(2,1).sum(1) with keys a/b alternating and values 0,1,2,…"""
    h = WindowHarness(
        operator_class="EvictingWindowOperator",
        window_assigner=GlobalWindows.create(),
        trigger=CountTrigger.of(1),
        evictor=CountEvictor.of(2),
        aggregation={"kind": "sum", "field": 1},
        window_function_kind="reduce",
    )
    for i in range(7):
        h.element(("a" if i % 2 == 0 else "b", i))
    assert h.values == [("a", 0), ("b", 1), ("a", 2), ("b", 4), ("a", 6), ("b", 8), ("a", 10)]
    # evicted elements left the window state (FLINK-4369): at most 2 per key remain
    assert all(len(v) <= 2 for v in h.operator.keyed_state_backend.dump().get("x", {}).values())


def test_sum_keeps_first_elements_other_fields_and_min_by():
    h = WindowHarness(
        operator_class="EvictingWindowOperator",
        window_assigner=GlobalWindows.create(),
        trigger=CountTrigger.of(3),
        evictor=CountEvictor.of(3),
        aggregation={"kind": "min_by", "field": 1},
        window_function_kind="reduce",
    )
    for v in [("a", 5, "x"), ("a", 2, "y"), ("a", 2, "z")]:
        h.element(v)
    assert h.values == [("a", 2, "y")]
    s = WindowHarness(
        window_assigner=GlobalWindows.create(),
        trigger=PurgingTrigger.of(CountTrigger.of(2)),
        aggregation={"kind": "sum", "field": 1},
        window_function_kind="reduce",
    )
    s.element(("a", 1, "first"))
    s.element(("a", 2, "second"))
    assert s.values == [("a", 3, "first")]


def test_processing_time_windows_driven_by_fake_clock():
    h = WindowHarness(
        window_assigner=TumblingProcessingTimeWindows.of(10),
        function=lambda key, window, inputs: [(key, window.start, [v[1] for v in inputs])],
        window_function_kind="apply",
    )
    h.set_processing_time(3)
    h.element(("a", 1))
    h.element(("b", 2))
    h.set_processing_time(8)
    h.element(("a", 3))
    assert h.records == []
    h.set_processing_time(9)
    assert h.records == [(("a", 0, [1, 3]), 9), (("b", 0, [2]), 9)]
    h.set_processing_time(15)
    h.element(("a", 4))
    h.watermark(MAX)  # watermarks do not fire processing-time windows
    assert len(h.records) == 2
    h.set_processing_time(25)
    assert h.values[-1] == ("a", 10, [4])
    assert h.operator.keyed_state_backend.num_entries() == 0


def test_sliding_and_session_processing_time():
    h = WindowHarness(
        window_assigner=SlidingProcessingTimeWindows.of(10, 5),
        function=add_pairs,
        window_function_kind="reduce",
    )
    h.set_processing_time(7)
    h.element(("a", 1))
    h.set_processing_time(12)
    h.element(("a", 2))
    h.set_processing_time(100)
    assert h.records == [(("a", 1), 9), (("a", 3), 14), (("a", 2), 19)]
    s = WindowHarness(
        window_assigner=ProcessingTimeSessionWindows.with_gap(5),
        function=add_pairs,
        window_function_kind="reduce",
    )
    s.element(("a", 1))
    s.set_processing_time(3)
    s.element(("a", 2))
    s.set_processing_time(6)  # [0, 5) and [3, 8) merged into [0, 8)
    assert s.records == []
    s.set_processing_time(7)
    assert s.records == [(("a", 3), 7)]


def test_window_all_runs_on_a_dummy_key():
    h = WindowHarness(
        key_selector=None,
        window_assigner=TumblingEventTimeWindows.of(10),
        function=lambda a, b: a + b,
        window_function_kind="reduce",
    )
    for v, ts in [(1, 1), (2, 5), (3, 12)]:
        h.element(v, ts)
    h.watermark(MAX)
    assert h.records == [(3, 9), (3, 19)]


def test_snapshot_restore_by_key_group_on_rescale():
    keys = [f"k{i}" for i in range(12)]
    h = tumbling_reduce()
    for i, k in enumerate(keys):
        h.element((k, i), 1000)
    snap = h.snapshot()
    assert snap.timers  # event-time timers are part of the snapshot
    restored = []
    for subtask in range(3):
        r = tumbling_reduce(parallelism=3, subtask_index=subtask, restored=snap)
        for k in keys:
            if r.operator.keyed_state_backend.key_group_of(k) in r.env.key_group_range:
                r.element((k, 100), 2000)
        r.watermark(MAX)
        restored.extend(r.values)
    assert sorted(restored) == sorted((k, i + 100) for i, k in enumerate(keys))


def test_bad_parameters_name_the_operator_and_the_rule():
    with pytest.raises(IllegalArgumentException, match="window_assigner must be a WindowAssigner"):
        WindowHarness(window_assigner="tumbling", function=add_pairs, window_function_kind="reduce")
    with pytest.raises(IllegalArgumentException, match="allowed lateness must be a non-negative"):
        tumbling_reduce(allowed_lateness=-1)
    with pytest.raises(IllegalArgumentException, match="EvictingWindowOperator needs an Evictor"):
        WindowHarness(
            operator_class="EvictingWindowOperator",
            window_assigner=GlobalWindows.create(),
            function=add_pairs,
            window_function_kind="reduce",
        )
    with pytest.raises(UnsupportedOperationException, match="does not support merging"):
        WindowHarness(
            window_assigner=EventTimeSessionWindows.with_gap(5),
            trigger=NonMerging(),
            function=add_pairs,
            window_function_kind="reduce",
        )
    with pytest.raises(IllegalArgumentException, match="unknown aggregation 'avg'"):
        WindowHarness(
            window_assigner=GlobalWindows.create(),
            aggregation={"kind": "avg"},
            window_function_kind="reduce",
        )
    with pytest.raises(RuntimeError, match="Record has Long.MIN_VALUE timestamp"):
        tumbling_reduce().element(("a", 1), None)
