"""Jobs keyed by a list or a dict (no declared key type), shared by the simulated-cluster and the
Spark tests (importable by Spark's Python workers)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pyflowkit.common import Time, Types
from pyflowkit.common.watermark_strategy import WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction, MapFunction, RuntimeContext
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.datastream.window import TumblingEventTimeWindows

RECORDS = [(1, "a"), (2, "b"), (1, "c"), (3, "d"), (2, "e"), (1, "f")]
NAMES = ("map", "process", "reduce", "dict key", "count window", "event-time window", "timers")


class CountMap(MapFunction):
    def open(self, ctx: RuntimeContext) -> None:
        self.c = ctx.get_state(ValueStateDescriptor("c", Types.INT()))

    def map(self, value: Any) -> Any:
        n = (self.c.value() or 0) + 1
        self.c.update(n)
        return (value[1], n)


class CountProcess(KeyedProcessFunction):
    def open(self, ctx: RuntimeContext) -> None:
        self.c = ctx.get_state(ValueStateDescriptor("c", Types.INT()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        n = (self.c.value() or 0) + 1
        self.c.update(n)
        yield (value[1], n, list(ctx.get_current_key()))


def expected_counts() -> set[tuple[str, int]]:
    seen: Counter[int] = Counter()
    out = set()
    for k, v in RECORDS:
        seen[k] += 1
        out.add((v, seen[k]))
    return out


def jobs(env: StreamExecutionEnvironment) -> dict[str, Any]:
    keyed = lambda: env.from_collection(RECORDS).key_by(lambda t: [t[0]])  # noqa: E731
    stamps = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, _: RECORDS.index(v)  # event time: the record's position, 0..5
    )
    timed = lambda: env.from_collection(RECORDS).assign_timestamps_and_watermarks(stamps)  # noqa: E731
    return {
        "map": keyed().map(CountMap()),
        "process": keyed().process(CountProcess()),
        "reduce": keyed().reduce(lambda a, b: (a[0], a[1] + b[1])),
        "dict key": env.from_collection(RECORDS)
        .key_by(lambda t: {"k": t[0]})
        .reduce(lambda a, b: (a[0], a[1] + b[1])),
        "count window": keyed().count_window(2).reduce(lambda a, b: (a[0], a[1] + b[1])),
        "event-time window": timed()
        .key_by(lambda t: [t[0]])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(3)))
        .reduce(lambda a, b: (a[0], a[1] + b[1])),
        "timers": timed().key_by(lambda t: {"k": t[0]}).process(TimerOnKey()),
    }


def check(results: dict[str, list[Any]], mode: str) -> None:
    assert {r[:2] for r in results["map"]} == expected_counts()
    assert {r[:2] for r in results["process"]} == expected_counts()
    # the function sees the key it was keyed by: a list (``ctx.get_current_key()``)
    assert {(r[0], tuple(r[2])) for r in results["process"]} == {(v, (k,)) for k, v in RECORDS}
    for name in ("reduce", "dict key"):  # reduce: (key, values so far), one state per key
        last = {r[0]: r[1] for r in results[name]}
        assert last == {1: "acf", 2: "be", 3: "d"}, (name, results[name])
        if mode == "BATCH":  # BATCH emits each key's final value only
            assert sorted(results[name]) == [(1, "acf"), (2, "be"), (3, "d")]
    assert sorted(results["count window"]) == [(1, "ac"), (2, "be")]
    # windows [0, 3) and [3, 6): key 1 has a, c then f; key 2 b then e; key 3 d
    assert sorted(results["event-time window"]) == [
        (1, "ac"),
        (1, "f"),
        (2, "b"),
        (2, "e"),
        (3, "d"),
    ]
    # one timer per record at its time + 10, fired with the dict key it was set for
    assert sorted(results["timers"]) == sorted((i + 10, k) for i, (k, _) in enumerate(RECORDS))


class TimerOnKey(KeyedProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (timestamp, ctx.get_current_key()["k"])


class SubtaskOf(KeyedProcessFunction):
    def open(self, ctx: RuntimeContext) -> None:
        self.index = ctx.get_index_of_this_subtask()

    def process_element(self, value: Any, ctx: Any) -> Any:
        yield (value[0], self.index)
