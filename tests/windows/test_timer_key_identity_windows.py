"""Window timers keep keys Python finds equal (``1``, ``True``, ``1.0``) apart, as Flink does.

Each key has its own trigger and cleanup timers; the per-element path and the batch fast path
(``TumblingBatchProcessor``, which writes the timer set directly) fire one pane per key.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Time, Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.windows.test_window_batch import FUNCTIONS, make_pair
from tests.windows.test_window_operator import MAX, add_pairs

RENAME = {(int, 1): "i", (bool, True): "b", (float, 1.0): "f"}

# values never 1 (no output value may pass for a key); two windows, some keys repeating
SCRIPT: list[tuple[str, Any]] = [
    ("batch", [((1, 2), 5), ((True, 3), 6), ((1.0, 4), 7), ((1, 8), 8), ((True, 16), 150)]),
    ("watermark", 120),
    ("batch", [((1.0, 32), 160), ((1, 64), 170), ((True, 2), 199)]),
    ("watermark", MAX),
]


def typed(x: Any) -> Any:
    """``x`` with every bool/int/float tagged by its type (so ``1 != True`` when compared)."""
    if isinstance(x, tuple | list):
        return type(x)(typed(e) for e in x)
    if type(x) in (bool, int, float):
        return (type(x).__name__, x)
    return x


def renamed(x: Any) -> Any:
    """The records' first fields (keys) and nested pairs' keys renamed to distinct strings."""
    if isinstance(x, tuple) and x and (type(x[0]), x[0]) in RENAME:
        return (RENAME[(type(x[0]), x[0])], *(renamed(e) for e in x[1:]))
    if isinstance(x, tuple | list):
        return type(x)(renamed(e) for e in x)
    return x


def feed_both(one: Any, batched: Any, script: list[tuple[str, Any]]) -> None:
    for what, arg in script:
        if what == "watermark":
            one.watermark(arg)
            batched.watermark(arg)
        else:
            for v, ts in arg:
                one.element(v, ts)
            batched.operator.process_batch([v for v, _ in arg], [ts for _, ts in arg])


@pytest.mark.parametrize("kind", sorted(FUNCTIONS))
@pytest.mark.parametrize("lateness", [0, 130])
def test_each_mixed_key_fires_its_own_pane(kind: str, lateness: int) -> None:
    one, batched = make_pair(kind, allowed_lateness=lateness)
    feed_both(one, batched, SCRIPT)
    str_one, str_batched = make_pair(kind, allowed_lateness=lateness)
    feed_both(str_one, str_batched, [(w, renamed(a)) for w, a in SCRIPT])

    for h in (one, batched):
        assert h.operator.timer_service.num_event_time_timers() == 0
        if kind == "aggregate":  # no key in the output: the averages, in firing order
            assert h.output.events == str_one.output.events
        else:
            assert renamed(h.output.events) == str_one.output.events
    assert typed(batched.output.events) == typed(one.output.events)
    assert str_batched.output.events == str_one.output.events


def test_reduce_results_per_mixed_key_and_window() -> None:
    one, batched = make_pair("reduce")
    feed_both(one, batched, SCRIPT)
    expected = [
        (("int", 1), ("int", 10)),
        (("bool", True), ("int", 3)),
        (("float", 1.0), ("int", 4)),
        (("bool", True), ("int", 18)),
        (("float", 1.0), ("int", 32)),
        (("int", 1), ("int", 64)),
    ]
    for h in (one, batched):
        assert [typed(v) for v in h.values] == expected
        assert [ts for _, ts in h.records] == [99, 99, 99, 199, 199, 199]


def test_snapshot_holds_one_timer_per_mixed_key() -> None:
    one, batched = make_pair("reduce", allowed_lateness=130)
    for h in (one, batched):
        values = [(1, 2), (True, 3), (1.0, 4)]
        if h is one:
            for v in values:
                h.element(v, 5)
        else:
            h.operator.process_batch(values, [5, 5, 5])
        timers = [e for es in h.snapshot().timers.values() for e in es]
        # a trigger timer (99) and a cleanup timer (229) for each of the three keys
        assert sorted((e[2], repr(e[3])) for e in timers) == [
            (99, "1"),
            (99, "1.0"),
            (99, "True"),
            (229, "1"),
            (229, "1.0"),
            (229, "True"),
        ]


def test_window_pipeline_emits_a_result_per_mixed_key() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, ts: v[2]
    )
    data = [(1, 2, 1), (True, 3, 2), (1.0, 4, 3), (1, 8, 4), (True, 16, 15)]
    (
        env.from_collection(data, type_info=Types.PICKLED_BYTE_ARRAY())
        .assign_timestamps_and_watermarks(strategy)
        .map(lambda v: (v[0], v[1]), output_type=Types.PICKLED_BYTE_ARRAY())
        .key_by(lambda v: v[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .reduce(add_pairs)
        .map(lambda v: f"{v[0]!r}:{type(v[0]).__name__}={v[1]}", output_type=Types.STRING())
        .print("w")
    )
    run = MiniCluster(seed=1, echo_print=False).submit(env).run()
    run.raise_if_failed()
    assert run.job_status is JobStatus.FINISHED
    assert [line.split("> ", 1)[1] for line in run.printed()] == [
        "1:int=10",
        "True:bool=3",
        "1.0:float=4",
        "True:bool=16",
    ]
