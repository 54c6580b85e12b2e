"""Spark streaming's processing time follows the rule the simulated cluster follows
(``pyflowkit.task.processing_clock``): a source's time passes while it reads or waits, not while
Spark holds it back between micro-batches, and its consumers follow it in-band. So under Flink
1.20's 200 ms periodic watermarks a fast bounded source read in slices gets no watermark between
two slices (in Flink it emits everything before the first one), while a source that really waits
gets its periodic watermarks. The Spark-free tests drive the reader and subtasks directly; the
last streams the four catalog cases that differed before the rule (late out-of-order records)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pyflowkit.common import Duration, Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.spark import records
from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.streaming_source import FlinkSourceStreamReader
from pyflowkit.spark.streaming_task import StreamingSubtask, marker_time
from pyflowkit.state.time import MAX_WATERMARK
from tests.pipelines.catalog import BY_NAME
from tests.pipelines.spec import STREAMING, assert_results

pytestmark = pytest.mark.flink_version("1.20")  # EventTime, 200 ms auto-watermark interval

OUT_OF_ORDER = [("a", 1, 30), ("a", 2, 10), ("a", 3, 40), ("a", 4, 20), ("a", 5, 50), ("a", 6, 5)]


class Sleepy(SourceFunction):
    """Value i at event time 10 * i, for ever; really sleeps ``millis`` after each record."""

    def __init__(self, millis: float) -> None:
        self.millis = millis

    def run(self, ctx: Any) -> Any:
        i = 0
        while True:
            ctx.collect_with_timestamp(("k", i), 10 * i)
            time.sleep(self.millis / 1000)
            i += 1
            yield None

    def cancel(self) -> None:
        pass


class Pausing(SourceFunction):
    """Three records, each followed by ``ctx.sleep(100)`` (simulated: nobody waits for it)."""

    def run(self, ctx: Any) -> Any:
        for i in range(3):
            ctx.collect_with_timestamp(("k", i), i)
            ctx.sleep(100)
            yield None

    def cancel(self) -> None:
        pass


def _spec(build: Any) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    assert env.get_config().get_auto_watermark_interval() == 200  # the 1.20 default
    build(env)
    graph = env.get_job_graph()
    specs = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")
    for spec in specs:
        spec.typed = {}  # as the streaming plan: chunks travel pickled
    return specs


def _watermarks(rows: list[tuple]) -> list[int]:
    out = []
    for row in rows:
        payload = row[4]
        if row[0] < 0 or payload == records.END_OF_PARTITION or marker_time(payload) is not None:
            continue
        _values, _stamps, watermark, _keys = records.decode_chunk(payload)
        if watermark is not None:
            out.append(watermark)
    return out


def _timed_collection(env: Any) -> None:
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(5)
    ).with_timestamp_assigner(lambda e, _ts: e[2])
    env.from_collection(
        OUT_OF_ORDER, type_info=Types.TUPLE([Types.STRING(), Types.INT(), Types.INT()])
    ).assign_timestamps_and_watermarks(strategy).rebalance().print()


def test_a_fast_bounded_source_gets_no_periodic_watermark_between_slices() -> None:
    """Spark's gaps between micro-batches (here 250 ms, more than the 200 ms interval) are not
    the source's time: its clock moves a millisecond a slice, and only MAX_WATERMARK follows."""
    spec = _spec(_timed_collection)[0]
    reader = FlinkSourceStreamReader(spec, max_records=2, max_millis=60_000)
    offset = reader.initialOffset()
    rows: list[tuple] = []
    clocks = []
    while not offset["subtasks"][0]["ended"]:
        time.sleep(0.25)  # Spark's own work between two micro-batches
        batch, offset = reader.read(offset)
        rows += list(batch)
        clocks.append(offset["subtasks"][0]["clock"])
    reader.stop()
    assert len(clocks) == 3
    assert clocks[-1] - clocks[0] < 200  # 0.75 s of host gaps did not pass for the source
    assert _watermarks(rows) == [MAX_WATERMARK]


def test_a_source_that_really_waits_gets_periodic_watermarks_between_slices() -> None:
    """A generator sleeping 30 ms a record: its time passes by those waits (not by Spark's
    gaps), so after 12 records (360 ms of its time) a periodic watermark has followed."""

    def build(env: Any) -> None:
        env.add_source(Sleepy(30)).assign_timestamps_and_watermarks(
            WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
                lambda e, _ts: 10 * e[1]
            )
        ).rebalance().print()

    spec = _spec(build)[0]
    reader = FlinkSourceStreamReader(spec, max_records=4, max_millis=60_000)
    offset = reader.initialOffset()
    start = None
    rows: list[tuple] = []
    for _ in range(3):
        batch, offset = reader.read(offset)
        rows += list(batch)
        start = start if start is not None else offset["subtasks"][0]["clock"]
    reader.stop()
    elapsed = offset["subtasks"][0]["clock"] - start
    assert 8 * 30 <= elapsed < 8 * 30 + 2_000  # the next 8 records' real sleeps, at least
    marks = _watermarks(rows)
    assert marks and all(0 <= w < 12 * 10 for w in marks)  # periodic: below the last record


def test_ctx_sleep_passes_on_the_source_clock_without_waiting() -> None:
    def build(env: Any) -> None:
        env.add_source(Pausing()).print()

    spec = _spec(build)[0]
    task = StreamingSubtask(spec, 0, None, 10_000)
    started = time.monotonic()
    task.emit_source(None, None)
    assert time.monotonic() - started < 0.25  # nobody slept 300 ms
    assert task.finished
    assert task.runner.clock.get_current_processing_time() >= 10_000 + 3 * 100


def test_a_consumer_takes_its_time_from_its_producers_in_band() -> None:
    """The source's rows start with a marker of its time; the consumer subtask (built at a
    much later wall clock) advances to it, and its own output carries it on."""

    def build(env: Any) -> None:
        env.from_collection([("a", 1), ("b", 2)]).rebalance().map(lambda e: e).print()

    source_spec, map_spec = _spec(build)[:2]
    source = StreamingSubtask(source_spec, 0, None, 5_000)
    source.emit_source(1, None)
    cols = source.drain(1)
    times = [marker_time(p) for p in cols["payload"] if marker_time(p) is not None]
    assert times and set(times) == {source.now} and cols["payload"][0][:1] == b"T"
    consumer = StreamingSubtask(map_spec, 0, None, 1_000)
    rows = list(zip(cols["edge"], cols["producer"], cols["payload"], strict=True))
    consumer.process(rows)
    assert consumer.now == source.now


@pytest.mark.spark
@pytest.mark.parametrize(
    "name",
    [
        "tumbling_event_time_reduce_out_of_order_p2",
        "sliding_event_time_sum",
        "tumbling_window_apply_p3",
        "window_all_tumbling_event_time",
    ],
)
def test_out_of_order_windows_streamed_in_slices_under_1_20(spark, name: str) -> None:
    """Fed two records a micro-batch under 200 ms periodic watermarks, no record is late."""
    from tests.spark_streaming.helpers import run_streaming, streaming_env

    pipeline = BY_NAME[name]
    env = streaming_env(pipeline, **{"pyflowkit.spark.streaming.max-records-per-batch": "2"})
    assert env.get_config().get_auto_watermark_interval() == 200
    job = run_streaming(spark, env)
    job.raise_if_failed()
    assert job.batches >= 5
    assert_results(pipeline, STREAMING, job.print_lines)
