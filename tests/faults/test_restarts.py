"""No endless cell, failover keeps the restore settings, runtime errors fail the job, commands are
validated before they are logged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException, RestartGuardException
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from pyflowkit.runtime.restart_guard import DEFAULT_MAX_RESTARTS
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count
from tests.faults.helpers import assert_cleanly_failed

HERE = Path(__file__).name


def always_fails(value: Any) -> Any:
    raise ValueError(f"cannot handle {value!r}")


def looping_env(conf: Configuration | None = None, strategy: Any = None) -> Any:
    """Checkpointing on, no restart strategy: Flink's default restarts it forever."""
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.enable_checkpointing(100)
    if strategy is not None:
        env.set_restart_strategy(strategy)
    env.from_collection([1, 2, 3]).map(always_fails).name("parse").print()
    return env


def assert_guard_message(err: RestartGuardException, restarts: int) -> None:
    text = str(err)
    assert err.restarts == restarts
    assert f"restarted {restarts} times during this run and keeps failing: " in text
    assert "ValueError: cannot handle 1 in operator 'parse' of " in text
    assert f"raised by always_fails ({HERE}, line " in text
    assert "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=2147483647" in text
    assert "env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 1000))" in text
    assert "run(max_restarts=N)" in text and "'pyflowkit.local.max-restarts'" in text
    assert isinstance(err.cause, ValueError)


GUARDS: list[tuple[str, dict[str, Any], int]] = [
    ("default guard", {}, DEFAULT_MAX_RESTARTS + 1),
    ("max_restarts=3", {"max_restarts": 3}, 4),
    ("max_restarts=0", {"max_restarts": 0}, 1),
]


@pytest.mark.parametrize("kwargs,restarts", [g[1:] for g in GUARDS], ids=[g[0] for g in GUARDS])
def test_run_stops_an_endless_restart_loop(kwargs: dict[str, Any], restarts: int) -> None:
    run = MiniCluster(echo_print=False).submit(looping_env())
    with pytest.raises(RestartGuardException) as err:
        run.run(**kwargs)
    assert_guard_message(err.value, restarts)
    assert run.number_of_restarts == restarts
    # the run is left as it was: still usable, steps on, and cancels cleanly
    assert run.job_status in (JobStatus.RUNNING, JobStatus.RESTARTING)
    run.step(3)
    run.cancel()
    run.run(max_restarts=None)
    assert run.job_status is JobStatus.CANCELED


def test_execute_on_the_local_target_stops_and_cancels() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = looping_env(conf)
    with pytest.raises(RestartGuardException) as err:
        env.execute("looping job")
    assert_guard_message(err.value, DEFAULT_MAX_RESTARTS + 1)
    assert "Job 'looping job'" in str(err.value)
    # the environment runs a good pipeline afterwards
    env.from_collection([1, 2]).map(lambda v: v + 1).print()
    assert env.execute("fine").get_job_id()


def test_execute_guard_from_the_configuration() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    conf.set_string("pyflowkit.local.max-restarts", "2")
    with pytest.raises(RestartGuardException) as err:
        looping_env(conf).execute("looping job")
    assert err.value.restarts == 3


@pytest.mark.parametrize("bad", [-1, "many", 1.5, True])
def test_bad_guard_is_refused_before_running(bad: Any) -> None:
    run = MiniCluster(echo_print=False).submit(looping_env())
    with pytest.raises(IllegalArgumentException, match="JobRun.run: max_restarts must be None or"):
        run.run(max_restarts=bad)
    assert run.steps_taken == 0 and run.job_status is JobStatus.CREATED


def test_a_bounded_restart_strategy_needs_no_guard() -> None:
    env = looping_env(strategy=RestartStrategies.fixed_delay_restart(4, 10))
    run = MiniCluster(echo_print=False).submit(env)
    run.run()
    assert_cleanly_failed(run)
    assert run.number_of_restarts == 4
    assert str(run.failure_cause).startswith(
        "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=4"
    )
    assert "(attempt #4)" in run.failure_traceback


def test_number_of_restarts_counts_each_restart_for_the_stepper() -> None:
    env = looping_env(strategy=RestartStrategies.fixed_delay_restart(10, 10))
    env._transformations.clear()  # a job that does not fail by itself
    env.from_collection(list(range(200))).map(lambda v: v).print()
    run = MiniCluster(echo_print=False, source_batch=1).submit(env)
    assert run.number_of_restarts == 0
    for expected in (1, 2):
        run.run_until(all_tasks_in("RUNNING"))
        run.fail_task("Source: Collection Source -> Map -> Sink: Print to Std. Out", 0)
        run.run_until(lambda r, n=expected: r.number_of_restarts == n)
    run.run()
    assert run.job_status is JobStatus.FINISHED and run.number_of_restarts == 2


# -- failover keeps the restore settings --------------------------------------------------------


def test_failover_keeps_allow_non_restored_state(tmp_path: Path) -> None:
    store = TransactionStore()
    first = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(word_count(store))
    first.run_until(checkpoint_completed())
    sp = first.stop_with_savepoint(tmp_path)
    path = first.savepoint_path(sp)
    first.run_until(job_finished())
    renamed = word_count(store, reduce_uid="totals")  # the reduce state maps to no operator now
    run = MiniCluster(echo_print=False, seed=5, source_batch=2).submit(
        renamed, savepoint_path=path, allow_non_restored_state=True
    )
    run.run_until(all_tasks_in("RUNNING"))
    run.fail_task("Keyed Reduce -> Sink: Unnamed", 0)  # failover restores the savepoint again
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert run.number_of_restarts == 1
    restores = [
        e.message
        for e in run.trace
        if e.method == "CheckpointCoordinator.restoreLatestCheckpointedState"
    ]
    assert len([m for m in restores if m.startswith("Restoring job")]) == 2


# -- runtime errors fail the job ------------------------------------------------------------------


def test_an_exception_inside_the_runtime_fails_the_job_with_its_cause() -> None:
    env = looping_env(strategy=RestartStrategies.no_restart())
    env._transformations.clear()
    env.from_collection([1, 2]).map(lambda v: v).print()
    run = MiniCluster(echo_print=False).submit(env)
    run.run_until(all_tasks_in("RUNNING"))

    def broken() -> None:
        raise RuntimeError("internal bookkeeping broke")

    run.bus.call_later(0, "JobMaster", "JobMaster.something", broken)
    run.step(5)  # does not raise
    run.run()
    assert_cleanly_failed(run)
    assert isinstance(run.failure_cause, RuntimeError)
    assert "internal bookkeeping broke" in run.failure_traceback
    assert any(e.method == "JobMaster.handleJobMasterError" for e in run.trace)


# -- commands validated before they are logged ------------------------------------------------------

REJECTED: list[tuple[str, Callable[[Any], Any], str]] = [
    ("fail_task before deployment", lambda r: r.fail_task("Map", 0), "has no live task to fail"),
    ("cancel before the JobMaster", lambda r: r.cancel(), "the job has no JobMaster yet"),
    ("fail_task unknown vertex", lambda r: r.fail_task("Nope", 0), "No vertex 'Nope'"),
    ("fail_task bad subtask", lambda r: r.fail_task("Map", 5), "subtask must be in [0, 1)"),
    ("fail_task bad cause", lambda r: r.fail_task("Map", 0, cause=3), "cause must be an exception"),
    ("fail_task_manager bad index", lambda r: r.fail_task_manager(4), "index must be in [0, 2)"),
    ("step(0)", lambda r: r.step(0), "n must be an int >= 1"),
    ("rewind past the end", lambda r: r.rewind(99), "k must be between 0 and the current step"),
]


@pytest.mark.parametrize("call,rule", [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED])
def test_a_rejected_command_is_not_logged_and_rewind_replays_cleanly(
    call: Callable[[Any], Any], rule: str
) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda v: v * 2).name("Map").disable_chaining().print()
    run = MiniCluster(echo_print=False).submit(env)
    run.step(1)
    logged = list(run.commands.entries)
    with pytest.raises(IllegalArgumentException) as err:
        call(run)
    assert rule in str(err.value)
    assert run.commands.entries == logged
    run.run()
    assert run.job_status is JobStatus.FINISHED
    end = run.steps_taken
    run.rewind(2)  # replays only accepted commands: no error
    run.run()
    assert run.job_status is JobStatus.FINISHED and run.steps_taken == end
    assert sorted(run.printed()) == ["2", "4", "6"]
