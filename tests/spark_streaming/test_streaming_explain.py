"""``env.explain_spark()`` of an unbounded job shows its streaming plan: which vertex became the
Python stream source or which transformWithState (time mode, state), the edges' routing, the
trigger, the checkpoint location and the state store."""

from __future__ import annotations

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction, SourceFunction

pytestmark = pytest.mark.spark


class Numbers(SourceFunction):
    def run(self, ctx):
        yield from range(5)


class Echo(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value


def test_explain_spark_shows_the_streaming_plan(spark) -> None:
    from pyflowkit.spark.executor import explain_spark

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(500)
    (
        env.add_source(Numbers(), "Numbers", Types.INT())
        .key_by(lambda x: x % 2, key_type=Types.INT())
        .reduce(lambda a, b: a + b)
        .key_by(lambda x: x % 3, key_type=Types.INT())
        .process(Echo(), Types.INT())
        .print()
    )
    text = str(explain_spark(env, spark=spark))
    lines = text.splitlines()
    assert lines[0] == (
        "Spark Structured Streaming plan of 'Flink Streaming Job' (unbounded, STREAMING)"
    )
    assert "Trigger: processingTime 500 ms (the checkpoint interval)" in lines[1]
    assert "state store: RocksDBStateStoreProvider" in lines[1]
    assert any(
        "stage 0: Source: Numbers — Python stream source (SimpleDataSourceStreamReader" in line
        for line in lines
    )
    assert any(
        "stage 1: Keyed Reduce — groupBy(g, t).transformWithStateInPandas(timeMode=None, Append)"
        in line
        for line in lines
    )
    assert any(
        "KeyedProcess -> Sink: Print to Std. Out — groupBy(g, t).transformWithStateInPandas("
        "timeMode=ProcessingTime, Append), 2 subtask(s); state: keyed state + timers" in line
        for line in lines
    )
    assert any(
        "Source: Numbers -> Keyed Reduce: HASH — target = key group → subtask" in line
        for line in lines
    )
    assert "TransformWithState" in text  # Spark's own plan follows
