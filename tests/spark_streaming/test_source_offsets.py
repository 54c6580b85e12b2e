"""The source reader's offsets go on across a restart, whatever the source restores: a
``NumberSequenceSource`` restores its splits (which carry no count), a plain source its position;
a reader rebuilt from a logged offset reads exactly what the live reader reads next. Run
in-process, without Spark."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import NumberSequenceSource
from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.streaming_source import FlinkSourceStreamReader
from pyflowkit.spark.streaming_task import marker_time

BATCH = 5  # records per source subtask and micro-batch


def _numbers(env: StreamExecutionEnvironment) -> None:
    env.from_source(
        NumberSequenceSource(1, 60), WatermarkStrategy.no_watermarks(), "Numbers"
    ).print()


def _collection(env: StreamExecutionEnvironment) -> None:
    env.set_parallelism(1)  # forward to the sink (a restored task's round robin starts anew)
    env.from_collection(list(range(60)), type_info=Types.INT()).print()


def _source_spec(build: Any) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    build(env)
    graph = env.get_job_graph()
    spec = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")[0]
    spec.typed = {}  # as the streaming plan: chunks travel pickled
    return spec


def _reader(spec: Any) -> FlinkSourceStreamReader:
    return FlinkSourceStreamReader(spec, max_records=BATCH, max_millis=60_000)


def _untimed(rows: Any) -> list[tuple]:
    """The rows without their time markers: processing time is each reader's own (it counts
    the wall time a read step really takes, as Flink's clock would)."""
    return [r for r in rows if marker_time(r[4]) is None]


def _unclocked(offset: dict) -> dict:
    subtasks = [{k: v for k, v in s.items() if k != "clock"} for s in offset["subtasks"]]
    return {**offset, "subtasks": subtasks}


@pytest.mark.parametrize("build", [_numbers, _collection], ids=["splits", "position"])
def test_a_reader_rebuilt_from_an_offset_reads_what_the_live_one_reads_next(build: Any) -> None:
    spec = _source_spec(build)
    live = _reader(spec)
    offset = live.initialOffset()
    for _ in range(2):
        _, offset = live.read(offset)
    restarted = _reader(spec)  # a restarted query: its subtasks restored from the offset
    for _ in range(3):
        rows, end = live.read(offset)
        again, again_end = restarted.read(offset)
        assert _untimed(again) == _untimed(rows)
        assert _unclocked(again_end) == _unclocked(end)
        positions = [s["pos"] for s in end["subtasks"]]
        assert positions == [s["pos"] + BATCH for s in offset["subtasks"]]
        offset = end
        restarted.stop()
        restarted = _reader(spec)
    live.stop()
