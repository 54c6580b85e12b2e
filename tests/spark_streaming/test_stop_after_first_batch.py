"""Stopping at a micro-batch boundary right after batch 0 (no Spark: a stand-in query).

Batch 0 is a committed batch: stop_with_savepoint taken after it stops at once. It waited out
its 120 s timeout before (``last_batch(...) or -1`` read the committed batch 0 as "none yet"),
which made every savepoint of a job stopped after its first micro-batch take two minutes."""

from __future__ import annotations

import time
from pathlib import Path

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.spark.streaming_job import StreamingJob, StreamingSettings
from pyflowkit.spark.streaming_source import PAUSE


class BusyQuery:
    """A query whose triggers are always active (a busy machine): only the commit log tells the
    boundary; ``stop`` is recorded."""

    def __init__(self) -> None:
        self.status = {"isTriggerActive": True}
        self.stopped = 0

    def stop(self) -> None:
        self.stopped += 1


def _job(location: Path) -> tuple[StreamingJob, BusyQuery]:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1, 2, 3], type_info=Types.INT()).print()
    job = StreamingJob(
        None, env.get_job_graph(), {}, StreamingSettings(checkpoint_location=str(location))
    )
    job.query = query = BusyQuery()
    job._emitted = 0  # batch 0's output reached the driver
    return job, query


def test_a_stop_after_batch_zero_is_at_once(tmp_path: Path) -> None:
    for log in ("offsets", "commits"):
        (tmp_path / log).mkdir()
        (tmp_path / log / "0").write_text("v1")
    job, query = _job(tmp_path)
    started = time.monotonic()
    job._stop_at_batch_boundary(timeout=20)
    assert time.monotonic() - started < 5
    assert query.stopped == 1
    assert sorted(p.name for p in (tmp_path / "commits").iterdir()) == ["0"]
    assert not (tmp_path / PAUSE).exists()
