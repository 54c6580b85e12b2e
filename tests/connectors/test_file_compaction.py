"""FileSink compaction: held pending parts merged into compacted-<name> files when the size or
checkpoint trigger fires, inputs removed, exactly once through failures, same on Spark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Encoder
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    FileCompactor,
    FileCompactStrategy,
    FileSink,
    RollingPolicy,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from tests.connectors.helpers import part_files

N = 40
ROWS = Counter(f"v{i}" for i in range(N))


def _sink(base: Path, strategy: Any, compactor: Any = None, policy: Any = None) -> FileSink:
    return (
        FileSink.for_row_format(str(base), Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .with_rolling_policy(policy or RollingPolicy.on_checkpoint_rolling_policy())
        .enable_compact(strategy, compactor or FileCompactor.concat_file_compactor())
        .build()
    )


def _env(sink: FileSink, parallelism: int = 2, interval: int | None = 10, n: int = N) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if interval is not None:
        env.enable_checkpointing(interval)
    env.from_collection(list(range(n))).map(lambda i: f"v{i}").sink_to(sink)
    return env


def _lines(base: Path) -> Counter[str]:
    return Counter(line for p in part_files(base) for line in p.read_text().splitlines())


def test_compaction_every_n_checkpoints_publishes_only_compacted_files(tmp_path: Path) -> None:
    strategy = FileCompactStrategy.builder().enable_compaction_on_checkpoint(3).build()
    run = MiniCluster(echo_print=False, source_batch=1).submit(_env(_sink(tmp_path, strategy)))
    run.run_until(job_finished())
    names = [p.name for p in part_files(tmp_path)]
    assert names and all(n.startswith("compacted-part-") for n in names)
    assert _lines(tmp_path) == ROWS
    assert not list(tmp_path.rglob(".*"))  # inputs and staging files removed
    # several parts (one per checkpoint) went into each compacted file
    assert len(names) < run.checkpoint_coordinator.store.get_latest_checkpoint().checkpoint_id


def test_size_threshold_and_delimiter(tmp_path: Path) -> None:
    strategy = FileCompactStrategy.builder().set_size_threshold(10).build()
    compactor = FileCompactor.concat_file_compactor(b"--\n")
    policy = RollingPolicy.default_rolling_policy(part_size=1)  # a part per record
    env = _env(_sink(tmp_path, strategy, compactor, policy), parallelism=1, interval=None)
    MiniCluster(echo_print=False).submit(env).run()
    (only,) = part_files(tmp_path)
    assert only.name == "compacted-part-0-0"
    assert only.read_text() == "--\n".join(f"v{i}\n" for i in range(N))


def test_identical_compactor_copies_each_file(tmp_path: Path) -> None:
    strategy = FileCompactStrategy.builder().set_size_threshold(0).build()
    policy = RollingPolicy.default_rolling_policy(part_size=40)
    sink = _sink(tmp_path, strategy, FileCompactor.identical_file_compactor(), policy)
    MiniCluster(echo_print=False).submit(_env(sink, parallelism=1, interval=None)).run()
    names = [p.name for p in part_files(tmp_path)]
    assert len(names) > 2 and names == sorted(f"compacted-part-0-{i}" for i in range(len(names)))
    assert _lines(tmp_path) == ROWS


@pytest.mark.parametrize("subtask", [0, 1])
def test_task_failure_with_held_files_is_exactly_once(tmp_path: Path, subtask: int) -> None:
    strategy = FileCompactStrategy.builder().enable_compaction_on_checkpoint(2).build()
    run = MiniCluster(echo_print=False, seed=7 + subtask, source_batch=1).submit(
        _env(_sink(tmp_path, strategy))
    )
    run.run_until(checkpoint_completed())
    run.run_until(checkpoint_completed())
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    vertex = next(v.name for v in run.job_graph.vertices if "Writer" in v.name)
    run.fail_task(vertex, subtask, cause=RuntimeError("injected"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    assert _lines(tmp_path) == ROWS
    assert all(p.name.startswith("compacted-") for p in part_files(tmp_path))


def test_strategy_and_builder_validation(tmp_path: Path) -> None:
    with pytest.raises(IllegalArgumentException, match="at least one trigger condition"):
        FileCompactStrategy.builder().build()
    with pytest.raises(IllegalArgumentException, match="should be more than 0, got 0"):
        FileCompactStrategy.builder().enable_compaction_on_checkpoint(0)
    with pytest.raises(IllegalArgumentException, match="compact threads should be more than 0"):
        FileCompactStrategy.builder().set_num_compact_threads(-2)
    builder = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
    with pytest.raises(IllegalArgumentException, match="needs a FileCompactStrategy"):
        builder.enable_compact("often", FileCompactor.concat_file_compactor())
    with pytest.raises(IllegalArgumentException, match="file_delimiter must be bytes"):
        FileCompactor.concat_file_compactor("\n")
    strategy = (
        FileCompactStrategy.builder().set_size_threshold(1).set_num_compact_threads(2).build()
    )
    sink = builder.enable_compact(strategy, FileCompactor.identical_file_compactor()).build()
    assert "num_compact_threads=2" in repr(sink) and "IdenticalFileCompactor" in repr(sink)
    assert builder.disable_compact().build().compact_strategy is None


@pytest.mark.spark
def test_same_compacted_files_on_spark(spark: Any, tmp_path: Path) -> None:
    strategy = FileCompactStrategy.builder().set_size_threshold(12).build()
    policy = RollingPolicy.default_rolling_policy(part_size=5)
    local, remote = tmp_path / "local", tmp_path / "spark"
    MiniCluster(echo_print=False).submit(
        _env(_sink(local, strategy, None, policy), interval=None)
    ).run()
    _env(_sink(remote, strategy, None, policy), interval=None).execute("compaction", spark=spark)
    expected = {p.name: p.read_text() for p in part_files(local)}
    assert sorted(expected) == ["compacted-part-0-0", "compacted-part-1-0"]  # end of input
    assert {p.name: p.read_text() for p in part_files(remote)} == expected


def test_size_threshold_fires_at_checkpoints_once_a_bucket_holds_enough(tmp_path: Path) -> None:
    strategy = FileCompactStrategy.builder().set_size_threshold(20).build()
    env = _env(_sink(tmp_path, strategy), parallelism=1, interval=10, n=400)
    run = MiniCluster(echo_print=False, source_batch=1).submit(env)
    run.run_until(job_finished())
    files = part_files(tmp_path)
    assert len(files) > 10 and _lines(tmp_path) == Counter(f"v{i}" for i in range(400))
    # every compaction but the last (end of input) held at least the threshold
    assert len([p for p in files if p.stat().st_size < 20]) <= 1
