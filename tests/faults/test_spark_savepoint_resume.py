"""On Spark, a bounded job given ``execution.savepoint.path`` resumes from it (issue 26: it ran
from scratch, the savepoint ignored without a word). Flink's behaviour: a bounded STREAMING job
restores a savepoint like any other, and its output carries on from the savepoint's state.

Kept cheap for CI: nine records in micro-batches of up to four (one for job A, two for job B),
a 100 ms trigger (the checkpoint interval), the session's Spark; the refusals of a changed job
are unit-tested (no query) in ``test_spark_savepoint_faults.py``."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.job_status import JobStatus
from pyflowkit.datastream import StreamExecutionEnvironment
from tests.faults.helpers import run_to_end

pytestmark = [pytest.mark.spark]

PAIR = Types.TUPLE([Types.STRING(), Types.INT()])
WORDS = [(f"k{i % 3}", i) for i in range(9)]


def slowly(word: Any) -> Any:
    time.sleep(0.05)  # the stop lands between micro-batches, well before the end
    return word


def _job(conf: dict[str, str]) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(100)  # the trigger interval of the query
    configuration = Configuration()
    for key, value in {"pyflowkit.spark.streaming.max-records-per-batch": "4", **conf}.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    (
        env.from_collection(WORDS, type_info=PAIR)
        .uid("words")
        # one map subtask: a key's records keep their order up to the reduce (with two, Flink
        # makes no promise of order per key across the rebalance, nor of the running sums)
        .map(slowly, output_type=PAIR)
        .uid("slowly")
        .set_parallelism(1)
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .uid("sums")
        .print("sum")
        .uid("print")
    )
    return env


def _bodies(lines: list[str]) -> Counter:
    return Counter(line.split("> ", 1)[1] for line in lines)


def test_a_bounded_job_resumes_from_its_savepoint(spark, tmp_path) -> None:
    client = _job({"pyflowkit.spark.streaming-query": "always"}).execute_async(spark=spark)
    job = client.job
    deadline = time.monotonic() + 120
    while len(job.print_lines) < 2 and time.monotonic() < deadline:
        job.poll(0.05)
    savepoint = str(tmp_path / "savepoint")
    assert client.stop_with_savepoint(savepoint).result() == savepoint
    assert client.get_job_status().result() is JobStatus.FINISHED
    before = list(job.print_lines)
    assert 2 <= len(before) < len(WORDS)

    # nothing but the savepoint path: the default path a user takes
    after = _job({"execution.savepoint.path": savepoint}).execute(spark=spark).print_lines
    assert len(after) == len(WORDS) - len(before)  # the rest only, not a run from scratch
    assert all(line.startswith("sum:") for line in before + after)
    # the sums carried on from the savepoint: the same values as the simulated cluster's run
    local = run_to_end(_job({}))
    assert local.job_status is JobStatus.FINISHED
    assert (
        _bodies(before + after)
        == _bodies(local.printed())
        == Counter(
            [
                "(k0,0)",
                "(k1,1)",
                "(k2,2)",
                "(k0,3)",
                "(k1,5)",
                "(k2,7)",
                "(k0,9)",
                "(k1,12)",
                "(k2,15)",
            ]
        )
    )
