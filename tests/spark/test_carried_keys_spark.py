"""On Spark (batch stages and Structured Streaming subtasks) a record crossing a HASH edge carries
the key its partitioner selected, as on the simulated cluster (PyFlink's ``key_by`` ships
``Row(key, value)``): the consumer's key context takes it and the key selector runs once per
record, whether the chunk travels pickled or as a typed column."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

pytestmark = pytest.mark.spark

WORDS = "to be or not to be that is the question whether tis nobler in the mind".split() * 5


def counted_job(calls: Path, mode: str, typed: bool, streaming: bool) -> StreamExecutionEnvironment:
    """words → (word, 1) → key_by(a selector that logs each call) → a per-key running count.

    The classes are local, so Spark's workers get them by value."""
    from pyflowkit.datastream.functions import KeyedProcessFunction
    from pyflowkit.datastream.state import ValueStateDescriptor

    class LoggingKey:
        def __init__(self, path: str) -> None:
            self.path = path

        def __call__(self, value: Any) -> Any:
            with open(self.path, "a") as f:
                f.write(value[0] + "\n")
            return value[0]

    class CountPerKey(KeyedProcessFunction):
        def open(self, ctx: Any) -> None:
            self.n = ctx.get_state(ValueStateDescriptor("n", Types.INT()))

        def process_element(self, value: Any, ctx: Any) -> Any:
            n = (self.n.value() or 0) + 1
            self.n.update(n)
            yield f"{ctx.get_current_key()}#{n}"

    conf = Configuration()
    conf.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    if streaming:
        conf.set_string("pyflowkit.spark.streaming-query", "always")
        conf.set_string("pyflowkit.spark.streaming.trigger", "available-now")
        conf.set_string("pyflowkit.spark.streaming.max-records-per-batch", "16")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.set_runtime_mode(getattr(RuntimeExecutionMode, mode))
    pairs = Types.TUPLE([Types.STRING(), Types.INT()]) if typed else None
    (
        env.from_collection(WORDS, type_info=Types.STRING())
        .map(lambda w: (w, 1), output_type=pairs)
        .key_by(LoggingKey(str(calls)))
        .process(CountPerKey(), output_type=Types.STRING())
        .print("n")
    )
    return env


def expected_lines() -> list[str]:
    return sorted(f"{w}#{i}" for w, n in Counter(WORDS).items() for i in range(1, n + 1))


@pytest.mark.parametrize(
    "mode, typed",
    [("BATCH", False), ("BATCH", True), ("STREAMING", True)],
    ids=["batch-pickled", "batch-typed", "streaming-typed"],
)
def test_spark_batch_stages_select_each_key_once(
    spark: Any, tmp_path: Path, mode: str, typed: bool
) -> None:
    from pyflowkit.spark.executor import execute

    calls = tmp_path / "calls"
    env = counted_job(calls, mode, typed, streaming=False)
    lines = execute(env.get_job_graph(), spark=spark, print_output=False).print_lines
    assert sorted(line.split("> ", 1)[1] for line in lines) == expected_lines()
    assert Counter(calls.read_text().split()) == Counter(WORDS)  # once per record


def test_spark_streaming_subtasks_select_each_key_once(spark: Any, tmp_path: Path) -> None:
    from tests.spark_streaming.helpers import run_streaming

    calls = tmp_path / "calls"
    job = run_streaming(spark, counted_job(calls, "STREAMING", False, streaming=True))
    job.raise_if_failed()
    assert job.status == "FINISHED"
    got = sorted(line.split("> ", 1)[1] for line in job.print_lines)
    assert got == expected_lines()
    assert Counter(calls.read_text().split()) == Counter(WORDS)  # once per record


@pytest.mark.parametrize("typed", [False, True], ids=["pickled", "typed"])
def test_spark_batch_keyed_broadcast_side_held_keeps_its_carried_keys(
    spark: Any, tmp_path: Path, typed: bool
) -> None:
    """BATCH broadcast-first on a Spark stage: the keyed events that arrive before the broadcast
    side has ended wait, and keep the keys their HASH edge selected (once per record); each
    event then sees the rule and its own key's state."""
    from pyflowkit.datastream.functions import KeyedBroadcastProcessFunction
    from pyflowkit.datastream.state import MapStateDescriptor, ValueStateDescriptor
    from pyflowkit.spark.executor import execute

    rules = MapStateDescriptor("rules", Types.STRING(), Types.INT())

    class LoggingKey:
        def __init__(self, path: str) -> None:
            self.path = path

        def __call__(self, value: Any) -> Any:
            with open(self.path, "a") as f:
                f.write(value[0] + "\n")
            return value[0]

    class CountWithRule(KeyedBroadcastProcessFunction):
        def open(self, ctx: Any) -> None:
            self.n = ctx.get_state(ValueStateDescriptor("n", Types.INT()))

        def process_element(self, value: Any, ctx: Any) -> Any:
            n = (self.n.value() or 0) + 1
            self.n.update(n)
            yield f"{ctx.get_current_key()}#{n}/{ctx.get_broadcast_state(rules).get('limit')}"

        def process_broadcast_element(self, value: Any, ctx: Any) -> None:
            ctx.get_broadcast_state(rules).put(value[0], value[1])

    calls = tmp_path / "calls"
    conf = Configuration()
    conf.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    pairs = Types.TUPLE([Types.STRING(), Types.INT()]) if typed else None
    events = env.from_collection(WORDS, type_info=Types.STRING()).map(
        lambda w: (w, 1), output_type=pairs
    )
    broadcast = env.from_collection(
        [("limit", 3)], type_info=Types.TUPLE([Types.STRING(), Types.INT()])
    ).broadcast(rules)
    (
        events.key_by(LoggingKey(str(calls)))
        .connect(broadcast)
        .process(CountWithRule(), output_type=Types.STRING())
        .print("n")
    )
    lines = execute(env.get_job_graph(), spark=spark, print_output=False).print_lines
    got = sorted(line.split("> ", 1)[1] for line in lines)
    assert got == sorted(f"{w}#{i}/3" for w, n in Counter(WORDS).items() for i in range(1, n + 1))
    assert Counter(calls.read_text().split()) == Counter(WORDS)  # once per record


def test_a_pushed_down_sum_ships_its_partial_records_with_their_keys(
    spark: Any, tmp_path: Path
) -> None:
    """The producer selects each record's key once to combine it, and once per partial record
    to route it; the partial record carries that key, so the consumer's fold selects none
    (was: once more per partial record)."""
    from pyflowkit.spark.executor import execute

    calls = tmp_path / "calls"

    class LoggingKey:
        def __init__(self, path: str) -> None:
            self.path = path

        def __call__(self, value: Any) -> Any:
            with open(self.path, "a") as f:
                f.write(value[0] + "\n")
            return value[0]

    conf = Configuration()
    conf.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    (
        env.from_collection(WORDS, type_info=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .set_parallelism(1)  # one producer: one partial record per key
        .key_by(LoggingKey(str(calls)), key_type=Types.STRING())
        .sum(1)
        .print("n")
    )
    lines = execute(env.get_job_graph(), spark=spark, print_output=False).print_lines
    assert sorted(line.split("> ", 1)[1] for line in lines) == sorted(
        f"({w},{n})" for w, n in Counter(WORDS).items()
    )
    # each record once (combine), each key once more (its partial record's route)
    assert Counter(calls.read_text().split()) == Counter(WORDS) + Counter(set(WORDS))
