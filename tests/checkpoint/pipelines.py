"""Checkpointed pipelines ending in a transactional sink, with their failure-free results.

Each pipeline's committed output is a multiset that does not depend on how the simulated
cluster interleaves its tasks, so any run — with or without failures — must commit exactly it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.common.time import Time
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedCoProcessFunction, KeyedProcessFunction
from pyflowkit.datastream.state import MapStateDescriptor, ValueStateDescriptor
from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

WORDS = ("to be or not to be that is the question " * 8).split()
AMOUNTS = [(f"k{i % 5}", i % 7 + 1) for i in range(60)]
LEFT = [f"k{i % 4}" for i in range(40)]
RIGHT = [f"k{i % 3}" for i in range(30)]
EVENTS = [(f"k{i % 3}", i * 3, i % 5 + 1) for i in range(60)]  # (key, event time, value)
WINDOW = 20  # ms, tumbling


@dataclass(frozen=True)
class CheckpointedPipeline:
    """A pipeline builder (env, store → None), its stateful vertex and the expected output."""

    name: str
    build: Callable[[StreamExecutionEnvironment, TransactionStore], None]
    stateful_vertex: str
    expected: Counter[Any]


def environment(parallelism: int, interval: int) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.enable_checkpointing(interval)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1000, 10))
    return env


def running(items: list[tuple[str, int]]) -> Counter[Any]:
    """(key, running sum) after every item, per key."""
    sums: dict[str, int] = {}
    out: Counter[Any] = Counter()
    for k, v in items:
        sums[k] = sums.get(k, 0) + v
        out[(k, sums[k])] += 1
    return out


# -- word count: keyed reduce -------------------------------------------------------------------
def _word_count(env: StreamExecutionEnvironment, store: TransactionStore) -> None:
    (
        env.from_collection(WORDS)
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .add_sink(TransactionalListSink(store))
    )


# -- keyed process function with ValueState -----------------------------------------------------
class RunningSum(KeyedProcessFunction):
    def open(self, runtime_context: Any) -> None:
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.INT()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        total = (self.total.value() or 0) + value[1]
        self.total.update(total)
        yield (value[0], total)


def _keyed_process(env: StreamExecutionEnvironment, store: TransactionStore) -> None:
    (
        env.from_collection(AMOUNTS)
        .key_by(lambda t: t[0])
        .process(RunningSum())
        .add_sink(TransactionalListSink(store))
    )


# -- connect: keyed co-process counting each side -----------------------------------------------
class CountBothSides(KeyedCoProcessFunction):
    def open(self, runtime_context: Any) -> None:
        self.left = runtime_context.get_state(ValueStateDescriptor("left", Types.INT()))
        self.right = runtime_context.get_state(ValueStateDescriptor("right", Types.INT()))

    def process_element1(self, value: Any, ctx: Any) -> Any:
        n = (self.left.value() or 0) + 1
        self.left.update(n)
        yield ("left", value, n)

    def process_element2(self, value: Any, ctx: Any) -> Any:
        n = (self.right.value() or 0) + 1
        self.right.update(n)
        yield ("right", value, n)


def _connect(env: StreamExecutionEnvironment, store: TransactionStore) -> None:
    left = env.from_collection(LEFT)
    right = env.from_collection(RIGHT)
    (
        left.connect(right)
        .key_by(lambda k: k, lambda k: k)
        .process(CountBothSides())
        .add_sink(TransactionalListSink(store))
    )


# -- windows: event-time tumbling window reduce, then a running total per key --------------------
class EventTime(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return int(value[1])


def _timestamped(env: StreamExecutionEnvironment) -> Any:
    return env.from_collection(EVENTS).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )


class WindowTotals(KeyedProcessFunction):
    """(key, window start, window sum) → (key, window start, window sum, total so far)."""

    def open(self, runtime_context: Any) -> None:
        self.total = runtime_context.get_state(ValueStateDescriptor("total", Types.INT()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        total = (self.total.value() or 0) + value[2]
        self.total.update(total)
        yield (*value, total)


def _windows(env: StreamExecutionEnvironment, store: TransactionStore) -> None:
    (
        _timestamped(env)
        .key_by(lambda t: t[0])
        .window(TumblingEventTimeWindows.of(Time.milliseconds(WINDOW)))
        .reduce(lambda a, b: (a[0], min(a[1], b[1]), a[2] + b[2]))
        .map(lambda t: (t[0], t[1] // WINDOW * WINDOW, t[2]))
        .key_by(lambda t: t[0])
        .process(WindowTotals())
        .add_sink(TransactionalListSink(store))
    )


def _window_results() -> Counter[Any]:
    sums: dict[tuple[str, int], int] = {}
    for k, ts, v in EVENTS:
        sums[(k, ts // WINDOW * WINDOW)] = sums.get((k, ts // WINDOW * WINDOW), 0) + v
    totals: dict[str, int] = {}
    out: Counter[Any] = Counter()
    for (k, start), s in sorted(sums.items()):
        totals[k] = totals.get(k, 0) + s
        out[(k, start, s, totals[k])] += 1
    return out


# -- keyed process with event-time timers: per-bucket sums emitted when the bucket's timer fires --
class BucketSums(KeyedProcessFunction):
    """Adds each value to its bucket (MapState) and counts elements (ValueState); the bucket's
    event-time timer emits (key, bucket end, sum) and clears the bucket."""

    def open(self, runtime_context: Any) -> None:
        self.buckets = runtime_context.get_map_state(
            MapStateDescriptor("buckets", Types.LONG(), Types.INT())
        )
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        end = value[1] // WINDOW * WINDOW + WINDOW - 1
        self.buckets.put(end, (self.buckets.get(end) or 0) + value[2])
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(end)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (ctx.get_current_key(), timestamp, self.buckets.get(timestamp))
        self.buckets.remove(timestamp)


def _timers(env: StreamExecutionEnvironment, store: TransactionStore) -> None:
    (
        _timestamped(env)
        .key_by(lambda t: t[0])
        .process(BucketSums())
        .add_sink(TransactionalListSink(store))
    )


def _bucket_sums() -> Counter[Any]:
    sums: Counter[Any] = Counter()
    for k, ts, v in EVENTS:
        sums[(k, ts // WINDOW * WINDOW + WINDOW - 1)] += v
    return Counter((k, end, s) for (k, end), s in sums.items())


def _sides(name: str, keys: list[str]) -> Counter[Any]:
    return Counter((name, k, n) for k, n in running([(k, 1) for k in keys]))


PIPELINES = [
    CheckpointedPipeline(
        "word_count", _word_count, "Keyed Reduce", running([(w, 1) for w in WORDS])
    ),
    CheckpointedPipeline("keyed_process", _keyed_process, "KeyedProcess", running(AMOUNTS)),
    CheckpointedPipeline(
        "connect", _connect, "Co-Keyed-Process", _sides("left", LEFT) + _sides("right", RIGHT)
    ),
    CheckpointedPipeline("windows", _windows, "KeyedProcess", _window_results()),
    CheckpointedPipeline("keyed_timers", _timers, "KeyedProcess", _bucket_sums()),
]


def build(
    pipeline: CheckpointedPipeline,
    store: TransactionStore,
    parallelism: int = 2,
    interval: int = 10,
) -> StreamExecutionEnvironment:
    env = environment(parallelism, interval)
    pipeline.build(env, store)
    return env
