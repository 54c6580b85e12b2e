"""FLIP-27/143 operators close what they opened exactly once: ``SourceOperator`` its
``SourceReader``, ``SinkWriterOperator`` its ``SinkWriter``, ``CommitterOperator`` its
``Committer`` — by close() on a normal end, by dispose() after a failure or cancel, never twice
(close() then dispose() is the normal path), and a close() that raised is not retried."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.factory import OperatorFactory
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.sources import ListReader, Source
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in


class Counts(dict):  # type: ignore[type-arg]
    """close() calls by name; shared by every copy of the user code (each subtask has one)."""

    def __copy__(self) -> Counts:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Counts:
        return self

    def closed(self, name: str, fail: bool = False) -> None:
        self[name] = self.get(name, 0) + 1
        if fail:
            raise RuntimeError(f"close() of the {name} failed")


class CountingReader(ListReader):
    def __init__(self, counts: Counts, n: int, fail: bool) -> None:
        super().__init__([(i, None) for i in range(n)])
        self.counts, self.fail = counts, fail

    def close(self) -> None:
        self.counts.closed("reader", self.fail)


class CountingSource(Source):
    def __init__(self, counts: Counts, n: int = 100, fail: bool = False) -> None:
        self.counts, self.n, self.fail = counts, n, fail

    def create_reader(self, subtask_index: int, parallelism: int) -> CountingReader:
        return CountingReader(self.counts, self.n, self.fail)


class CountingWriter:
    def __init__(self, counts: Counts) -> None:
        self.counts = counts
        self.buffer: list[Any] = []

    def write(self, element: Any) -> None:
        self.buffer.append(element)

    def prepare_commit(self, flush: bool) -> list[Any]:
        out, self.buffer = self.buffer, []
        return [len(out)] if out else []

    def snapshot_state(self) -> list[Any]:
        return []

    def close(self) -> None:
        self.counts.closed("writer")


class CountingCommitter:
    def __init__(self, counts: Counts) -> None:
        self.counts = counts

    def commit(self, committables: list[Any]) -> list[Any]:
        return []

    def close(self) -> None:
        self.counts.closed("committer")


class CountingSink:
    def __init__(self, counts: Counts) -> None:
        self.counts = counts

    def create_writer(self, subtask_index: int, clock: Any, states: Any = ()) -> CountingWriter:
        return CountingWriter(self.counts)

    def create_committer(self) -> CountingCommitter:
        return CountingCommitter(self.counts)


def _open(operator_class: str, **params: Any) -> Any:
    op = OperatorFactory(operator_class, params=params).create()
    env = TaskEnvironment(task_name="t", processing_time_service=ManualProcessingTimeService(0))
    op.setup(env, StreamConfig(operator_name=operator_class), CollectingOutput())
    op.initialize_state(None)
    op.open()
    return op


CASES = [
    ("SourceOperator", "reader", lambda c: {"source": CountingSource(c)}),
    ("StatefulWriterOperator", "writer", lambda c: {"sink": CountingSink(c)}),
    ("StreamingCommitterOperator", "committer", lambda c: {"sink": CountingSink(c)}),
]


@pytest.mark.parametrize(("operator_class", "resource", "params"), CASES)
def test_close_then_dispose_closes_once(operator_class: str, resource: str, params: Any) -> None:
    counts = Counts()
    op = _open(operator_class, **params(counts))
    op.close()
    op.dispose()
    assert counts == {resource: 1}


@pytest.mark.parametrize(("operator_class", "resource", "params"), CASES)
def test_dispose_after_a_failure_closes_once(
    operator_class: str, resource: str, params: Any
) -> None:
    counts = Counts()
    op = _open(operator_class, **params(counts))
    op.dispose()
    op.dispose()
    assert counts == {resource: 1}


def test_a_close_that_raised_is_not_retried_by_dispose() -> None:
    counts = Counts()
    op = _open("SourceOperator", source=CountingSource(counts, fail=True))
    with pytest.raises(RuntimeError, match="close\\(\\) of the reader failed"):
        op.close()
    op.dispose()
    assert counts == {"reader": 1}


def _job(counts: Counts, n: int) -> StreamExecutionEnvironment:
    from pyflowkit.common import WatermarkStrategy

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    source = CountingSource(counts, n)
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "Counting")
    stream.map(lambda x: x * 2).sink_to(CountingSink(counts))
    return env


def test_a_finished_job_closes_every_reader_writer_and_committer_once() -> None:
    counts = Counts()
    run = MiniCluster(echo_print=False, seed=1).submit(_job(counts, 40))
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert counts == {"reader": 2, "writer": 2, "committer": 2}  # one per subtask


def test_a_canceled_job_closes_them_once_through_dispose() -> None:
    counts = Counts()
    run = MiniCluster(echo_print=False, seed=1, source_batch=1).submit(_job(counts, 10_000))
    run.run_until(all_tasks_in("RUNNING"))
    run.step(30)
    assert counts == {}
    run.cancel()
    run.run()
    assert run.job_status is JobStatus.CANCELED
    assert counts == {"reader": 2, "writer": 2, "committer": 2}
