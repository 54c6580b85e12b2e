"""Faults of a streaming job on Spark: a UDF failing once restarts the query from its checkpoint
(the print sink then holds exactly the uninterrupted output); no restart strategy fails the job
with Flink's message; stop-with-savepoint then resume equals one uninterrupted run; a savepoint of
another job is refused."""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.job_status import JobStatus
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import MapFunction, SourceFunction
from pyflowkit.errors import JobExecutionException

pytestmark = pytest.mark.spark

WORDS = [(f"k{i % 3}", i) for i in range(18)]


class FailOnce(MapFunction):
    """Raises once, the first time it sees ``at`` (a marker file remembers it failed)."""

    def __init__(self, marker: str, at: int) -> None:
        self.marker = marker
        self.at = at

    def map(self, value: Any) -> Any:
        if value[1] == self.at and not os.path.exists(self.marker):
            with open(self.marker, "w") as f:
                f.write("failed once")
            raise RuntimeError("injected failure")
        return value


class SlowWords(SourceFunction):
    """Emits WORDS with a pause before each (so a job can be stopped half way)."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    def run(self, ctx: Any) -> Any:
        for word in WORDS:
            time.sleep(self.pause)
            yield word


def _env(conf: dict[str, str]) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    configuration = Configuration()
    for key, value in {"pyflowkit.spark.streaming.max-records-per-batch": "4", **conf}.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    return env


def _failing_job(env: StreamExecutionEnvironment, marker: str) -> None:
    (
        env.from_collection(WORDS, type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .map(FailOnce(marker, at=10), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("sum")
    )


def _running_sums() -> Counter:
    totals: dict[str, int] = {}
    out = []
    for key, value in WORDS:
        totals[key] = totals.get(key, 0) + value
        out.append(f"({key},{totals[key]})")
    return Counter(out)


def _bodies(lines: list[str]) -> Counter:
    return Counter(line.split("> ", 1)[1] for line in lines)


AVAILABLE_NOW = {
    "pyflowkit.spark.streaming-query": "always",
    "pyflowkit.spark.streaming.trigger": "available-now",
}


def test_udf_failing_once_restarts_from_checkpoint_exactly_once(spark, tmp_path, capfd) -> None:
    from pyflowkit.spark.executor import execute

    env = _env({**AVAILABLE_NOW, "state.checkpoints.dir": str(tmp_path / "chk")})
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    _failing_job(env, str(tmp_path / "marker"))
    result = execute(env, spark=spark, print_output=False)
    assert (tmp_path / "marker").exists()  # it did fail once
    assert result.job_status == "FINISHED"
    assert _bodies(result.print_lines) == _running_sums()  # each running sum exactly once
    err = capfd.readouterr().err
    assert "switched from state RUNNING to RESTARTING (RuntimeError: injected failure in " in err
    assert "switched from state RESTARTING to RUNNING" in err


def test_no_restart_strategy_fails_with_flinks_message(spark, tmp_path) -> None:
    from pyflowkit.spark.executor import execute

    env = _env(AVAILABLE_NOW)
    env.set_restart_strategy(RestartStrategies.no_restart())
    _failing_job(env, str(tmp_path / "marker"))
    with pytest.raises(JobExecutionException) as info:
        execute(env, spark=spark, print_output=False)
    text = str(info.value)
    assert "RuntimeError: injected failure" in text
    assert "in FailOnce" not in text or "def map" not in text
    assert "Recovery is suppressed by NoRestartBackoffTimeStrategy" in text
    assert "failed in Map" in text


def _slow_job(env: StreamExecutionEnvironment, pause: float) -> None:
    (
        env.add_source(SlowWords(pause), "Slow Words", Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("sum")
    )


def test_stop_with_savepoint_then_resume_equals_uninterrupted(spark, tmp_path) -> None:
    env = _env({"pyflowkit.spark.streaming.trigger": "available-now"})
    _slow_job(env, pause=0.15)
    client = env.execute_async(spark=spark)
    job = client.job
    deadline = time.monotonic() + 120
    while len(job.print_lines) < 4 and time.monotonic() < deadline:
        job.poll(0.1)
    savepoint = str(tmp_path / "savepoint")
    assert client.stop_with_savepoint(savepoint).result() == savepoint
    assert client.get_job_status().result() is JobStatus.FINISHED
    first = list(job.print_lines)
    assert 4 <= len(first) < len(WORDS)
    assert os.path.isfile(os.path.join(savepoint, "_pyflowkit_savepoint.json"))

    resumed = _env(
        {
            "pyflowkit.spark.streaming.trigger": "available-now",
            "execution.savepoint.path": savepoint,
        }
    )
    _slow_job(resumed, pause=0.0)
    second = resumed.execute(spark=spark).print_lines
    assert _bodies(first + second) == _running_sums()

    other = _env({"execution.savepoint.path": savepoint})
    (
        other.add_source(SlowWords(0.0), "Slow Words", Types.TUPLE([Types.STRING(), Types.INT()]))
        .map(lambda w: w, output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .print("other")
    )
    with pytest.raises(ValueError, match="a savepoint of another job"):
        other.execute(spark=spark)
