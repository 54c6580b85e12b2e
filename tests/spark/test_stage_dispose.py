"""A Spark stage's subtask ends as a Flink task does: close, then dispose (``StreamTask.invoke``
→ ``disposeAllOperators``); a failed subtask's user functions are closed once, by dispose, and a
plain ``SourceFunction.run`` still running is cancelled. Run in-process, without Spark."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import pyarrow as pa
import pytest

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.spark.plan import effective_runtime_mode, stage_specs
from pyflowkit.spark.stage import stage_function
from tests.spark.lifecycle import Tracked


class Endless(SourceFunction):
    cancels: ClassVar[int] = 0

    def __init__(self) -> None:
        self.running = True

    def run(self, ctx: Any) -> None:
        i = 0
        while self.running:
            ctx.collect(i)
            i += 1

    def cancel(self) -> None:
        self.running = False
        Endless.cancels += 1


def _source_stage(env: StreamExecutionEnvironment) -> Any:
    job = env.get_job_graph()
    spec = stage_specs(job, job.stream_graph.execution_config, effective_runtime_mode(job))[0]
    return stage_function(spec)(iter([pa.record_batch({"id": pa.array([0], pa.int64())})]))


def _env() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    return env


def test_a_finished_subtask_closes_its_functions_once() -> None:
    Tracked.calls.clear()
    env = _env()
    env.from_collection([1, 2, 3]).map(Tracked()).print()
    assert list(_source_stage(env))
    assert Tracked.calls == ["open", "close"]


def test_a_failed_subtask_closes_its_functions_by_dispose() -> None:
    Tracked.calls.clear()
    env = _env()
    env.from_collection([1, 2, 3]).map(Tracked(fail_on=2)).print()
    with pytest.raises(RuntimeError, match="bad value 2"):
        list(_source_stage(env))
    assert Tracked.calls == ["open", "close"]


def test_a_failed_subtask_cancels_its_running_source_thread() -> None:
    Endless.cancels = 0
    env = _env()
    env.add_source(Endless()).map(Tracked(fail_on=1000)).print()
    with pytest.raises(RuntimeError, match="bad value 1000"):
        list(_source_stage(env))
    assert Endless.cancels == 1
    assert not [t for t in threading.enumerate() if t.name.startswith("Legacy Source Thread")]
