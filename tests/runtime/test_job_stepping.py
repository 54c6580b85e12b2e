"""The JobRun split: the command log, command registration, replay of checkpoint triggers."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.job_run import JobRun
from pyflowkit.runtime.job_run_checkpoints import CheckpointTriggers
from pyflowkit.runtime.job_stepping import CommandLog, SteppedRun
from pyflowkit.runtime.predicates import all_tasks_in
from tests.runtime.fake_chain import demo_job, fake_chain_factory


def fake_run(n: int = 200) -> Any:
    return MiniCluster(chain_factory=fake_chain_factory, echo_print=False).submit(demo_job(n))


def test_command_log_applies_each_entry_once_per_timeline() -> None:
    log = CommandLog()
    log.record((3, "cancel", ()))
    log.entries.append((5, "fail_task", ("v", 0, None)))
    log.entries.append((5, "fail_task", ("v", 0, None)))  # the same command twice at one step
    assert log.due(3) == [] and log.pending(4) and not log.pending(6)
    assert log.due(5) == [(5, "fail_task", ("v", 0, None))]
    assert log.due(5) == [] and not log.pending(5)
    log.restart(keep_after=None)
    assert log.due(3) == [(3, "cancel", ())] and log.pending(0)
    log.restart(keep_after=4)
    assert log.entries == [(3, "cancel", ())] and log.applied == set()


def test_a_command_name_is_registered_once() -> None:
    run = fake_run()
    with pytest.raises(IllegalArgumentException, match="'trigger' is already registered"):
        run.register_command("trigger", lambda *a: None)
    assert set(run._handlers) == {"mode", "fail_task", "fail_task_manager", "cancel", "trigger"}


def test_checkpoint_triggers_are_a_part_not_a_base_of_job_run() -> None:
    assert JobRun.__mro__ == (JobRun, SteppedRun, object)
    run = fake_run()
    assert isinstance(run._checkpoints, CheckpointTriggers) and run._checkpoints.run is run
    # a part declares no attribute of the run it serves
    assert not set(getattr(CheckpointTriggers, "__annotations__", {})) - {"run"}


def test_rewind_replays_a_checkpoint_trigger_to_the_same_trace() -> None:
    run = fake_run(400)
    run.run_until(all_tasks_in("RUNNING"))
    cid = run.trigger_checkpoint()
    assert cid == 1
    at = run.steps_taken
    run.step(40)
    assert run.commands.entries[-1] == (at, "trigger", ("CHECKPOINT", None, 0))
    original = run.trace_json()
    run.rewind(at - 2)
    run.step(42)
    assert run.trace_json() == original
    assert 1 in run.checkpoint_coordinator.stats.by_id  # replayed by the log, not re-issued
    assert len(run.commands.entries) == 1


PUBLIC = {
    "step", "run", "run_until", "step_task", "has_next", "rewind", "fail_task",
    "fail_task_manager", "cancel", "executions", "execution_state", "state_history",
    "tasks_frame", "slots_frame", "results", "printed", "keyed_state", "failure_cause",
    "failure_traceback", "raise_if_failed", "trace_frame", "trace_json", "save_trace",
    "checkpoint_coordinator", "trigger_checkpoint", "trigger_savepoint", "stop_with_savepoint",
    "cancel_with_savepoint", "savepoint_path", "checkpoints_frame", "checkpoints_overview",
    "checkpoint_details", "keyed_state_at", "job_master", "job_id", "job_status", "now",
    "steps_taken", "trace",
}  # fmt: skip


def test_job_run_keeps_its_public_api() -> None:
    names = {n for n, _ in inspect.getmembers(JobRun) if not n.startswith("_")}
    assert PUBLIC <= names, sorted(PUBLIC - names)
    run = fake_run()
    for attr in ("bus", "host", "task_executors", "resource_manager", "dispatcher", "config"):
        assert getattr(run, attr) is not None
