"""StreamingFileSink (add_sink): FileSink's buckets and rolling policies in a SinkFunction,
commits on completed checkpoints, exactly once through failures, the same files on Spark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Encoder
from pyflowkit.common.serialization import BulkWriterFactory
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import StreamingFileSink
from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    OutputFileConfig,
    RollingPolicy,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from tests.connectors.helpers import part_files

N = 60


def _sink(base: Path, policy: Any = None) -> StreamingFileSink:
    builder = (
        StreamingFileSink.for_row_format(str(base), Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .with_output_file_config(OutputFileConfig.builder().with_part_prefix("out").build())
    )
    if policy is not None:
        builder = builder.with_rolling_policy(policy)
    return builder.build()


def _env(sink: StreamingFileSink, parallelism: int = 2, interval: int | None = 20) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if interval is not None:
        env.enable_checkpointing(interval)
    env.from_collection(list(range(N))).map(lambda v: f"r{v}").add_sink(sink)
    return env


def _lines(base: Path) -> list[str]:
    return [line for p in part_files(base) for line in p.read_text().splitlines()]


def test_bounded_job_publishes_every_part_at_end_of_input(tmp_path: Path) -> None:
    sink = _sink(tmp_path, RollingPolicy.default_rolling_policy(part_size=40))
    MiniCluster(echo_print=False).submit(_env(sink, interval=None)).run()
    names = [p.name for p in part_files(tmp_path)]
    assert Counter(_lines(tmp_path)) == Counter(f"r{v}" for v in range(N))
    # Flink's layout <prefix>-<subtask>-<counter>, several parts per subtask (40-byte parts)
    assert {n.rsplit("-", 1)[0] for n in names} == {"out-0", "out-1"}
    assert len(names) > 4
    assert not [p for p in tmp_path.rglob(".*inprogress")]


def test_parts_become_visible_only_when_their_checkpoint_completes(tmp_path: Path) -> None:
    sink = _sink(tmp_path, RollingPolicy.on_checkpoint_rolling_policy())
    run = MiniCluster(echo_print=False, source_batch=1).submit(_env(sink, parallelism=1))
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    assert part_files(tmp_path) == []
    checkpoints = 0
    while not _lines(tmp_path):
        assert not [p for p in tmp_path.rglob("out-*")]  # nothing published between checkpoints
        run.run_until(checkpoint_completed())
        checkpoints += 1
    assert 0 < len(_lines(tmp_path)) < N  # what the completed checkpoint covered, no more
    run.run_until(job_finished())
    assert Counter(_lines(tmp_path)) == Counter(f"r{v}" for v in range(N))


@pytest.mark.parametrize("subtask", [0, 1])
def test_task_failure_after_a_checkpoint_is_exactly_once(tmp_path: Path, subtask: int) -> None:
    sink = _sink(tmp_path, RollingPolicy.default_rolling_policy(part_size=30))
    run = MiniCluster(echo_print=False, seed=3 + subtask, source_batch=1).submit(_env(sink))
    run.run_until(checkpoint_completed())
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    vertex = next(v.name for v in run.job_graph.vertices if "Sink" in v.name)
    run.fail_task(vertex, subtask, cause=RuntimeError("injected"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    assert Counter(_lines(tmp_path)) == Counter(f"r{v}" for v in range(N))
    assert not [p for p in tmp_path.rglob(".*inprogress")]


def test_bulk_format_rolls_on_checkpoints_and_builders_validate(tmp_path: Path) -> None:
    factory = BulkWriterFactory(lambda v: f"<{v}>".encode())
    builder = StreamingFileSink.for_bulk_format(str(tmp_path), factory)
    assert isinstance(builder, StreamingFileSink.DefaultBulkFormatBuilder)
    with pytest.raises(IllegalArgumentException, match="bulk formats roll on every checkpoint"):
        builder.with_rolling_policy(RollingPolicy.default_rolling_policy())
    sink = (
        builder.with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .with_bucket_check_interval(1000)
        .build()
    )
    MiniCluster(echo_print=False).submit(_env(sink, parallelism=1)).run()
    text = "".join(p.read_text() for p in part_files(tmp_path))
    assert text == "".join(f"<r{v}>" for v in range(N))
    with pytest.raises(IllegalArgumentException, match="needs a BulkWriterFactory"):
        StreamingFileSink.for_bulk_format(str(tmp_path), Encoder.simple_string_encoder())
    with pytest.raises(IllegalArgumentException, match="needs a RollingPolicy"):
        StreamingFileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder()) \
            .with_rolling_policy("hourly")  # fmt: skip


@pytest.mark.spark
def test_same_part_files_on_spark(spark: Any, tmp_path: Path) -> None:
    local, on_spark = tmp_path / "local", tmp_path / "spark"
    policy = RollingPolicy.default_rolling_policy(part_size=40)
    MiniCluster(echo_print=False).submit(_env(_sink(local, policy), interval=None)).run()
    _env(_sink(on_spark, policy), interval=None).execute("streaming file sink", spark=spark)
    contents = {p.name: p.read_text() for p in part_files(local)}
    assert {p.name: p.read_text() for p in part_files(on_spark)} == contents
