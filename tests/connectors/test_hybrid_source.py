"""HybridSource: files first, then a number sequence; each subtask switches when its share is
read, a restore resumes in the right source, the same records on Spark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.common.time import Duration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import (
    FileSource,
    HybridSource,
    NumberSequenceSource,
    StreamFormat,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.boundedness import Boundedness
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

FILE_LINES = [f"f{i}" for i in range(30)]
NUMBERS = [str(n) for n in range(1, 41)]


def _hybrid(tmp_path: Path) -> HybridSource:
    for part in range(3):
        lines = FILE_LINES[part * 10 : part * 10 + 10]
        (tmp_path / f"part-{part}.txt").write_text("\n".join(lines) + "\n")
    files = FileSource.for_record_stream_format(
        StreamFormat.text_line_format(), str(tmp_path)
    ).build()
    return HybridSource.builder(files).add_source(NumberSequenceSource(1, 40)).build()


def _env(source: HybridSource, interval: int | None = None) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    if interval is not None:
        env.enable_checkpointing(interval)
    return env, env.from_source(source, WatermarkStrategy.no_watermarks(), "hybrid").map(
        str, output_type=Types.STRING()
    )


def test_each_subtask_reads_the_files_then_the_numbers(tmp_path: Path) -> None:
    source = _hybrid(tmp_path)
    assert source.get_boundedness() is Boundedness.BOUNDED
    env, stream = _env(source)
    seen: list[tuple[int, str]] = []

    class Tagged:
        def open(self, ctx: Any) -> None:
            self.subtask = ctx.get_index_of_this_subtask()

        def invoke(self, value: str, context: Any) -> None:
            seen.append((self.subtask, value))

    stream.add_sink(Tagged())
    MiniCluster(echo_print=False).submit(env).run()
    assert Counter(v for _, v in seen) == Counter(FILE_LINES + NUMBERS)
    for subtask in (0, 1):
        values = [v for s, v in seen if s == subtask]
        first_number = next(i for i, v in enumerate(values) if not v.startswith("f"))
        assert all(v.startswith("f") for v in values[:first_number])  # files first
        assert not any(v.startswith("f") for v in values[first_number:])  # then numbers only


@pytest.mark.parametrize("fail_at", [1, 4])
def test_failure_resumes_in_the_right_source_exactly_once(tmp_path: Path, fail_at: int) -> None:
    store = TransactionStore()
    env, stream = _env(_hybrid(tmp_path), interval=10)
    stream.add_sink(TransactionalListSink(store))
    run = MiniCluster(echo_print=False, source_batch=1, seed=fail_at).submit(env)
    for _ in range(fail_at):
        run.run_until(checkpoint_completed())
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    vertex = next(v.name for v in run.job_graph.vertices if "hybrid" in v.name)
    run.fail_task(vertex, 1, cause=RuntimeError("injected"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(FILE_LINES + NUMBERS)


def test_bad_sources_are_refused(tmp_path: Path) -> None:
    with pytest.raises(IllegalArgumentException, match=r"builder\(first_source\) needs a Source"):
        HybridSource.builder([1, 2])
    unbounded = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(tmp_path))
        .monitor_continuously(Duration.of_seconds(1))
        .build()
    )
    with pytest.raises(IllegalArgumentException, match="source 0 .* is unbounded"):
        HybridSource.builder(unbounded).add_source(NumberSequenceSource(1, 2)).build()
    last_unbounded = HybridSource.builder(NumberSequenceSource(1, 2)).add_source(unbounded).build()
    assert last_unbounded.get_boundedness() is Boundedness.CONTINUOUS_UNBOUNDED


@pytest.mark.spark
def test_same_records_on_spark(spark: Any, tmp_path: Path) -> None:
    env, stream = _env(_hybrid(tmp_path))
    assert Counter(stream.execute_and_collect(spark=spark)) == Counter(FILE_LINES + NUMBERS)
