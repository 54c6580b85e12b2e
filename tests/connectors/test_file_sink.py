"""FileSink: Flink's part-file layout, rolling policies, two-phase commit, restore."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from pyflowkit.common import Encoder, Types
from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    FileSink,
    OutputFileConfig,
    RollingPolicy,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.file_sink_config import java_date_format
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.sink_operators import CommitterOperator, SinkWriterOperator
from tests.connectors.helpers import part_files


def _sink(base, policy=None, assigner=None, prefix="part", suffix=""):
    builder = FileSink.for_row_format(str(base), Encoder.simple_string_encoder())
    builder = builder.with_output_file_config(
        OutputFileConfig.builder().with_part_prefix(prefix).with_part_suffix(suffix).build()
    )
    if policy is not None:
        builder = builder.with_rolling_policy(policy)
    builder = builder.with_bucket_assigner(assigner or BucketAssigner.base_path_bucket_assigner())
    return builder.build()


def _pair(sink, subtask=0, clock=None, restored=None, input_type=None):
    """A writer and a committer wired like the chain ``Sink Writer -> Sink Committer``."""
    clock = clock or ManualProcessingTimeService()
    env = TaskEnvironment(subtask_index=subtask, parallelism=2, processing_time_service=clock)
    committer = CommitterOperator(sink)
    c_out = CollectingOutput()
    committer.setup(env, StreamConfig(operator_name="Sink Committer: Sink"), c_out)

    class ToCommitter(CollectingOutput):
        def collect(self, value, timestamp):
            super().collect(value, timestamp)
            committer.process_element(value, timestamp)

    writer = SinkWriterOperator(sink)
    w_out = ToCommitter()
    types = (input_type,) if input_type is not None else ()
    writer.setup(env, StreamConfig(operator_name="Sink Writer: Sink", input_types=types), w_out)
    w_snap, c_snap = restored or (None, None)
    writer.initialize_state(w_snap)
    committer.initialize_state(c_snap)
    committer.open()
    writer.open()
    return writer, committer, w_out


def _names(base):
    return [p.relative_to(base).as_posix() for p in part_files(base)]


def test_layout_prefix_subtask_counter_suffix_and_tuple_to_string(tmp_path) -> None:
    sink = _sink(tmp_path, prefix="prefix", suffix=".ext")
    pair_type = Types.TUPLE([Types.STRING(), Types.INT()])
    writer, committer, _ = _pair(sink, subtask=1, input_type=pair_type)
    writer.process_element(("to", 1), None)
    writer.process_element(("be", 2), None)
    assert _names(tmp_path) == []  # still in progress
    assert [p.name for p in tmp_path.iterdir()] == [".prefix-1-0.ext.inprogress"]
    writer.end_input()
    committer.end_input()
    assert _names(tmp_path) == ["prefix-1-0.ext"]
    assert (tmp_path / "prefix-1-0.ext").read_text() == "(to,1)\n(be,2)\n"


def test_date_time_buckets_from_processing_time(tmp_path) -> None:
    clock = ManualProcessingTimeService(0)
    sink = _sink(tmp_path, assigner=BucketAssigner.date_time_bucket_assigner(timezone_id="UTC"))
    writer, committer, _ = _pair(sink, clock=clock)
    writer.process_element("a", None)
    clock.set_current_time(3_600_000 * 25 + 5)  # 1970-01-02 01:00 UTC
    writer.process_element("b", None)
    writer.end_input()
    committer.end_input()
    assert _names(tmp_path) == ["1970-01-01--00/part-0-0", "1970-01-02--01/part-0-0"]
    stamp = java_date_format("yyyy-MM-dd'T'HH:mm:ss.SSS", 1_500, ZoneInfo("UTC"))
    assert stamp == "1970-01-01T00:00:01.500"
    with pytest.raises(IllegalArgumentException, match="pattern letter 'Q'"):
        BucketAssigner.date_time_bucket_assigner("yyyy-Q")
    with pytest.raises(IllegalArgumentException, match="unknown timezone_id"):
        BucketAssigner.date_time_bucket_assigner(timezone_id="Mars/Olympus")


def test_default_policy_rolls_on_part_size_and_on_inactivity(tmp_path) -> None:
    clock = ManualProcessingTimeService(0)
    policy = RollingPolicy.default_rolling_policy(
        part_size=5, rollover_interval=10_000, inactivity_interval=1_000
    )
    sink = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
    sink = (
        sink.with_rolling_policy(policy)
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .with_bucket_check_interval(500)
        .build()
    )
    writer, committer, w_out = _pair(sink, clock=clock)
    for v in ["abc", "def", "g"]:  # "abc\ndef\n" is 8 bytes > 5: the third record rolls
        writer.process_element(v, None)
    writer.prepare_snapshot_pre_barrier(1)
    assert [r[0][1].rsplit("/", 1)[1] for r in w_out.records] == ["part-0-0"]
    clock.advance(1_000)  # the bucket check at 500/1000 ms: inactive for 1000 ms → roll
    writer.prepare_snapshot_pre_barrier(2)
    assert [r[0][1].rsplit("/", 1)[1] for r in w_out.records] == ["part-0-0", "part-0-1"]
    writer.end_input()
    committer.end_input()
    assert [(p.name, p.read_text()) for p in part_files(tmp_path)] == [
        ("part-0-0", "abc\ndef\n"),
        ("part-0-1", "g\n"),
    ]


def test_on_checkpoint_policy_commits_only_after_the_checkpoint_completes(tmp_path) -> None:
    sink = _sink(tmp_path, policy=RollingPolicy.on_checkpoint_rolling_policy())
    writer, committer, _ = _pair(sink)
    writer.process_element("a", None)
    writer.prepare_snapshot_pre_barrier(1)  # rolls: the committable goes to the committer
    writer.snapshot_state(1, 0)
    committer.snapshot_state(1, 0)
    writer.process_element("b", None)
    assert _names(tmp_path) == []
    committer.notify_checkpoint_complete(1)
    assert _names(tmp_path) == ["part-0-0"]
    writer.end_input()
    committer.end_input()
    assert [(p.name, p.read_text()) for p in part_files(tmp_path)] == [
        ("part-0-0", "a\n"),
        ("part-0-1", "b\n"),
    ]


def test_restore_resumes_the_in_progress_part_and_commits_pending_files(tmp_path) -> None:
    sink = _sink(tmp_path, policy=RollingPolicy.on_checkpoint_rolling_policy())
    writer, committer, _ = _pair(sink)
    writer.process_element("a", None)
    writer.prepare_snapshot_pre_barrier(1)
    writer.process_element("b", None)
    snaps = (writer.snapshot_state(1, 0), committer.snapshot_state(1, 0))
    writer.process_element("lost after the checkpoint", None)
    writer.dispose()  # failure: checkpoint 1 never confirmed, in-progress has extra bytes
    writer2, committer2, _ = _pair(sink, restored=snaps)
    assert _names(tmp_path) == ["part-0-0"]  # the restored committable was committed
    writer2.process_element("c", None)
    writer2.end_input()
    committer2.end_input()
    assert [(p.name, p.read_text()) for p in part_files(tmp_path)] == [
        ("part-0-0", "a\n"),
        ("part-0-1", "b\nc\n"),
    ]


def test_sink_builder_rejects_bad_input(tmp_path) -> None:
    with pytest.raises(IllegalArgumentException, match="base_path must be a non-empty path"):
        FileSink.for_row_format("", Encoder.simple_string_encoder())
    with pytest.raises(IllegalArgumentException, match="encoder must be an Encoder"):
        FileSink.for_row_format(str(tmp_path), 42)
    builder = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
    with pytest.raises(IllegalArgumentException, match="needs a RollingPolicy"):
        builder.with_rolling_policy("daily")
    with pytest.raises(IllegalArgumentException, match="needs an OutputFileConfig"):
        builder.with_output_file_config({"prefix": "p"})
    with pytest.raises(IllegalArgumentException, match="part_size must be a positive int"):
        RollingPolicy.default_rolling_policy(part_size=0)
    with pytest.raises(IllegalArgumentException, match="must not contain a path separator"):
        OutputFileConfig.builder().with_part_prefix("a/b").build()
    assert list(tmp_path.iterdir()) == []
