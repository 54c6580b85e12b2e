"""Stop-with-savepoint of a query that keeps processing-time timers: Spark runs a (no-data) batch
at every trigger, so the query is seldom idle at a batch boundary. The job stops at the first
committed boundary, withholds the output of later batches and cuts them from the logs; stopped
plus resumed output holds every element and every timer exactly once."""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.job_status import JobStatus
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction, SourceFunction
from pyflowkit.spark.streaming_savepoint import last_batch, planned_batch

pytestmark = pytest.mark.spark

ELEMENTS = 60


class Elements(SourceFunction):
    """ELEMENTS keyed elements, a few ms apart, then idle (the job runs on)."""

    def run(self, ctx: Any) -> Any:
        for i in range(ELEMENTS):
            ctx.collect((f"k{i % 3}", i))
            time.sleep(0.01)
            yield None
        while True:
            time.sleep(0.05)
            yield None


class Timed(KeyedProcessFunction):
    """Each element registers a processing-time timer 30 ms on; a timer says when it fired."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        due = ctx.timer_service().current_processing_time() + 30
        ctx.timer_service().register_processing_time_timer(due)
        yield f"e {value[0]} {value[1]} {due}"

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield f"t {ctx.get_current_key()} {timestamp}"


def _start(conf: dict[str, str]) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(200)
    configuration = Configuration()
    settings = {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "10",
        **conf,
    }
    for key, value in settings.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    (
        env.add_source(Elements(), "Elements", Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda e: e[0], key_type=Types.STRING())
        .process(Timed(), Types.STRING())
        .print("p")
    )
    return env.execute_async("timers")


def _bodies(job: Any) -> list[str]:
    return [line.split("> ", 1)[1] for line in job.print_lines]


def _wait(job: Any, done: Any, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while not done() and time.monotonic() < deadline:
        time.sleep(0.1)


def test_stop_cuts_withheld_batches_and_resume_fires_every_timer_once(spark, tmp_path) -> None:
    conf = {"state.checkpoints.dir": str(tmp_path / "chk")}
    client = _start(conf)
    job = client.job
    _wait(job, lambda: sum(1 for b in _bodies(job) if b.startswith("e ")) >= 15)
    savepoint = str(tmp_path / "sp")
    assert client.stop_with_savepoint(savepoint).result() == savepoint
    assert client.get_job_status().result() is JobStatus.FINISHED
    # the savepoint ends at a committed batch, with no batch planned beyond it
    assert planned_batch(savepoint) == last_batch(savepoint)
    first = _bodies(job)

    resumed = _start({**conf, "execution.savepoint.path": savepoint})
    again = resumed.job
    expected_timers: set[str] = set()

    def all_fired() -> bool:
        lines = first + _bodies(again)
        elements = [b for b in lines if b.startswith("e ")]
        timers = {f"t {b.split()[1]} {b.split()[3]}" for b in elements}
        expected_timers.clear()
        expected_timers.update(timers)
        fired = {b for b in lines if b.startswith("t ")}
        return len(elements) >= ELEMENTS and timers <= fired

    _wait(again, all_fired)
    resumed.cancel()
    lines = first + _bodies(again)
    elements = Counter(int(b.split()[2]) for b in lines if b.startswith("e "))
    assert elements == Counter(range(ELEMENTS))  # every element once: none lost, none repeated
    timers = Counter(b for b in lines if b.startswith("t "))
    assert set(timers) == expected_timers  # every registered (key, time) fired ...
    assert set(timers.values()) == {1}  # ... exactly once across the stop
    assert os.path.isdir(savepoint)
