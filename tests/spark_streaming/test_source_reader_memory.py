"""The Python stream source of a user ``SourceFunction`` runs an endless generator in flat memory:
the reader holds only what it read ahead, never what it handed out; a replay between two offsets
(a restarted query) gives exactly the rows of the original read. A bounded ``FileSource`` (whose
reader position is its splits) streams and replays the same way."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.operators.sources import SourceFunctionReader, SourceWatermark
from pyflowkit.spark import records
from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.streaming_source import FlinkSourceStreamReader
from pyflowkit.spark.streaming_task import STREAM_FIELDS

PER_BATCH = 50


class Endless(SourceFunction):
    """Counts up for ever; every 10th step also collects through the context (two records)."""

    def run(self, ctx: Any) -> Any:
        i = 0
        while True:
            if i % 10 == 9:
                ctx.collect(-i)
            yield i
            i += 1


class EndlessPlain(SourceFunction):
    """The same stream from a plain ``while True`` loop (it runs on its own source thread)."""

    def run(self, ctx: Any) -> None:
        i = 0
        while True:
            if i % 10 == 9:
                ctx.collect(-i)
            ctx.collect(i)
            i += 1


def _source_spec(source: type[SourceFunction] = Endless) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.add_source(source(), "Endless", Types.LONG()).map(
        lambda x: x * 2, output_type=Types.LONG()
    ).print()
    graph = env.get_job_graph()
    spec = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")[0]
    spec.typed = {}
    return spec


def _records(rows: Any) -> list[Any]:
    out = []
    for row in rows:
        fields = dict(zip(STREAM_FIELDS, row, strict=True))
        if fields["edge"] == records.PRINT_OUT:
            out.extend(records.loads(fields["payload"]))
    return out


def _reader_of(stream_reader: FlinkSourceStreamReader) -> SourceFunctionReader:
    reader = stream_reader.tasks[0].runner.chain.head.reader
    assert isinstance(reader, SourceFunctionReader)
    return reader


@pytest.mark.parametrize("source", [Endless, EndlessPlain])
def test_endless_source_function_reader_keeps_only_read_ahead_records(
    source: type[SourceFunction],
) -> None:
    stream_reader = FlinkSourceStreamReader(_source_spec(source), PER_BATCH, 60_000)
    offset = stream_reader.initialOffset()
    offsets = [offset]
    batches = []
    retained = []
    for _ in range(40):
        rows, end = stream_reader.read(offset)
        batches.append(_records(rows))
        stream_reader.commit(end)
        retained.append(_reader_of(stream_reader).retained())
        offsets.append(end)
        offset = end
    assert offset["subtasks"][0]["pos"] == 40 * PER_BATCH
    assert all(len(b) == PER_BATCH for b in batches)
    # the 2000 records went downstream; the reader holds at most one step's read-ahead (a step
    # of Endless gives two records)
    assert max(retained) <= 2, retained
    # the stream is the function's, in order: -9 is collected before 9 is yielded
    assert batches[0][:12] == [str(2 * v) for v in (0, 1, 2, 3, 4, 5, 6, 7, 8, -9, 9, 10)]

    # a restarted query replays batch 30 from its committed start offset, exactly
    fresh = FlinkSourceStreamReader(_source_spec(source), PER_BATCH, 60_000)
    replayed = _records(fresh.readBetweenOffsets(offsets[30], offsets[31]))
    assert replayed == batches[30]
    assert _reader_of(fresh).retained() <= 2  # the skipped records were not kept either
    rows, _ = fresh.read(offsets[31])
    assert _records(rows) == batches[31]


class PlainRun(SourceFunction):
    """A non-generator ``run``: it runs on its own thread, waiting in ``collect`` between polls."""

    def run(self, ctx: Any) -> None:
        for i in range(5):
            ctx.collect_with_timestamp(i, 100 + i)
        ctx.emit_watermark(104)


def test_plain_run_reader_hands_out_and_forgets_records_and_restores_by_skipping() -> None:
    reader = SourceFunctionReader(PlainRun())
    assert reader.poll(2) == [(0, 100), (1, 101)]
    assert reader.retained() == 0  # the plain run waits in collect until the next poll
    assert reader.snapshot_position() == 2
    rest = reader.poll(10)
    assert [r[0] for r in rest[:3]] == [2, 3, 4]
    assert isinstance(rest[3][0], SourceWatermark) and rest[3][0].timestamp == 104
    assert reader.retained() == 0 and reader.is_finished()

    restored = SourceFunctionReader(PlainRun())
    restored.restore_position(3)
    assert restored.snapshot_position() == 3
    assert restored.poll(1) == [(3, 103)]
    beyond = SourceFunctionReader(PlainRun())
    beyond.restore_position(99)  # the function ends first: the reader stands at its end
    assert beyond.snapshot_position() == 6 and beyond.is_finished()


def _file_source_spec(directory: str) -> Any:
    from pyflowkit.common import WatermarkStrategy
    from pyflowkit.datastream.connectors.file_system import FileSource, StreamFormat

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), directory)
    env.from_source(source.build(), WatermarkStrategy.no_watermarks(), "files").print()
    graph = env.get_job_graph()
    spec = stage_specs(graph, graph.stream_graph.execution_config, "STREAMING")[0]
    spec.typed = {}
    return spec


def test_bounded_file_source_streams_its_splits_and_replays_between_offsets(tmp_path) -> None:
    for i in range(3):
        (tmp_path / f"f{i}.txt").write_text("".join(f"f{i}-{j}\n" for j in range(5)))
    stream_reader = FlinkSourceStreamReader(_file_source_spec(str(tmp_path)), 4, 60_000)
    offsets = [stream_reader.initialOffset()]
    batches = []
    while not all(s["ended"] for s in offsets[-1]["subtasks"]):
        rows, end = stream_reader.read(offsets[-1])
        batches.append(_records(rows))
        offsets.append(end)
    # positions count the records each subtask read (its splits are operator state)
    assert [s["pos"] for s in offsets[-1]["subtasks"]] == [10, 5]
    lines = [line for batch in batches for line in batch]
    assert [x for x in lines if x.startswith("1> ")] == [
        f"1> f{i}-{j}" for i in (0, 2) for j in range(5)
    ]
    assert [x for x in lines if x.startswith("2> ")] == [f"2> f1-{j}" for j in range(5)]
    fresh = FlinkSourceStreamReader(_file_source_spec(str(tmp_path)), 4, 60_000)
    assert _records(fresh.readBetweenOffsets(offsets[1], offsets[2])) == batches[1]
