"""Spark streaming failures restart in the open, and not forever (issue 26: a job stayed RUNNING
with 0 batches for 7-111 restarts, the cause on stderr only).

The query is a stand-in that fails at every start (no Spark needed: what is tested is the
JobClient's side). Flink's behaviour: the job is RESTARTING while it waits out the back-off, the
restart strategy decides, and the failure is in the job's exceptions; pyflowkit's restart guard
(as on the simulated cluster) fails a job that keeps failing without completing a micro-batch.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.job_status import JobStatus
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.errors import IOException, JobException, JobExecutionException
from pyflowkit.spark.executor import TextProgressLine
from pyflowkit.spark.job_client import SparkJobClient
from pyflowkit.spark.stage import ERROR_BEGIN, ERROR_END
from pyflowkit.spark.streaming_job import StreamingJob, settings_from

USER_TB = (
    "Traceback (most recent call last):\n"
    '  File "job.py", line 7, in parse\n'
    "    return int(line)\n"
    "ValueError: invalid literal for int() with base 10: 'x'\n"
)


class QueryFailure(Exception):
    """What Spark raises for a failed micro-batch: the user's traceback between markers."""


USER_FAILURE = f"[STREAM_FAILED] {ERROR_BEGIN}{USER_TB}{ERROR_END}Map (1/2){ERROR_END}"


class FailingQuery:
    """A started query that has failed (``awaitTermination`` raises its exception)."""

    lastProgress = None
    status = {"isTriggerActive": False}

    def __init__(self, text: str = USER_FAILURE) -> None:
        self.text = text

    def awaitTermination(self, timeout: float) -> bool:  # noqa: N802 — Spark's name
        raise QueryFailure(self.text)

    def exception(self) -> Any:
        return None

    def stop(self) -> None:
        pass


class Writer:
    def __init__(self, text: str = USER_FAILURE) -> None:
        self.starts = 0
        self.text = text

    def start(self) -> FailingQuery:
        self.starts += 1
        return FailingQuery(self.text)


class Numbers(SourceFunction):
    def run(self, ctx: Any) -> Any:
        yield from range(3)


def numbers_job(env: StreamExecutionEnvironment) -> None:
    env.add_source(Numbers(), "Numbers", Types.INT()).map(int, Types.INT()).print()


def failing_job(
    conf: dict[str, str],
    strategy: Any = None,
    build: Callable[[StreamExecutionEnvironment], None] = numbers_job,
    text: str = USER_FAILURE,
) -> tuple[StreamingJob, Writer]:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.enable_checkpointing(1000)
    if strategy is not None:
        env.set_restart_strategy(strategy)
    build(env)
    graph = env.get_job_graph()
    configuration = Configuration()
    for key, value in conf.items():
        configuration.set_string(key, value)
    settings = settings_from(None, dict(conf), "job-1")
    job = StreamingJob(None, graph, dict(conf), settings, print_output=False)
    writer = Writer(text)
    job._writer = writer
    job.query = writer.start()
    job.status = "RUNNING"
    return job, writer


FAST = RestartStrategies.fixed_delay_restart(1000, 1)  # "forever", 1 ms apart


# (case, configuration, strategy, restarts before FAILED, the note on the failure)
CASES = [
    (
        "guard, default strategy",
        {"pyflowkit.spark.max-restarts": "3"},
        None,
        3,
        "The restart guard stopped it after 3 restarts without a completed micro-batch",
    ),
    (
        "guard, forever strategy",
        {"pyflowkit.spark.max-restarts": "4"},
        FAST,
        4,
        "The restart guard stopped it after 4 restarts without a completed micro-batch",
    ),
    (
        "strategy exhausted first",
        {"pyflowkit.spark.max-restarts": "50"},
        RestartStrategies.fixed_delay_restart(2, 1),
        2,
        "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy",
    ),
    ("no restart", {}, RestartStrategies.no_restart(), 0, "Recovery is suppressed by NoRestart"),
]


@pytest.mark.parametrize(
    ("conf", "strategy", "restarts", "note"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_a_query_failing_at_every_start_ends_failed_with_its_cause(
    conf, strategy, restarts, note, monkeypatch
) -> None:
    if strategy is None:  # Flink's default back-off is seconds: not in a unit test
        monkeypatch.setattr("time.sleep", lambda s: None)
    job, writer = failing_job(conf, strategy)
    seen: list[tuple[str, str, str]] = []
    client = SparkJobClient(job)
    stream = io.StringIO()
    line = TextProgressLine(stream)

    def listener(p: Any) -> None:
        seen.append((p.status, client.get_job_status().result().value, p.last_failure))
        line(p)

    job.listeners.append(listener)
    assert job.wait(timeout=60) == "FAILED"
    assert job.restarts == restarts and writer.starts == restarts + 1
    cause = "ValueError: invalid literal for int() with base 10: 'x' in Map (1/2)"
    assert job.last_failure == client.last_failure == cause
    # while it restarted, the status was RESTARTING and the cause was on the client
    restarting = [s for s in seen if s[0] == "RESTARTING"]
    assert len(restarting) == restarts
    assert all(s == ("RESTARTING", "RESTARTING", cause) for s in restarting)
    if restarts:
        assert "Flink Streaming Job: RESTARTING · 0 state rows · 0 lines printed" in (
            stream.getvalue()
        )
        assert f"last failure: {cause}" in stream.getvalue()
    # the CLI's last status line, FAILED, names the cause (restarted or not)
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("Flink Streaming Job: FAILED") and last.endswith(
        f"last failure: {cause}"
    )
    with pytest.raises(JobExecutionException) as info:
        client.get_job_execution_result().result()
    text = str(info.value)
    assert text.startswith(USER_TB.rstrip())  # the user's frames first
    assert "failed in Map (1/2) on Spark." in text
    assert note in text
    assert client.get_job_status().result() is JobStatus.FAILED


def test_progress_between_restarts_resets_the_guard(monkeypatch) -> None:
    job, writer = failing_job({"pyflowkit.spark.max-restarts": "2"}, FAST)
    real = job._restart

    def restart_after_a_batch(error: BaseException) -> bool:
        if writer.starts < 6:
            job.batches += 1  # the restarted query completed a micro-batch before failing
        return real(error)

    monkeypatch.setattr(job, "_restart", restart_after_a_batch)
    assert job.wait(timeout=60) == "FAILED"
    assert job.restarts == 6  # progress before each of the first 5; restarts 5 and 6 ran no batch
    assert "after 2 restarts without a completed micro-batch" in job.failure_note


def test_a_bad_max_restarts_setting_is_refused() -> None:
    with pytest.raises(ValueError, match="'pyflowkit.spark.max-restarts' must be an int >= 0"):
        failing_job({"pyflowkit.spark.max-restarts": "-1"})


# What PySpark's StreamingQueryException says when Spark's socket source finds nothing listening
# (Spark 4.x, recorded; shortened): its message, the query dump (the plan), the JVM stack trace
SOCKET_REFUSED = (
    "[STREAM_FAILED] Query [id = 764e6d48, runId = 55192a21] terminated with exception: "
    "Connection refused SQLSTATE: XXKST\n=== Streaming Query ===\nIdentifier: pyflowkit-977518b3 "
    "[id = 764e6d48, runId = 55192a21]\nCurrent Committed Offsets: {}\nCurrent Available "
    "Offsets: {TextSocketV2[host: localhost, port: 9999]: -1}\n\nCurrent State: ACTIVE\nThread "
    "State: RUNNABLE\n\nLogical Plan:\n~WriteToMicroBatchDataSourceV1 ForeachBatchSink\n+- "
    "~TransformWithStateInPySpark\n\nJVM stacktrace:\norg.apache.spark.sql.streaming."
    "StreamingQueryException: Connection refused\nCaused by: java.net.ConnectException: "
    "Connection refused\n\tat java.base/sun.nio.ch.Net.connect0(Native Method)"
)


def socket_job(env: StreamExecutionEnvironment) -> None:
    env.socket_text_stream("localhost", 9999).print()


def test_a_socket_with_nothing_listening_fails_naming_source_and_address(monkeypatch) -> None:
    """Flink's ``SocketTextStreamFunction`` throws ``java.net.ConnectException: Connection
    refused`` and the job restarts per its strategy; here the source and host:port are named, on
    the JobClient and the status line, without Spark's query dump, and the restarts are bounded."""
    job, writer = failing_job(
        {"pyflowkit.spark.max-restarts": "2"}, FAST, socket_job, SOCKET_REFUSED
    )
    client = SparkJobClient(job)
    stream = io.StringIO()
    job.listeners.append(TextProgressLine(stream))
    assert job.wait(timeout=60) == "FAILED"
    assert job.restarts == 2 and writer.starts == 3
    said = (
        "java.net.ConnectException: Connection refused in Source: Socket Stream (1/1): nothing "
        "listens on localhost:9999 (start the server first, e.g. nc -lk 9999)"
    )
    assert client.last_failure == said
    assert f"last failure: {said}" in stream.getvalue()
    with pytest.raises(JobExecutionException) as info:
        client.get_job_execution_result().result()
    text = str(info.value)
    assert text.startswith(f"Job 'Flink Streaming Job' ({job.job_id}) failed on Spark: {said}. ")
    assert "The restart guard stopped it after 2 restarts" in text
    for dump in ("=== Streaming Query ===", "Logical Plan", "JVM stacktrace", "SQLSTATE"):
        assert dump not in text
    guard = info.value.cause
    assert isinstance(guard, JobException) and isinstance(guard.__cause__, IOException)
    assert str(guard.__cause__) == said
    assert guard.__cause__.spark_exception.args[0] == SOCKET_REFUSED  # kept for debugging
