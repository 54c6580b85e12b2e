"""BATCH execution mode, written once: Flink 1.12's BatchGroupedReduceOperator, processing-time
timers at end of input, no progressive watermarks; the same on the simulated cluster and Spark."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Duration, Types, WatermarkStrategy
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.errors import IllegalStateException
from pyflowkit.graph.transformations import Boundedness, OperatorFactory
from pyflowkit.operators.batch_grouped_reduce import BatchGroupedReduceOperator
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.grouped_reduce import StreamGroupedReduce
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.timestamps_watermarks import TimestampsAndWatermarksOperator
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.spark.batch import apply_batch_semantics
from pyflowkit.state.time import LONG_MAX_VALUE, MAX_WATERMARK
from pyflowkit.task.execution_mode import factory_for_mode, resolve_runtime_mode

PAIRS = [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5), ("b", 6)]


def harness(op: Any, key: Any = None, mode: str = "BATCH", **config: Any) -> CollectingOutput:
    out = CollectingOutput()
    env = TaskEnvironment(processing_time_service=ManualProcessingTimeService())
    cfg = StreamConfig(operator_name="Keyed Reduce", key_selector=key, runtime_mode=mode, **config)
    op.setup(env, cfg, out)
    op.initialize_state(None)
    op.open()
    return out


def add(a: tuple, b: tuple) -> tuple:
    return (a[0], a[1] + b[1])


@pytest.mark.parametrize("batched", [False, True])
def test_batch_reduce_emits_final_value_per_key_at_max_watermark(batched: bool) -> None:
    op = BatchGroupedReduceOperator(add)
    out = harness(op, key=lambda t: t[0])
    if batched:
        op.process_batch(PAIRS[:3], None)
        op.process_batch(PAIRS[3:], None)
    else:
        for v in PAIRS:
            op.set_key_context_element1(v)
            op.process_element(v, 7)
    assert out.records == []
    op.process_watermark(1000)  # a progressive watermark does not end the keys
    assert out.records == []
    op.process_watermark(MAX_WATERMARK)
    # first-seen key order (timers at Long.MAX_VALUE fire in registration order), Flink's timestamp
    assert out.records == [
        (("a", 9), LONG_MAX_VALUE),
        (("b", 8), LONG_MAX_VALUE),
        (("c", 4), LONG_MAX_VALUE),
    ]
    assert out.watermarks == [1000, MAX_WATERMARK]


def test_batch_reduce_keeps_state_as_the_streaming_reduce() -> None:
    op = BatchGroupedReduceOperator(add)
    harness(op, key=lambda t: t[0])
    op.process_batch(PAIRS, None)
    assert op.keyed_state_backend.dump()["_op_state"] == {
        "a": ("a", 9),
        "b": ("b", 8),
        "c": ("c", 4),
    }
    assert op._timer_service.num_event_time_timers() == 3


def test_factory_for_mode_swaps_the_reduce_only_in_batch() -> None:
    factory = OperatorFactory("StreamGroupedReduce", params={"function": add})
    assert factory_for_mode(factory, "STREAMING") is factory
    batch = factory_for_mode(factory, "BATCH")
    assert batch.operator_class == "BatchGroupedReduceOperator"
    assert type(batch.create()) is BatchGroupedReduceOperator
    assert type(factory.create()) is StreamGroupedReduce
    mapper = OperatorFactory("StreamMap", params={"function": str})
    assert factory_for_mode(mapper, "BATCH") is mapper


class Node:
    def __init__(self, boundedness: Any = None) -> None:
        self.transformation = type("T", (), {"boundedness": boundedness})()


def test_automatic_is_batch_unless_a_source_is_unbounded() -> None:
    bounded, unbounded = Node(Boundedness.BOUNDED), Node(Boundedness.CONTINUOUS_UNBOUNDED)
    assert resolve_runtime_mode("AUTOMATIC", [bounded, Node()]) == "BATCH"
    assert resolve_runtime_mode("AUTOMATIC", [bounded, unbounded]) == "STREAMING"
    assert resolve_runtime_mode(RuntimeExecutionMode.BATCH, [unbounded]) == "BATCH"
    assert resolve_runtime_mode("STREAMING", []) == "STREAMING"
    with pytest.raises(ValueError, match="Unknown execution.runtime-mode 'FAST'"):
        resolve_runtime_mode("fast", [])


def test_batch_timestamp_assigner_emits_no_progressive_watermarks() -> None:
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(5)
    ).with_timestamp_assigner(lambda v, ts: v)
    op = TimestampsAndWatermarksOperator(strategy)
    clock = ManualProcessingTimeService()
    out = CollectingOutput()
    cfg = StreamConfig(operator_name="wm", auto_watermark_interval=200, runtime_mode="BATCH")
    op.setup(TaskEnvironment(processing_time_service=clock), cfg, out)
    op.initialize_state(None)
    op.open()
    for v in (100, 90, 120):
        op.process_element(v, None)
    clock.set_current_time(1000)
    op.close()
    assert out.watermarks == []
    op.process_watermark(MAX_WATERMARK)
    assert out.records == [(100, 100), (90, 90), (120, 120)]
    assert out.watermarks == [MAX_WATERMARK]


class FarTimer(KeyedProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        ctx.timer_service().register_processing_time_timer(10**12 + value[1])
        yield value

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (ctx.get_current_key(), "fired", timestamp)


def word_env(mode: RuntimeExecutionMode, parallelism: int = 2) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.set_runtime_mode(mode)
    pairs = env.from_collection(PAIRS, type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
    pairs.key_by(lambda t: t[0]).reduce(add).print("sum")
    pairs.key_by(lambda t: t[0]).process(FarTimer()).print("timer")
    return env


def run_cluster(mode: RuntimeExecutionMode) -> list[str]:
    run = MiniCluster(seed=1, echo_print=False).submit(word_env(mode)).run()
    run.raise_if_failed()
    assert run.job_status is JobStatus.FINISHED
    return run.printed()


def test_simulated_cluster_honours_batch_and_automatic() -> None:
    batch = run_cluster(RuntimeExecutionMode.BATCH)
    assert sorted(x.split("> ")[1] for x in batch if x.startswith("sum")) == [
        "(a,9)",
        "(b,8)",
        "(c,4)",
    ]
    fired = sorted(x.split("> ")[1] for x in batch if "fired" in x)
    assert fired == [
        "('a', 'fired', 1000000000001)",
        "('a', 'fired', 1000000000003)",
        "('a', 'fired', 1000000000005)",
        "('b', 'fired', 1000000000002)",
        "('b', 'fired', 1000000000006)",
        "('c', 'fired', 1000000000004)",
    ]
    assert sorted(run_cluster(RuntimeExecutionMode.AUTOMATIC)) == sorted(batch)
    streaming = run_cluster(RuntimeExecutionMode.STREAMING)
    assert len([x for x in streaming if x.startswith("sum")]) == len(PAIRS)  # running updates
    assert not [x for x in streaming if "fired" in x]  # 1.11: far timers never fire


def test_spark_batch_check_names_an_operator_built_for_streaming() -> None:
    op = StreamGroupedReduce(add)
    harness(op, key=lambda t: t[0], mode="STREAMING")
    with pytest.raises(
        IllegalStateException, match="Operator 'Keyed Reduce' was set up for STREAMING"
    ):
        apply_batch_semantics([op])
    ok = BatchGroupedReduceOperator(add)
    harness(ok, key=lambda t: t[0])
    assert apply_batch_semantics([ok]) == []
