"""Triggers, evictors and function kinds inside the window operator (state through the context)."""

from __future__ import annotations

from pyflowkit.datastream.functions import ProcessAllWindowFunction, ProcessWindowFunction
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.datastream.window import (
    ContinuousEventTimeTrigger,
    CountTrigger,
    EventTimeSessionWindows,
    GlobalWindows,
    PurgingTrigger,
    TimeEvictor,
    TumblingEventTimeWindows,
)
from tests.windows.harness import WindowHarness

MAX = 2**63 - 1


def add_pairs(a, b):
    return (a[0], a[1] + b[1])


def test_continuous_event_time_trigger_fires_early_and_at_the_end():
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(100),
        trigger=ContinuousEventTimeTrigger.of(30),
        function=add_pairs,
        window_function_kind="reduce",
    )
    h.element(("a", 1), 5)  # next fire at 30
    h.element(("a", 2), 40)
    h.watermark(30)
    assert h.records == [(("a", 3), 99)]
    h.watermark(60)  # the re-registered 60 timer
    h.element(("a", 4), 70)
    h.watermark(MAX)
    assert h.values == [("a", 3), ("a", 3), ("a", 7), ("a", 7)]  # 30, 60, 90, end (99)


def test_count_trigger_state_merges_with_sessions():
    h = WindowHarness(
        window_assigner=EventTimeSessionWindows.with_gap(15),
        trigger=CountTrigger.of(3),
        function=add_pairs,
        window_function_kind="reduce",
    )
    h.element(("a", 1), 0)
    h.element(("a", 2), 30)  # a second session: counts 1 and 1
    assert h.records == []
    h.element(("a", 4), 15)  # [15, 30) touches [0, 15) and [30, 45): count 1 + 1 + 1 = 3 → FIRE
    assert h.records == [(("a", 7), 44)]


def test_time_evictor_in_evicting_operator_and_purging():
    h = WindowHarness(
        operator_class="EvictingWindowOperator",
        window_assigner=GlobalWindows.create(),
        trigger=PurgingTrigger.of(CountTrigger.of(4)),
        evictor=TimeEvictor.of(10),
        function=add_pairs,
        window_function_kind="reduce",
    )
    for v, ts in [(1, 0), (2, 5), (4, 12), (8, 15)]:
        h.element(("a", v), ts)
    assert h.values == [("a", 12)]  # cutoff 15 - 10 = 5: ts 0 and 5 evicted
    assert h.operator.keyed_state_backend.num_entries() == 0  # purged


class Split(ProcessWindowFunction):
    def __init__(self, tag: OutputTag) -> None:
        self.tag = tag
        self.opened_with = None

    def open(self, runtime_context):
        self.opened_with = runtime_context.get_index_of_this_subtask()

    def process(self, key, context, elements):
        for v in elements:
            if v[1] < 0:
                yield self.tag, v
            else:
                yield v


def test_process_function_side_outputs_and_open():
    tag = OutputTag("negative")
    fn = Split(tag)
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(10),
        function=fn,
        window_function_kind="process",
    )
    h.element(("a", 1), 1)
    h.element(("a", -1), 2)
    h.watermark(MAX)
    # the operator opened its own copy of the function (one per subtask, as Flink)
    assert h.operator.internal_function.user_function.opened_with == 0
    assert fn.opened_with is None
    assert h.records == [(("a", 1), 9)]
    assert h.output.side["negative"] == [(("a", -1), 9)]


class CountAll(ProcessAllWindowFunction):
    def process(self, context, elements):
        yield (context.window().start, len(list(elements)))


def test_window_all_with_process_all_window_function():
    h = WindowHarness(
        key_selector=None,
        window_assigner=TumblingEventTimeWindows.of(10),
        function=CountAll(),
        window_function_kind="process",
    )
    for v, ts in [("x", 1), ("y", 3), ("z", 15)]:
        h.element(v, ts)
    h.watermark(MAX)
    assert h.values == [(0, 2), (10, 1)]


def test_reduce_producing_lists_is_one_value_not_many():
    h = WindowHarness(
        key_selector=lambda v: "k",
        window_assigner=TumblingEventTimeWindows.of(10),
        function=lambda a, b: a + b,  # list concatenation
        window_function_kind="reduce",
    )
    h.element([1], 1)
    h.element([2, 3], 2)
    h.watermark(MAX)
    assert h.records == [([1, 2, 3], 9)]


def test_continuous_processing_time_trigger_fires_every_interval():
    from pyflowkit.datastream.window import (
        ContinuousProcessingTimeTrigger,
        TumblingProcessingTimeWindows,
    )

    h = WindowHarness(
        window_assigner=TumblingProcessingTimeWindows.of(100),
        trigger=ContinuousProcessingTimeTrigger.of(30),
        function=add_pairs,
        window_function_kind="reduce",
    )
    h.set_processing_time(5)
    h.element(("a", 1))  # next fire at 30
    h.element(("a", 2))
    h.set_processing_time(30)
    assert h.values == [("a", 3)]
    h.element(("a", 4))
    h.set_processing_time(60)  # re-registered an interval later
    assert h.values == [("a", 3), ("a", 7)]
    assert str(ContinuousProcessingTimeTrigger.of(30)) == "ContinuousProcessingTimeTrigger(30)"


def test_a_merged_window_without_state_window_is_an_illegal_state(monkeypatch):
    import pytest

    from pyflowkit.errors import IllegalStateException
    from pyflowkit.operators.merging_window_set import MergingWindowSet

    h = WindowHarness(
        window_assigner=EventTimeSessionWindows.with_gap(10),
        function=add_pairs,
        window_function_kind="reduce",
    )
    monkeypatch.setattr(MergingWindowSet, "get_state_window", lambda self, window: None)
    with pytest.raises(IllegalStateException) as e:
        h.element(("a", 1), 0)
    assert str(e.value) == "Window TimeWindow{start=0, end=10} is not in in-flight window set."
