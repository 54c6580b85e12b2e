"""The seed job on Spark Structured Streaming: its state (count window and CEP partial matches of
the user's own GeoHashEvent) is schema-encoded in RocksDB and the offsets; it savepoints
mid-stream and resumes with exactly the alarms of an uninterrupted run, and it resumes from a
retained checkpoint given as ``execution.savepoint.path`` (Flink's ``-s`` of a retained
checkpoint)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.examples import alerts_geohash as seed
from pyflowkit.runtime import JobStatus

EVENTS_PER_BATCH = 134  # alarm 3's events (267, 268) fall on both sides of a batch boundary
TIMEOUT_S = 480  # generous: the machine may be loaded
pytestmark = pytest.mark.spark


def _committed(streaming: Any) -> int:
    progress = streaming.query.lastProgress if streaming.query is not None else None
    if not progress or not progress.get("sources"):
        return 0
    end = progress["sources"][0]["endOffset"]
    end = json.loads(end) if isinstance(end, str) else end
    return int(end["subtasks"][0]["pos"]) if end else 0


def _start(spark: Any, conf: dict[str, str]) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    configuration = Configuration()
    configuration.set_string(
        "pyflowkit.spark.streaming.max-records-per-batch", str(EVENTS_PER_BATCH)
    )
    for key, value in conf.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    env.enable_checkpointing(200)
    seed.build(env, max_events=None)
    return env.execute_async(seed.JOB_NAME, spark=spark)


def _run_until(client: Any, events: int) -> None:
    streaming = client.job
    deadline = time.monotonic() + TIMEOUT_S
    while time.monotonic() < deadline and _committed(streaming) < events:
        assert streaming.poll(0.2) == "RUNNING", streaming.error
    assert _committed(streaming) >= events


def _stop(client: Any, path: Path) -> tuple[list[str], int]:
    client.stop_with_savepoint(str(path)).result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    client.job.raise_if_failed()
    return list(client.job.print_lines), _committed(client.job)


def test_seed_job_savepoints_mid_stream_and_resumes_on_spark(spark: Any, tmp_path: Path) -> None:
    first = _start(spark, {})
    _run_until(first, EVENTS_PER_BATCH)
    alarms1, consumed1 = _stop(first, tmp_path / "sp1")
    assert EVENTS_PER_BATCH <= consumed1 < 640  # mid-stream, before alarm 4
    assert alarms1 == seed.expected_output(consumed1)
    offsets = sorted((tmp_path / "sp1" / "offsets").glob("[0-9]*"))
    (offset,) = [json.loads(line) for line in offsets[-1].read_text().splitlines()[2:]]
    state = json.loads(offset["subtasks"][0]["state"])  # schema JSON, no pickle
    assert state["@"] == "dict"

    second = _start(spark, {"execution.savepoint.path": str(tmp_path / "sp1")})
    _run_until(second, 640)
    alarms2, consumed2 = _stop(second, tmp_path / "sp2")
    # the window's held event and CEP's partial matches crossed the savepoint
    assert alarms1 + alarms2 == seed.expected_output(consumed2)
    assert len(alarms2) >= 2


def test_resume_from_a_retained_checkpoint_on_spark(spark: Any, tmp_path: Path) -> None:
    checkpoints = tmp_path / "checkpoints"
    first = _start(spark, {"state.checkpoints.dir": str(checkpoints)})
    job_id = str(first.get_job_id())
    _run_until(first, EVENTS_PER_BATCH)
    first.cancel().result()
    assert first.get_job_status().result() is JobStatus.CANCELED
    alarms1 = list(first.job.print_lines)
    retained = checkpoints / job_id
    assert (retained / "offsets").is_dir() and not (retained / "_pyflowkit_savepoint.json").exists()

    second = _start(spark, {"execution.savepoint.path": str(retained)})
    _run_until(second, 640)
    alarms2, consumed = _stop(second, tmp_path / "sp")
    expected = seed.expected_output(consumed)
    # resumed from the last completed checkpoint: every alarm exactly once after it (the
    # print sink is not transactional: a batch printed but not committed prints again)
    assert alarms2 == expected[len(expected) - len(alarms2) :]
    assert set(alarms1) | set(alarms2) == set(expected)
    assert os.path.isdir(retained)  # a retained checkpoint is never consumed by a restore
