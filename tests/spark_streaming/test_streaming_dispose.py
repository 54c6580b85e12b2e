"""A streaming job's subtasks on Spark end each micro-batch as a Flink task ends: every function
a micro-batch's task opened is closed by ``dispose`` (``disposeAllOperators``), once, also after a
failure; the source reader's live subtasks are disposed when they are rebuilt from an offset and
when the query stops. Run in-process, without Spark (fake state handles stand for Spark's)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.streaming_processor import VertexProcessor
from pyflowkit.spark.streaming_source import FlinkSourceStreamReader
from tests.spark.lifecycle import Tracked

NOW = 1_000


class Counting(SourceFunction):
    """An endless source (``while running``) that opens and closes like a rich function."""

    def __init__(self) -> None:
        self.running = True

    def open(self, runtime_context: Any) -> None:
        Tracked.calls.append("source open")

    def run(self, ctx: Any) -> None:
        i = 0
        while self.running:
            ctx.collect(i)
            i += 1

    def cancel(self) -> None:
        self.running = False
        Tracked.calls.append("source cancel")

    def close(self) -> None:
        Tracked.calls.append("source close")


def _specs(env: StreamExecutionEnvironment) -> list[Any]:
    graph = env.get_job_graph()
    specs = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")
    for spec in specs:
        spec.typed = {}  # as the streaming plan: chunks travel pickled
    return specs


class _Value:
    def __init__(self) -> None:
        self.value: tuple | None = None

    def exists(self) -> bool:
        return self.value is not None

    def get(self) -> tuple:
        assert self.value is not None
        return self.value

    def update(self, value: tuple) -> None:
        self.value = value


class _Map:
    def __init__(self) -> None:
        self.entries: dict[tuple, tuple] = {}

    def iterator(self) -> Iterator[tuple[tuple, tuple]]:
        return iter(list(self.entries.items()))

    def updateValue(self, key: tuple, value: tuple) -> None:  # noqa: N802 - Spark's name
        self.entries[key] = value

    def removeKey(self, key: tuple) -> None:  # noqa: N802 - Spark's name
        del self.entries[key]


class _Handle:
    def __init__(self) -> None:
        self.value, self.map = _Value(), _Map()

    def getValueState(self, name: str, schema: str) -> _Value:  # noqa: N802 - Spark's name
        return self.value

    def getMapState(self, name: str, key: str, value: str) -> _Map:  # noqa: N802 - Spark's name
        return self.map


class _Timers:
    def getCurrentProcessingTimeInMs(self) -> int:  # noqa: N802 - Spark's name
        return NOW


def _frame(rows: list[tuple]) -> pd.DataFrame:
    edge, target, producer, payload = zip(*rows, strict=True) if rows else ((), (), (), ())
    return pd.DataFrame(
        {
            "edge": list(edge),
            "target": list(target),
            "producer": list(producer),
            "seq": list(range(len(rows))),
            "payload": list(payload),
        }
    )


def _map_job(fail_on: int | None = None) -> list[Any]:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.add_source(Counting(), "Counting").disable_chaining().map(Tracked(fail_on)).print()
    return _specs(env)


def _source_batches(reader: FlinkSourceStreamReader, n: int) -> list[list[tuple]]:
    offset = reader.initialOffset()
    batches = []
    for _ in range(n):
        rows, offset = reader.read(offset)
        batches.append(list(rows))
    return batches


def test_each_micro_batch_closes_what_it_opened() -> None:
    Tracked.calls.clear()
    source_spec, map_spec = _map_job()
    reader = FlinkSourceStreamReader(source_spec, max_records=5, max_millis=60_000)
    batches = _source_batches(reader, 3)
    assert Tracked.calls == ["source open"]  # the source's subtask lives across micro-batches
    processor = VertexProcessor(map_spec, timers=False)
    processor.init(_Handle())
    for batch in batches:
        rows = [(e, t, p, b) for e, t, p, _seq, b in batch]
        assert list(processor.handleInputRows((0, 0), iter([_frame(rows)]), _Timers()))
    assert Tracked.calls == ["source open"] + ["open", "close"] * 3
    reader.stop()  # the query stopped: the live source subtask is disposed
    assert Tracked.calls[-2:] == ["source cancel", "source close"]
    reader.stop()
    assert Tracked.calls.count("source close") == 1


def test_a_failed_micro_batch_closes_its_functions_once() -> None:
    Tracked.calls.clear()
    source_spec, map_spec = _map_job(fail_on=3)
    reader = FlinkSourceStreamReader(source_spec, max_records=5, max_millis=60_000)
    (batch,) = _source_batches(reader, 1)
    processor = VertexProcessor(map_spec, timers=False)
    processor.init(_Handle())
    rows = [(e, t, p, b) for e, t, p, _seq, b in batch]
    with pytest.raises(RuntimeError, match="bad value 3"):
        list(processor.handleInputRows((0, 0), iter([_frame(rows)]), _Timers()))
    assert Tracked.calls == ["source open", "open", "close"]
    reader.stop()


def test_rebuilding_the_source_from_an_offset_disposes_the_live_subtasks() -> None:
    Tracked.calls.clear()
    source_spec, _ = _map_job()
    reader = FlinkSourceStreamReader(source_spec, max_records=5, max_millis=60_000)
    start = reader.initialOffset()
    first, end = reader.read(start)
    replayed = list(reader.readBetweenOffsets(start, end))  # a restart replays from start
    assert replayed == list(first)
    assert Tracked.calls == ["source open", "source cancel", "source close", "source open"]
    reader.stop()
    assert Tracked.calls.count("source close") == 2
