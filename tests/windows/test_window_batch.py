"""WindowOperator.process_batch (tumbling event time, EventTimeTrigger) equals per-element runs."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pyflowkit.datastream.functions import AggregateFunction
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.datastream.window import (
    NO_TIMESTAMP_MESSAGE,
    CountTrigger,
    TumblingEventTimeWindows,
)
from tests.windows.harness import WindowHarness
from tests.windows.test_window_operator import MAX, Average, Describe, Tag, add_pairs

FUNCTIONS: dict[str, dict[str, Any]] = {
    "reduce": {"function": add_pairs, "window_function_kind": "reduce"},
    "aggregate": {"function": Average(), "window_function_kind": "aggregate"},
    "process": {"window_function": Describe(), "window_function_kind": "process"},
}


def make_pair(kind: str, key_selector: Any = lambda v: v[0], **extra: Any) -> tuple[Any, Any]:
    """Two identical harnesses: one fed element by element whose timers fire through the
    general ``_on_timer`` (no fast path at all), one fed with process_batch."""
    params = dict(window_assigner=TumblingEventTimeWindows.of(100), **FUNCTIONS[kind], **extra)
    one = WindowHarness(key_selector=key_selector, **params)
    one.operator._batch_processor = None
    return one, WindowHarness(key_selector=key_selector, **params)


def feed(one: WindowHarness, batched: WindowHarness, script: list[Any]) -> None:
    """script: ("batch", [(value, ts), …]) or ("watermark", wm), applied to both harnesses."""
    for what, arg in script:
        if what == "watermark":
            one.watermark(arg)
            batched.watermark(arg)
        else:
            for v, ts in arg:
                one.element(v, ts)
            batched.operator.process_batch([v for v, _ in arg], [ts for _, ts in arg])


def assert_same(one: WindowHarness, batched: WindowHarness) -> None:
    assert batched.output.events == one.output.events
    assert batched.operator.num_late_records_dropped == one.operator.num_late_records_dropped
    a, b = one.snapshot(), batched.snapshot()
    assert b.keyed_state == a.keyed_state
    assert b.timers == a.timers
    assert batched.operator.get_current_key() == one.operator.get_current_key()


def random_script(rng: random.Random, keys: list[Any], batches: int) -> list[Any]:
    script: list[Any] = []
    wm = -1
    for _ in range(batches):
        batch = []
        for _ in range(rng.randint(0, 40)):
            ts = max(0, wm + rng.randint(-250, 300))  # some late, some out of order
            batch.append(((rng.choice(keys), rng.randint(1, 9)), ts))
        script.append(("batch", batch))
        wm += rng.randint(0, 150)
        script.append(("watermark", wm))
    script.append(("watermark", MAX))
    return script


@pytest.mark.parametrize("kind", sorted(FUNCTIONS))
@pytest.mark.parametrize("lateness", [0, 130])
@pytest.mark.parametrize("side_output", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_random_batches_equal_per_element_runs(kind, lateness, side_output, seed):
    extra: dict[str, Any] = {"allowed_lateness": lateness}
    if side_output:
        extra["late_data_output_tag"] = Tag("late")
    one, batched = make_pair(kind, **extra)
    assert batched.operator._batch_processor is not None
    keys: list[Any] = ["a", "b", 7, ("t", 1), 1, True, 1.0]
    feed(one, batched, random_script(random.Random(seed), keys, 25))
    assert one.output.events  # the script produced output
    assert_same(one, batched)


def test_batch_sums_and_late_counter():
    one, batched = make_pair("reduce")
    script = [
        ("batch", [(("a", 1), 5), (("b", 2), 150), (("a", 3), 99), (("a", 4), 120)]),
        ("watermark", 120),
        ("batch", [(("a", 5), 10), (("b", 6), 199), (("a", 7), 50)]),
        ("watermark", MAX),
    ]
    feed(one, batched, script)
    assert batched.records == [(("a", 4), 99), (("b", 8), 199), (("a", 4), 199)]
    assert batched.operator.num_late_records_dropped == 2
    assert_same(one, batched)


def test_window_the_trigger_fires_at_once_switches_to_per_element_in_order():
    """With lateness, an element of a window the watermark passed fires it immediately."""
    one, batched = make_pair("reduce", allowed_lateness=500)
    script = [
        ("batch", [(("a", 1), 5), (("b", 1), 6)]),
        ("watermark", 150),
        ("batch", [(("c", 1), 160), (("a", 2), 7), (("b", 2), 8), (("a", 3), 170)]),
        ("watermark", MAX),
    ]
    feed(one, batched, script)
    assert batched.values[:3] == [("a", 1), ("b", 1), ("a", 3)]
    assert_same(one, batched)


def test_missing_timestamp_raises_after_earlier_elements_are_added():
    one, batched = make_pair("reduce")
    values = [("a", 1), ("a", 2), ("b", 3)]
    with pytest.raises(RuntimeError) as expected:
        for v, ts in zip(values, [1, 2, None], strict=True):
            one.element(v, ts)
    with pytest.raises(RuntimeError) as got:
        batched.operator.process_batch(values, [1, 2, None])
    assert str(got.value) == str(expected.value) == NO_TIMESTAMP_MESSAGE
    feed(one, batched, [("watermark", MAX)])
    assert batched.records == [(("a", 3), 99)]
    assert_same(one, batched)


def test_key_selector_error_keeps_the_elements_before_it():
    def selector(v):
        if v[1] < 0:
            raise ValueError(f"bad element {v!r}")
        return v[0]

    one, batched = make_pair("aggregate", key_selector=selector)
    values = [("a", 1), ("a", 3), ("b", -1), ("b", 5)]
    with pytest.raises(ValueError, match=r"bad element \('b', -1\)"):
        batched.operator.process_batch(values, [1, 2, 3, 4])
    with pytest.raises(ValueError, match="bad element"):
        for v, ts in zip(values, [1, 2, 3, 4], strict=True):
            one.element(v, ts)
    feed(one, batched, [("watermark", MAX)])
    assert batched.records == [(2.0, 99)]
    assert_same(one, batched)


def test_null_value_in_list_state_is_refused_as_per_element():
    one, batched = make_pair("process", key_selector=lambda v: "k")
    with pytest.raises(ValueError, match="cannot add null to list state"):
        batched.operator.process_batch([("a", 1), None], [1, 2])
    with pytest.raises(ValueError, match="cannot add null to list state"):
        for v, ts in zip([("a", 1), None], [1, 2], strict=True):
            one.element(v, ts)
    feed(one, batched, [("watermark", MAX)])
    assert_same(one, batched)


def test_other_triggers_and_batches_without_timestamps_take_the_per_element_path():
    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(100),
        trigger=CountTrigger.of(2),
        **FUNCTIONS["reduce"],
    )
    assert h.operator._batch_processor is None
    h.operator.process_batch([("a", 1), ("a", 2), ("a", 4)], [1, 2, 3])
    assert h.values == [("a", 3)]
    one, batched = make_pair("reduce")
    with pytest.raises(RuntimeError, match="timestamp"):
        batched.operator.process_batch([("a", 1)], None)


def test_snapshot_restore_then_batches_fire_restored_windows():
    one, batched = make_pair("reduce")
    feed(one, batched, [("batch", [(("a", 1), 5), (("b", 2), 150)]), ("watermark", 10)])
    params = dict(window_assigner=TumblingEventTimeWindows.of(100), **FUNCTIONS["reduce"])
    restored = WindowHarness(restored=batched.snapshot(), **params)
    restored.operator.process_batch([("a", 4), ("b", 1)], [20, 160])
    restored.watermark(MAX)
    assert restored.records == [(("a", 5), 99), (("b", 3), 199)]


class SumOrSide(AggregateFunction):
    """Odd sums go to a side output (PyFlink's ``(OutputTag, value)``); key "boom" fails."""

    def create_accumulator(self):
        return [None, 0]

    def add(self, value, accumulator):
        return [value[0], accumulator[1] + value[1]]

    def get_result(self, accumulator):
        if accumulator[0] == "boom":
            raise ValueError("boom pane")
        total = accumulator[1]
        return (OutputTag("odd"), total) if total % 2 else (accumulator[0], total)

    def merge(self, a, b):
        return [a[0], a[1] + b[1]]


def _fused_pair() -> tuple[WindowHarness, WindowHarness]:
    params = dict(
        window_assigner=TumblingEventTimeWindows.of(100),
        function=SumOrSide(),
        window_function_kind="aggregate",
    )
    one = WindowHarness(**params)
    one.operator._batch_processor = None
    batched = WindowHarness(**params)
    assert batched.operator._batch_processor.fused
    return one, batched


def test_fused_firing_keeps_order_around_side_outputs() -> None:
    """The inlined firing loop emits main results as batches, split where a side output fires."""
    one, batched = _fused_pair()
    elements = [((k, v), ts) for ts in range(0, 400, 7) for k, v in (("a", 1), ("b", 2), (3, ts))]
    script = [("batch", elements[:40]), ("watermark", 150), ("batch", elements[40:])]
    feed(one, batched, [*script, ("watermark", 299), ("watermark", MAX)])
    assert_same(one, batched)
    assert batched.output.side["odd"] and batched.output.records  # both kinds were fired
    kinds = [e[0] for e in batched.output.events]
    assert kinds.index("side:odd") < len(kinds) - 1 - kinds[::-1].index("record")  # interleaved


def test_fused_firing_failure_emits_what_fired_before_and_keeps_the_failing_pane() -> None:
    one, batched = _fused_pair()
    elements = [(("a", 2), 5), (("boom", 1), 6), (("c", 4), 7), (("a", 2), 150)]
    for h in (one, batched):
        for v, ts in elements:
            h.element(v, ts)
    for h in (one, batched):
        with pytest.raises(ValueError, match="boom pane"):
            h.watermark(200)
    assert batched.output.events == one.output.events == [("record", ("a", 2), 99)]
    assert batched.snapshot().keyed_state == one.snapshot().keyed_state
    assert batched.operator.get_current_key() == one.operator.get_current_key() == "boom"
