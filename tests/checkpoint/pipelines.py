"""Checkpointed pipelines ending in a transactional sink, with their failure-free results.

Each pipeline's committed output is a multiset that does not depend on how the simulated
cluster interleaves its tasks, so any run — with or without failures — must commit exactly it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pyflowkit.common import Types
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedCoProcessFunction, KeyedProcessFunction
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

WORDS = ("to be or not to be that is the question " * 8).split()
AMOUNTS = [(f"k{i % 5}", i % 7 + 1) for i in range(60)]
LEFT = [f"k{i % 4}" for i in range(40)]
RIGHT = [f"k{i % 3}" for i in range(30)]


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
