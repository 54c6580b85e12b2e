"""Batch paths the Spark stages rely on give exactly the per-element results and event order."""

from __future__ import annotations

import random

import pytest

from pyflowkit.common import WatermarkStrategy
from pyflowkit.common.watermark_strategy import WatermarkGenerator, _CallableTimestampAssigner
from pyflowkit.graph.partitioner import (
    ForwardPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
)
from pyflowkit.graph.routing import ChannelSelector
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.timestamps_watermarks import TimestampsAndWatermarksOperator
from pyflowkit.spark import records


class EveryThird(WatermarkGenerator):
    """Punctuated: emits ``ts - 1`` from ``on_event`` for every value divisible by 3."""

    def on_event(self, event, event_timestamp, output) -> None:
        if event % 3 == 0:
            output.emit_watermark(event_timestamp - 1)

    def on_periodic_emit(self, output) -> None:
        pass


def _operator(strategy, batch: bool = False):
    out = CollectingOutput()
    op = TimestampsAndWatermarksOperator(strategy)
    env = TaskEnvironment(processing_time_service=ManualProcessingTimeService())
    op.setup(env, StreamConfig(operator_name="Timestamps/Watermarks"), out)
    op.initialize_state(None)
    op.open()
    return op, out


class Punctuated(WatermarkStrategy):
    """A strategy whose generator emits from ``on_event`` (as a user's punctuated one may)."""

    def __init__(self, fail_on: int | None = None) -> None:
        def assign(v, ts):
            if v == fail_on:
                raise ValueError(f"bad {v}")
            return v * 10

        super().__init__("punctuated", None, _CallableTimestampAssigner(assign))

    def create_watermark_generator(self, clock=None) -> WatermarkGenerator:
        return EveryThird()


def _punctuated(fail_on: int | None = None) -> WatermarkStrategy:
    return Punctuated(fail_on)


@pytest.mark.parametrize(
    "strategy",
    [
        _punctuated(),
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda v, ts: v),
    ],
)
def test_timestamp_assigner_batch_equals_per_element(strategy) -> None:
    values = [1, 2, 3, 4, 5, 6, 7, 9, 8]
    single, single_out = _operator(strategy)
    for v in values:
        single.process_element(v, None)
    batch, batch_out = _operator(strategy)
    batch.process_batch(values[:4], None)
    batch.process_batch(values[4:], [5] * 5)  # upstream timestamps are replaced by the assigner
    assert batch_out.events == single_out.events
    assert batch.current_watermark == single.current_watermark


def test_punctuated_watermarks_split_the_batch_in_order() -> None:
    op, out = _operator(_punctuated())
    op.process_batch([1, 3, 4, 6], None)
    assert out.events == [
        ("record", 1, 10),
        ("record", 3, 30),
        ("watermark", 29, None),
        ("record", 4, 40),
        ("record", 6, 60),
        ("watermark", 59, None),
    ]


def test_records_before_a_failing_element_are_still_emitted() -> None:
    op, out = _operator(_punctuated(fail_on=4))
    with pytest.raises(ValueError, match="bad 4"):
        op.process_batch([1, 3, 4, 5], None)
    assert out.events == [("record", 1, 10), ("record", 3, 30), ("watermark", 29, None)]
    op.process_batch([7], None)  # the operator is still usable: no records left pending
    assert out.events[-1] == ("record", 7, 70)


@pytest.mark.parametrize(
    "partitioner",
    [
        lambda: KeyGroupStreamPartitioner(lambda v: v[0]),
        lambda: RebalancePartitioner(),
        lambda: ForwardPartitioner(),
    ],
)
def test_record_writer_batch_rows_equal_per_record_rows(partitioner) -> None:
    """``RecordWriterOutput.collect_batch`` writes the very rows ``collect`` writes: same targets,
    same chunk boundaries (every ``CHUNK_RECORDS`` buffered records), same payloads."""
    consumers = 1 if isinstance(partitioner(), ForwardPartitioner) else 3
    values = [(f"k{i % 37}", i) for i in range(2 * records.CHUNK_RECORDS + 700)]
    stamps = list(range(len(values)))

    def writer() -> tuple[records.RecordWriterOutput, records.RowSink]:
        sink = records.RowSink(0)
        sel = ChannelSelector.for_subtask(partitioner(), 0, 1, consumers, 128, random.Random(11))
        return records.RecordWriterOutput(4, sel, sink), sink

    single, single_sink = writer()
    for v, ts in zip(values, stamps, strict=True):
        single.collect(v, ts)
    single.emit_watermark(99)
    batch, batch_sink = writer()
    batch.collect_batch(values[:1000], stamps[:1000])
    batch.collect_batch(values[1000:], stamps[1000:])
    batch.emit_watermark(99)
    got, want = batch_sink.drain(), single_sink.drain()
    assert got["target"] == want["target"] and len(want["target"]) > consumers
    assert [records.loads(p) for p in got["payload"]] == [records.loads(p) for p in want["payload"]]


def test_stage_raises_the_gc_threshold_while_it_runs_and_restores_it() -> None:
    import gc

    import pyarrow as pa

    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.spark.plan import effective_runtime_mode, stage_specs
    from pyflowkit.spark.stage import GC_THRESHOLD, stage_function

    seen: list[tuple[int, int, int]] = []
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda x: seen.append(gc.get_threshold()) or x).print()
    job = env.get_job_graph()
    spec = stage_specs(job, job.stream_graph.execution_config, effective_runtime_mode(job))[0]
    before = gc.get_threshold()
    assert before != GC_THRESHOLD
    rows = list(stage_function(spec)(iter([pa.record_batch({"id": pa.array([0], pa.int64())})])))
    assert seen == [GC_THRESHOLD] * 3 and rows
    assert gc.get_threshold() == before
