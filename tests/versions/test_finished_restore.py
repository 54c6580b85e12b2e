"""FLIP-147 restore under both profiles, on the simulated cluster: a source that FINISHED before
the restored checkpoint does not run again under 1.20 and replays under 1.11.

Under 1.20 a checkpoint taken after a vertex FINISHED records its operators as
``FullyFinishedOperatorState``; the restore deploys its subtasks with
``TaskStateSnapshot.FINISHED_ON_RESTORE`` and a ``FinishedOperatorChain`` (the source skips its
run). Under 1.11 no checkpoint completes once a source finished, so a failover replays it.
(tests/checkpoint/test_finished_on_restore.py covers the state assignment and savepoints.)
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import MiniCluster
from tests.versions.test_flink_version_profile import _Endless

SINK = "Sink: Print to Std. Out"
DEPLOYED_AS_FINISHED = (
    "Source: Collection Source (1/1) is deployed as finished (TaskStateSnapshot.FINISHED_ON_RESTORE"
)


def _fail_after_the_source_finished(version: str) -> tuple[Any, list[tuple[str, str]]]:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, version)
    )
    env.set_parallelism(1)
    env.enable_checkpointing(100)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 10))
    bounded = env.from_collection(["x1", "x2", "x3"])
    bounded.union(env.add_source(_Endless()).map(lambda e: str(e[1]))).print()
    run: Any = MiniCluster(echo_print=False, seed=1).submit(env, "restore-finished")
    run.step(1200)
    run.fail_task(SINK, 0, "boom")
    run.step(1200)
    events = [(e.method, e.message) for e in run.bus.trace]
    run.cancel()
    return run, events


def _collection_lines(run: Any) -> list[str]:
    return [line for line in run.printed() if line.startswith("x")]


def test_1_20_restores_the_finished_source_as_finished() -> None:
    run, events = _fail_after_the_source_finished("1.20")
    failed_at = next(i for i, (m, msg) in enumerate(events) if m == "Task.failure")
    completed_before = [
        msg
        for m, msg in events[:failed_at]
        if m == "CheckpointCoordinator.completePendingCheckpoint"
    ]
    assert completed_before  # checkpoints completed after the source finished (FLIP-147)
    restored = [msg for m, msg in events[failed_at:] if m == "StreamTask.restoreInternal"]
    assert len(restored) == 1 and restored[0].startswith(DEPLOYED_AS_FINISHED)
    # the source's records are not emitted a second time; the endless source carries on
    assert _collection_lines(run) == ["x1", "x2", "x3"]
    sources = [e for e in run.executions() if e.vertex.name.startswith("Source: Collection")]
    assert [(e.attempt_number, e.state.value) for e in sources] == [(1, "FINISHED")]


def test_1_11_replays_the_finished_source_after_a_failover() -> None:
    run, events = _fail_after_the_source_finished("1.11")
    failed_at = next(i for i, (m, msg) in enumerate(events) if m == "Task.failure")
    assert not any(
        m == "CheckpointCoordinator.completePendingCheckpoint" for m, _ in events[:failed_at]
    )
    assert not any(m == "StreamTask.restoreInternal" for m, _ in events)
    assert _collection_lines(run) == ["x1", "x2", "x3"] * 2  # the source ran again
