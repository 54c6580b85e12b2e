"""from_source: the SourceOperator applies the WatermarkStrategy per split; sink_to naming."""

from __future__ import annotations

import pytest

from pyflowkit.common import Duration, Encoder, WatermarkStrategy
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.connectors import NumberSequenceSource
from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    FileSink,
    FileSource,
    StreamFormat,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.source_operator import SourceOperator
from pyflowkit.operators.stream_source import InputStatus
from pyflowkit.state.time import MAX_WATERMARK


def _event_lines(tmp_path, name: str, stamps: list[int]) -> str:
    p = tmp_path / name
    p.write_text("".join(f"{name}:{t}\n" for t in stamps))
    return str(p)


def _stamp(value: str, record_timestamp: int) -> int:
    return int(value.split(":")[1])


def _open(source, strategy, clock, interval=200):
    op = SourceOperator(source, strategy)
    env = TaskEnvironment(processing_time_service=clock)
    out = CollectingOutput()
    op.setup(env, StreamConfig(operator_name="Source: s", auto_watermark_interval=interval), out)
    op.initialize_state(None)
    op.open()
    return op, out


def test_records_carry_the_assigners_timestamps_and_bounded_out_of_orderness(tmp_path) -> None:
    path = _event_lines(tmp_path, "a", [1000, 3000, 2000, 5000])
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path).build()
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(500)
    ).with_timestamp_assigner(_stamp)
    clock = ManualProcessingTimeService(0)
    op, out = _open(source, strategy, clock)
    op.emit_next(3)
    assert out.records == [("a:1000", 1000), ("a:3000", 3000), ("a:2000", 2000)]
    assert out.watermarks == []  # bounded out-of-orderness only emits periodically
    clock.advance(200)
    assert out.watermarks == [3000 - 500 - 1]
    clock.advance(200)
    assert out.watermarks == [2499]  # no new maximum: nothing new is emitted
    assert op.emit_next(10) is InputStatus.END_OF_INPUT
    assert out.records[-1] == ("a:5000", 5000)
    assert out.watermarks == [2499, MAX_WATERMARK]


def test_each_split_has_its_own_generator_and_a_released_split_cannot_pull_back(
    tmp_path,
) -> None:
    fast = _event_lines(tmp_path, "f", [10_000, 11_000])
    slow = _event_lines(tmp_path, "s", [1_000, 2_000, 3_000])
    source = FileSource.for_record_stream_format(
        StreamFormat.text_line_format(), fast, slow
    ).build()
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(_stamp)
    clock = ManualProcessingTimeService(0)
    op, out = _open(source, strategy, clock)
    op.emit_next(1)  # split "0" (the fast file)
    clock.advance(200)
    assert out.watermarks == [9_999]
    # the rest of split "0" (finished and released before its next periodic emit), then split
    # "1" with a fresh generator: its watermark (999) is below the combined one, so nothing moves
    op.emit_next(2)
    assert [ts for _, ts in out.records] == [10_000, 11_000, 1_000]
    clock.advance(200)
    assert out.watermarks == [9_999]
    assert op.emit_next(10) is InputStatus.END_OF_INPUT
    assert out.watermarks == [9_999, MAX_WATERMARK]


def test_multiplexer_takes_the_minimum_of_live_outputs_and_ignores_idle_ones() -> None:
    from pyflowkit.operators.watermark_multiplexer import WatermarkOutputMultiplexer

    emitted: list[int] = []
    idle: list[bool] = []
    mux = WatermarkOutputMultiplexer(emitted.append, lambda: idle.append(True))
    mux.register_new_output("a")
    mux.register_new_output("b")
    a, b = mux.get_immediate_output("a"), mux.get_deferred_output("b")
    a.emit_watermark(50)
    assert emitted == []  # "b" is still at Long.MIN_VALUE
    b.emit_watermark(30)
    assert emitted == []  # deferred: only on the periodic emit
    mux.on_periodic_emit()
    assert emitted == [30]
    b.mark_idle()
    mux.on_periodic_emit()
    assert emitted == [30, 50]
    a.mark_idle()
    assert idle == [True]
    mux.unregister_output("a")
    with pytest.raises(ValueError, match="Already contains an output for ID b"):
        mux.register_new_output("b")


def test_without_interval_only_the_end_of_input_watermark_is_emitted() -> None:
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, ts: v * 10
    )
    op, out = _open(NumberSequenceSource(1, 3), strategy, ManualProcessingTimeService(), 0)
    assert op.emit_next(10) is InputStatus.END_OF_INPUT
    assert out.records == [(1, 10), (2, 20), (3, 30)]
    assert out.watermarks == [MAX_WATERMARK]


def test_no_watermarks_strategy_stamps_records_without_a_timestamp_as_min_long() -> None:
    op, out = _open(
        NumberSequenceSource(1, 2),
        WatermarkStrategy.no_watermarks(),
        None or ManualProcessingTimeService(),
    )
    op.emit_next(10)
    assert out.records == [(1, -(2**63)), (2, -(2**63))]


def test_from_source_transformation_and_bad_input(tmp_path) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(3)
    path = _event_lines(tmp_path, "a", [1])
    source = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path).build()
    with pytest.raises(IllegalArgumentException, match="needs a WatermarkStrategy"):
        env.from_source(source, None, "files")
    assert env._all_transformations == []
    ds = env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "files")
    t = ds.get_transformation()
    assert (t.name, t.parallelism, t.boundedness.name) == ("files", 3, "BOUNDED")
    assert t.operator_factory.operator_class == "SourceOperator"
    assert t.operator_factory.chaining_strategy.name == "HEAD"


def _sink(tmp_path):
    return FileSink.for_row_format(str(tmp_path / "o"), Encoder.simple_string_encoder()).build()


def test_sink_to_streaming_keeps_the_committer_at_the_writers_parallelism(tmp_path) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.from_source(NumberSequenceSource(1, 9), WatermarkStrategy.no_watermarks(), "nums").sink_to(
        _sink(tmp_path)
    ).name("files").uid("file-sink")
    job = env.get_job_graph()
    assert [(v.name, v.parallelism) for v in job.vertices] == [
        ("Source: nums -> Sink Writer: files -> Sink Committer: files", 2)
    ]
    nodes = list(env.get_stream_graph().nodes.values())
    assert [n.uid for n in nodes[1:]] == ["Sink Writer: file-sink", "Sink Committer: file-sink"]
    assert nodes[2].operator_factory.operator_class == "StreamingCommitterOperator"


def test_sink_to_batch_commits_at_parallelism_one_after_a_rebalance(tmp_path) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    sink = env.from_source(
        NumberSequenceSource(1, 9), WatermarkStrategy.no_watermarks(), "nums"
    ).sink_to(_sink(tmp_path))
    sink.set_parallelism(2)  # the BATCH committer stays at 1
    job = env.get_job_graph()
    assert [(v.name, v.parallelism) for v in job.vertices] == [
        ("Source: nums -> Sink Writer: Sink", 2),
        ("Sink Committer: Sink", 1),
    ]
    assert [e.ship_strategy.name for e in job.vertices[1].inputs] == ["REBALANCE"]
    assert sink.get_name() == "Sink"


def test_sink_to_runs_in_parallel_and_commits_every_part(tmp_path) -> None:
    from pyflowkit.reference.local_driver import run_local
    from tests.connectors.helpers import part_files

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    sink = (
        FileSink.for_row_format(str(tmp_path / "o"), Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    env.from_source(NumberSequenceSource(1, 10), WatermarkStrategy.no_watermarks(), "n").sink_to(
        sink
    )
    run_local(env)
    files = part_files(tmp_path / "o")
    assert [p.name for p in files] == ["part-0-0", "part-1-0"]
    assert files[0].read_text() == "".join(f"{i}\n" for i in range(1, 6))
    assert files[1].read_text() == "".join(f"{i}\n" for i in range(6, 11))


def test_sink_to_rejects_a_sink_function() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    ds = env.from_collection([1, 2])
    with pytest.raises(IllegalArgumentException, match="Use add_sink\\(\\) for a SinkFunction"):
        ds.sink_to(lambda v: None)
    assert env.get_transformations() == []
