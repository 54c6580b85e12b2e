"""PyFlink's CountTumblingWindowAssigner / CountSlidingWindowAssigner: per-key counts in keyed
state, CountWindow ids, CountTrigger(window_size), checkpointed with the key."""

from __future__ import annotations

import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import ProcessWindowFunction
from pyflowkit.datastream.window import (
    CountSlidingWindowAssigner,
    CountTrigger,
    CountTumblingWindowAssigner,
    CountWindow,
)
from pyflowkit.errors import IllegalArgumentException
from tests.windows.harness import WindowHarness


class Ids(ProcessWindowFunction):
    """(key, window id, values) of each firing."""

    def process(self, key, context, elements):
        yield (key, context.window().id, [v[1] for v in elements])


def harness(assigner, **extra) -> WindowHarness:
    return WindowHarness(
        window_assigner=assigner, function=Ids(), window_function_kind="process", **extra
    )


def test_tumbling_assigns_count_windows_per_key_and_fires_when_full():
    h = harness(CountTumblingWindowAssigner.of(3))
    for i in range(7):
        h.element(("a", i))
        if i < 2:
            h.element(("b", i))
    assert h.values == [("a", 0, [0, 1, 2]), ("a", 1, [3, 4, 5])]
    h.element(("b", 2))
    assert h.values[-1] == ("b", 0, [0, 1, 2])


def test_sliding_windows_start_every_slide_and_fire_with_size_elements():
    h = harness(CountSlidingWindowAssigner.of(3, 2))
    for i in range(8):
        h.element(("a", i))
    # window i holds elements [2i, 2i + 2]; it fires when it holds 3 (PyFlink's semantics)
    assert h.values == [("a", 0, [0, 1, 2]), ("a", 1, [2, 3, 4]), ("a", 2, [4, 5, 6])]


def test_sliding_assignment_is_pyflinks_newest_first():
    class Counter:
        def __init__(self) -> None:
            self.count: int | None = None

        def value(self):
            return self.count

        def update(self, value):
            self.count = value

    class Context:
        def __init__(self) -> None:
            self.state = Counter()

        def get_runtime_context(self):
            return self

        def get_state(self, descriptor):
            assert descriptor.name == "slide-count-assigner"
            return self.state

    ctx = Context()
    assigner = CountSlidingWindowAssigner(5, 2)
    got = [assigner.assign_windows(None, None, ctx) for _ in range(6)]
    assert got[0] == [CountWindow(0)]
    assert got[4] == [CountWindow(2), CountWindow(1), CountWindow(0)]
    assert got[5] == [CountWindow(2), CountWindow(1)]


def test_count_survives_snapshot_and_restore():
    h = harness(CountTumblingWindowAssigner.of(3))
    h.element(("a", 0))
    h.element(("a", 1))
    restored = harness(CountTumblingWindowAssigner.of(3), restored=h.snapshot())
    restored.element(("a", 2))
    restored.element(("a", 3))
    assert restored.values == [("a", 0, [0, 1, 2])]


def test_defaults_and_to_string():
    tumbling = CountTumblingWindowAssigner(4)
    sliding = CountSlidingWindowAssigner(4, 2)
    for assigner in (tumbling, sliding):
        trigger = assigner.get_default_trigger(None)
        assert isinstance(trigger, CountTrigger) and trigger.max_count == 4
        assert assigner.is_event_time() is False
    assert str(tumbling) == "CountTumblingWindowAssigner(4)"
    assert str(sliding) == "CountSlidingWindowAssigner(4, 2)"
    assert CountTumblingWindowAssigner[tuple] is not None  # Generic as in PyFlink


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: CountTumblingWindowAssigner(0), "window_size must be an int >= 1, got 0"),
        (lambda: CountSlidingWindowAssigner(3, 0), "window_slide must be an int >= 1, got 0"),
        (lambda: CountSlidingWindowAssigner("3", 1), "window_size must be an int >= 1"),
    ],
)
def test_bad_sizes_name_the_assigner_and_the_rule(build, message):
    with pytest.raises(IllegalArgumentException, match=message):
        build()


def test_window_with_tumbling_assigner_equals_count_window():
    data = [("a", i) for i in range(7)] + [("b", i) for i in range(4)]

    def run(windowed) -> list:
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(2)
        keyed = env.from_collection(data).key_by(lambda v: v[0])
        with windowed(keyed).reduce(lambda a, b: (a[0], a[1] + b[1])).execute_and_collect() as it:
            return sorted(it)

    by_assigner = run(lambda k: k.window(CountTumblingWindowAssigner.of(3)))
    assert by_assigner == run(lambda k: k.count_window(3))
    assert by_assigner == [("a", 3), ("a", 12), ("b", 3)]
