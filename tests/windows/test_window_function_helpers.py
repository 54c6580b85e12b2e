"""PyFlink's PassThroughWindowFunction / PassThroughAllWindowFunction, NullByteKeySelector,
KeyedStateStore and the continuous triggers' Min reducer."""

from __future__ import annotations

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import (
    KeyedStateStore,
    NullByteKeySelector,
    PassThroughAllWindowFunction,
    PassThroughWindowFunction,
    ProcessWindowFunction,
    ReduceFunction,
)
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.datastream.window import (
    ContinuousEventTimeTrigger,
    CountTumblingWindowAssigner,
    Min,
    TumblingEventTimeWindows,
)
from tests.windows.harness import WindowHarness


def collect(stream) -> list:
    with stream.execute_and_collect() as results:
        return list(results)


def test_pass_through_window_functions_emit_the_windows_elements():
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    data = env.from_collection([("a", 1), ("b", 2), ("a", 3), ("a", 4)])
    keyed = data.key_by(lambda v: v[0]).window(CountTumblingWindowAssigner.of(2))
    assert collect(keyed.apply(PassThroughWindowFunction())) == [("a", 1), ("a", 3)]
    all_windows = data.count_window_all(3).apply(PassThroughAllWindowFunction())
    assert collect(all_windows) == [("a", 1), ("b", 2), ("a", 3)]


def test_pass_through_apply_yields_inputs_in_order():
    assert list(PassThroughWindowFunction().apply("k", None, iter([3, 1, 2]))) == [3, 1, 2]
    assert list(PassThroughAllWindowFunction().apply(None, [5])) == [5]
    assert PassThroughWindowFunction[int, str, object] is not None


def test_null_byte_key_selector_keys_everything_with_zero():
    selector = NullByteKeySelector()
    assert [selector.get_key(v) for v in ("x", None, (1, 2))] == [0, 0, 0]


def test_window_and_global_state_are_keyed_state_stores():
    seen = []

    class Stores(ProcessWindowFunction):
        def process(self, key, context, elements):
            stores = (context.window_state(), context.global_state())
            seen.append(all(isinstance(s, KeyedStateStore) for s in stores))
            total = context.global_state().get_state(ValueStateDescriptor("n", Types.INT()))
            total.update((total.value() or 0) + len(list(elements)))
            yield key, total.value()

    h = WindowHarness(
        window_assigner=TumblingEventTimeWindows.of(10),
        function=Stores(),
        window_function_kind="process",
    )
    for ts in (1, 2, 15):
        h.element(("k", ts), ts)
    h.watermark(100)
    assert h.values == [("k", 2), ("k", 3)] and seen == [True, True]


def test_min_is_the_continuous_triggers_fire_time_reducer():
    assert isinstance(Min(), ReduceFunction) and Min().reduce(7, 3) == 3
    trigger = ContinuousEventTimeTrigger.of(5)
    assert isinstance(trigger.state_desc.get_reduce_function(), Min)
