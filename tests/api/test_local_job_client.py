"""``env.execute_async()`` on the local target: a JobClient over the simulated MiniCluster that
takes savepoints (the job keeps running), stops with a savepoint (a new job resumes from it),
cancels, reports accumulators, and refuses savepoints once the job has ended."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.job_status import JobStatus
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import MapFunction, RuntimeContext
from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint

N = 2000


class CountingMap(MapFunction):
    """Counts its records in the accumulator ``seen``."""

    def open(self, runtime_context: RuntimeContext) -> None:
        self.ctx = runtime_context
        self.ctx.add_accumulator("seen", 0)

    def map(self, value: int) -> tuple[int, int]:
        self.ctx.add_accumulator("seen", self.ctx.get_accumulator("seen") + 1)
        return value, 1


def _env(**options: str) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("execution.target", "local")
    for key, value in options.items():
        conf.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(1000)
    (
        env.from_collection([i % 5 for i in range(N)])
        .uid("numbers")
        .map(CountingMap())
        .uid("count")
        .key_by(lambda t: t[0])
        .sum(1)
        .uid("sums")
        .print()
    )
    return env


def _last_sums(lines: list[str], into: dict[int, int]) -> dict[int, int]:
    for line in lines:
        key, total = eval(line.split("> ", 1)[1])  # "1> (3, 17)"
        into[key] = total
    return into


def test_the_client_of_a_local_job_is_running_and_savepoints_leave_it_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = _env().execute_async("job")
    assert client.get_job_status().result() is JobStatus.RUNNING
    path = client.trigger_savepoint(str(tmp_path)).result()
    assert Path(path).parent == tmp_path and Path(path).name.startswith("savepoint-")
    metadata, states = read_savepoint(path)
    assert metadata["job_id"] == str(client.get_job_id()) and states
    assert client.get_job_status().result() is JobStatus.RUNNING
    running = client.get_accumulators().result()["seen"]
    assert 0 < running < N
    result = client.get_job_execution_result().result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    assert _last_sums(result.printed, {}) == {k: N // 5 for k in range(5)}
    assert client.get_accumulators().result() == {"seen": N}
    assert result.get_all_accumulator_results() == {"seen": N}


def test_stop_with_savepoint_finishes_the_job_and_a_new_job_resumes_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = _env().execute_async("first")
    path = client.stop_with_savepoint(False, str(tmp_path)).result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    first = client.get_job_execution_result().result()
    sums = _last_sums(first.printed, {})
    assert sum(sums.values()) < N  # stopped part-way
    # the next job starts from the savepoint: sources rewind to its offsets, sums go on
    second = _env(**{"execution.savepoint.path": path}).execute("second")
    assert _last_sums(second.printed, sums) == {k: N // 5 for k in range(5)}


def test_cancel_ends_the_job_and_savepoints_of_an_ended_job_fail(tmp_path: Path) -> None:
    client = _env().execute_async("cancelled")
    assert client.cancel().result() is None
    assert client.get_job_status().result() is JobStatus.CANCELED
    for future in (
        client.trigger_savepoint(str(tmp_path)),
        client.stop_with_savepoint(True, str(tmp_path)),
        client.cancel(),
    ):
        with pytest.raises(IllegalStateException, match="terminal state CANCELED"):
            future.result()
    assert list(tmp_path.iterdir()) == []


def test_bad_savepoint_arguments_fail_the_future_and_leave_the_job_running() -> None:
    client = _env().execute_async("job")
    with pytest.raises(IllegalArgumentException, match="savepoint_directory must be a path"):
        client.trigger_savepoint(42).result()  # type: ignore[arg-type]
    with pytest.raises(IllegalArgumentException, match="advance_to_end_of_event_time"):
        client.stop_with_savepoint("yes", "/tmp").result()  # type: ignore[arg-type]
    assert client.get_job_status().result() is JobStatus.RUNNING
    client.cancel()


def test_the_client_of_a_finished_job_reports_accumulators_and_refuses_savepoints() -> None:
    from pyflowkit.common import JobClient, JobExecutionResult

    result = JobExecutionResult("abc", 5, accumulators={"n": 3})
    client = JobClient("abc", result)
    assert client.get_accumulators().result() == {"n": 3}
    with pytest.raises(IllegalStateException, match="terminal state FINISHED"):
        client.trigger_savepoint().result()
    with pytest.raises(IllegalStateException, match=r"stop_with_savepoint.*FINISHED"):
        client.stop_with_savepoint(False).result()


def test_an_endless_job_runs_until_stop_with_savepoint_drains_it(tmp_path: Path) -> None:
    from pyflowkit.datastream.functions import SourceFunction

    class Endless(SourceFunction):
        def run(self, ctx: Any) -> Any:
            i = 0
            while True:
                yield i
                i += 1

    conf = Configuration().set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.enable_checkpointing(100)
    env.add_source(Endless()).uid("numbers").map(lambda x: x * 2).uid("double").add_sink(
        lambda v: None
    )
    client = env.execute_async("endless")
    first = client.trigger_savepoint(str(tmp_path / "a")).result()
    assert client.get_job_status().result() is JobStatus.RUNNING
    last = client.stop_with_savepoint(True, str(tmp_path / "b")).result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    assert read_savepoint(first)[0]["checkpoint_id"] < read_savepoint(last)[0]["checkpoint_id"]
    assert client.get_job_execution_result().result().get_job_id() == client.get_job_id()
