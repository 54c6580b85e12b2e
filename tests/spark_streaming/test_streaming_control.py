"""Controlling a streaming job on Spark in Flink's words: ``stop_with_savepoint(drain=True)`` fires
every pending event-time window (the output equals the bounded run's) and a job resumed from the
drained savepoint emits nothing more; temporary checkpoint directories are deleted when the job
ends, unless the externalized-checkpoint retention keeps them; savepoints are never deleted."""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Configuration, Time, Types
from pyflowkit.common.job_status import JobStatus
from pyflowkit.datastream import StreamExecutionEnvironment, TimeCharacteristic
from pyflowkit.datastream.checkpoint_config import ExternalizedCheckpointCleanup
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.datastream.window import TumblingEventTimeWindows

pytestmark = pytest.mark.spark

EVENTS = 30  # (k<i % 3>, i) at event time 10 * i: windows of 50 ms hold 5 events each
LAST_WATERMARK = 10 * (EVENTS - 1) + 5  # after the last event, inside the last window


class Events(SourceFunction):
    """EVENTS events with a watermark after each, then LAST_WATERMARK; ``bounded`` ends there,
    else it goes on re-emitting that watermark (the last window never fires by itself)."""

    def __init__(self, bounded: bool, pause: float = 0.0) -> None:
        self.bounded = bounded
        self.pause = pause

    def run(self, ctx: Any) -> Any:
        for i in range(EVENTS):
            ctx.collect_with_timestamp((f"k{i % 3}", i), 10 * i)
            ctx.emit_watermark(10 * i)
            if self.pause:
                time.sleep(self.pause)
            yield None
        ctx.emit_watermark(LAST_WATERMARK)
        yield None
        while not self.bounded:
            time.sleep(0.02)
            ctx.emit_watermark(LAST_WATERMARK)
            yield None


def _env(conf: dict[str, str] | None = None) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)
    configuration = Configuration()
    settings = {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "8",
        **(conf or {}),
    }
    for key, value in settings.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    return env


def _windowed(env: StreamExecutionEnvironment, source: SourceFunction) -> None:
    (
        env.add_source(source, "Events", Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda e: e[0], key_type=Types.STRING())
        .window(TumblingEventTimeWindows.of(Time.milliseconds(50)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print("w")
    )


def _bodies(lines: list[str]) -> Counter:
    return Counter(line.split("> ", 1)[1] for line in lines)


def _bounded_run() -> Counter:
    """The same events from a source that ends, on the simulated cluster."""
    from pyflowkit.runtime import MiniCluster

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)
    _windowed(env, Events(bounded=True))
    return _bodies(MiniCluster(seed=0).submit(env, "bounded").run().printed())


def _wait_for(job: Any, done: Any, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        assert job.poll(0.1) == "RUNNING", job.error
    assert done(), "timed out"


def test_drain_fires_every_window_and_a_resumed_job_emits_nothing_more(spark, tmp_path) -> None:
    expected = _bounded_run()
    assert sum(expected.values()) == EVENTS // 5 * 3  # 6 windows x 3 keys, sums of 1-2 events
    env = _env({"state.checkpoints.dir": str(tmp_path / "chk")})
    _windowed(env, Events(bounded=False))
    client = env.execute_async(spark=spark)
    job = client.job
    # every event read: the window vertex's watermark is the one after the last event
    _wait_for(job, lambda: LAST_WATERMARK in job.flink_watermarks().values())
    before = _bodies(job.print_lines)
    assert before and before != expected  # the last window (250..300) has not fired
    savepoint = str(tmp_path / "drained")
    assert client.stop_with_savepoint(savepoint, drain=True).result() == savepoint
    assert client.get_job_status().result() is JobStatus.FINISHED
    assert _bodies(job.print_lines) == expected
    assert set(job.flink_watermarks().values()) == {2**63 - 1}  # MAX_WATERMARK went through
    resumed = _env({"execution.savepoint.path": savepoint})
    _windowed(resumed, Events(bounded=False))
    again = resumed.execute_async(spark=spark)
    assert again.wait(timeout=60) == "FINISHED"  # its sources had ended in the savepoint
    assert again.job.print_lines == []
    assert os.path.isfile(os.path.join(savepoint, "_pyflowkit_savepoint.json"))


def _slow_job(env: StreamExecutionEnvironment) -> None:
    _windowed(env, Events(bounded=False, pause=0.05))


def test_temporary_checkpoints_deleted_when_the_job_ends(spark, tmp_path, capfd) -> None:
    env = _env({"pyflowkit.spark.streaming.trigger": "available-now"})
    _windowed(env, Events(bounded=True))
    client = env.execute_async(spark=spark)
    location = client.job.checkpoint_location
    assert client.job.temporary_checkpoints and os.path.isdir(location)
    assert client.wait(timeout=120) == "FINISHED"
    assert _bodies(client.job.print_lines) == _bounded_run()
    assert not os.path.exists(location)
    err = capfd.readouterr().err
    assert f"checkpoints go to {location}" in err
    assert (
        f"FINISHED; deleted its temporary checkpoints {location} "
        "(retention NEVER_RETAIN_AFTER_TERMINATION)" in err
    )
    with pytest.raises(ValueError, match="its temporary checkpoints were deleted"):
        client.job.keyed_state(1)

    # canceled, no retention: deleted; a savepoint taken before is kept
    env = _env()
    _slow_job(env)
    client = env.execute_async(spark=spark)
    job = client.job
    _wait_for(job, lambda: job.batches >= 2)
    savepoint = str(tmp_path / "sp")
    client.trigger_savepoint(savepoint).result()
    client.cancel()
    assert client.get_job_status().result() is JobStatus.CANCELED
    assert not os.path.exists(job.checkpoint_location)
    assert os.path.isfile(os.path.join(savepoint, "_pyflowkit_savepoint.json"))

    # canceled with RETAIN_ON_CANCELLATION: kept (and said)
    env = _env()
    env.get_checkpoint_config().enable_externalized_checkpoints(
        ExternalizedCheckpointCleanup.RETAIN_ON_CANCELLATION
    )
    _slow_job(env)
    client = env.execute_async(spark=spark)
    job = client.job
    _wait_for(job, lambda: job.batches >= 1)
    capfd.readouterr()
    client.cancel()
    assert client.get_job_status().result() is JobStatus.CANCELED
    assert os.path.isdir(os.path.join(job.checkpoint_location, "commits"))
    assert (
        f"CANCELED; its checkpoints stay in {job.checkpoint_location} "
        "(retention RETAIN_ON_CANCELLATION)" in capfd.readouterr().err
    )
    shutil.rmtree(job.checkpoint_location)  # retained: the test cleans up
