"""``DataGeneratorSource`` on Spark: a stop-with-savepoint and a resume read every generated record
exactly once (the restored readers take their ``NumberSequenceSplit``s' unread parts). A Spark
streaming query resumes its source vertex with the savepoint's subtasks, so only the same
parallelism is asserted here; rescaling is asserted on the simulated cluster."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from pyflowkit.common import Configuration, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import DataGeneratorSource

pytestmark = pytest.mark.spark

N = 40


def _slow(i: int) -> str:
    time.sleep(0.05)
    return f"g{i}"


def _job(parallelism: int, **conf: str) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    configuration = Configuration()
    settings = {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": "2",
        **conf,
    }
    for key, value in settings.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    env.from_source(
        DataGeneratorSource(_slow, N), WatermarkStrategy.no_watermarks(), "Generated"
    ).uid("generated").print("g")
    return env


def _bodies(lines: list[str]) -> Counter:
    return Counter(line.split("> ", 1)[1] for line in lines)


@pytest.mark.parametrize(("before", "after"), [(2, 2), (3, 3)])
def test_stop_with_savepoint_then_resume_reads_each_record_once(
    spark, tmp_path: Path, before: int, after: int
) -> None:
    client = _job(before).execute_async(spark=spark)
    job = client.job
    deadline = time.monotonic() + 120
    while len(job.print_lines) < 6 and time.monotonic() < deadline:
        job.poll(0.1)
    savepoint = str(tmp_path / "savepoint")
    assert client.stop_with_savepoint(savepoint).result() == savepoint
    first = list(job.print_lines)
    assert 6 <= len(first) < N
    second = _job(after, **{"execution.savepoint.path": savepoint}).execute(spark=spark).print_lines
    assert _bodies(first + second) == Counter(f"g{i}" for i in range(N))
