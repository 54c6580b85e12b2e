"""Under Flink 1.20's time defaults (FLINK-19317: EventTime, 200 ms auto-watermark interval) an
event-time tumbling window over an endless source fires while the Spark streaming query runs,
without the program setting a time characteristic or an interval."""

from __future__ import annotations

import time
from typing import Any

import pytest

from pyflowkit.common import Configuration, Time, Types
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.common.watermark_strategy import WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.datastream.window import TumblingEventTimeWindows

pytestmark = pytest.mark.spark


class Endless(SourceFunction):
    """Value i at event time 10 * i, for ever; no watermark of its own."""

    def run(self, ctx: Any) -> Any:
        i = 0
        while True:
            ctx.collect_with_timestamp(("k", i), 10 * i)
            i += 1
            if i % 8 == 0:
                time.sleep(0.05)
            yield None

    def cancel(self) -> None:
        pass


def test_event_time_window_fires_on_spark_streaming_under_1_20(spark) -> None:
    configuration = Configuration()
    for key, value in {
        FLINK_VERSION_KEY: "1.20",
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "8",
    }.items():
        configuration.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_parallelism(1)
    (
        env.add_source(Endless(), "Events", Types.TUPLE([Types.STRING(), Types.INT()]))
        .assign_timestamps_and_watermarks(
            WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
                lambda e, _ts: 10 * e[1]
            )
        )
        .key_by(lambda e: e[0], key_type=Types.STRING())
        .window(TumblingEventTimeWindows.of(Time.milliseconds(100)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    client = env.execute_async(spark=spark)
    job = client.job
    try:
        deadline = time.monotonic() + 180
        while len(job.print_lines) < 2 and time.monotonic() < deadline:
            assert job.poll(0.1) == "RUNNING", job.error
        # windows [0, 100) and [100, 200): values 0..9 and 10..19, summed
        assert job.print_lines[:2] == ["(k,45)", "(k,145)"]
    finally:
        client.cancel().result()
