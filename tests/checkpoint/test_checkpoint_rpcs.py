"""Checkpoint RPCs land on the components that receive them; the Task owns its checkpoint side."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint.properties import CheckpointOptions, CheckpointType
from pyflowkit.runtime.checkpoint.task_checkpoint_driver import TaskCheckpointDriver
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count

RUNTIME = Path(__file__).resolve().parents[2] / "pyflowkit" / "runtime"


def job(n: int) -> Any:
    return word_count(TransactionStore(), interval=10, words=["a", "b", "c"] * n)


def _tasks(run: Any) -> list[Any]:
    return [t for te in run.task_executors for t in te.tasks.values()]


def test_a_task_constructs_its_checkpoint_driver_before_it_runs() -> None:
    run = MiniCluster(echo_print=False, seed=1).submit(job(20))
    run.run_until(lambda r: bool(_tasks(r)))
    task = _tasks(run)[0]
    driver = task.checkpointing
    assert isinstance(driver, TaskCheckpointDriver) and driver.task is task
    assert driver.subtask is None and driver.handler is None  # set up by beforeInvoke
    run.run_until(all_tasks_in("RUNNING"))
    run.step(20)
    assert task.checkpointing is driver and driver.subtask is not None


def test_no_module_attaches_a_checkpoint_driver_to_a_task() -> None:
    for path in RUNTIME.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr":
                pytest.fail(f"{path.name}:{node.lineno} uses setattr")
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr == "checkpointing":
                        owner = ast.unparse(target.value)
                        assert (path.name, owner) == ("task.py", "self"), (
                            f"{path.name}:{node.lineno} assigns {owner}.checkpointing"
                        )


def test_task_executor_refuses_drain_for_a_non_synchronous_checkpoint() -> None:
    run = MiniCluster(echo_print=False, seed=1).submit(job(20))
    run.run_until(all_tasks_in("RUNNING"))
    te = run.task_executors[0]
    attempt = next(iter(te.tasks))
    options = CheckpointOptions(CheckpointType.CHECKPOINT)
    with pytest.raises(IllegalArgumentException, match="Only synchronous savepoints"):
        te.trigger_checkpoint(attempt, 99, 0, options, advance_to_end_of_event_time=True)


def test_rpcs_to_an_unknown_or_dead_attempt_are_dropped() -> None:
    run = MiniCluster(echo_print=False, seed=1).submit(job(20))
    run.run_until(all_tasks_in("RUNNING"))
    te = run.task_executors[0]
    before = len(run.trace)
    te.trigger_checkpoint("no-such-attempt", 7, 0, CheckpointOptions(CheckpointType.CHECKPOINT))
    te.confirm_checkpoint("no-such-attempt", 7, 0)
    te.abort_checkpoint("no-such-attempt", 7)
    assert len(run.trace) == before


def test_the_ack_path_runs_through_task_executor_task_and_job_master() -> None:
    run = MiniCluster(echo_print=False, seed=1).submit(job(40))
    run.run_until(checkpoint_completed(1))
    methods = [e.method for e in run.trace if e.checkpoint == 1]
    order = [
        "TaskExecutor.triggerCheckpoint",
        "Task.triggerCheckpointBarrier",
        "AsyncCheckpointRunnable.run",
        "RpcCheckpointResponder.acknowledgeCheckpoint",
        "JobMaster.acknowledgeCheckpoint",
        "SchedulerBase.acknowledgeCheckpoint",
    ]
    assert [m for m in methods if m in order][: len(order)] == order
    jm = run.job_master
    assert jm is not None and jm.checkpoint_coordinator.completed_by_id[1]
