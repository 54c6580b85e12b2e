"""Failures, restart strategies, failover regions, cancellation, slot shortage."""

import pytest

from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.errors import JobExecutionException
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, job_finished, job_status_is
from tests.runtime.fake_chain import (
    collect_sink,
    demo_job,
    fake_chain_factory,
    job_graph,
    map_,
    source,
)


def cluster(**kw):
    return MiniCluster(chain_factory=fake_chain_factory, echo_print=False, **kw)


def running(run):
    run.run_until(all_tasks_in(ExecutionState.RUNNING))


def restart_cycle(run):
    run.run_until(job_status_is(JobStatus.RESTARTING))
    run.run_until(job_status_is(JobStatus.RUNNING))
    running(run)


def messages(run):
    return [e.message for e in run.trace]


def test_fixed_delay_restart_recovers_with_new_attempts() -> None:
    run = cluster().submit(demo_job(40, RestartStrategies.fixed_delay_restart(3, 1000)))
    running(run)
    run.fail_task("Map", 1, cause=RuntimeError("injected"))
    run.run_until(job_status_is(JobStatus.RESTARTING))
    failed_at = run.now
    run.run_until(job_status_is(JobStatus.RUNNING))
    assert run.now - failed_at >= 1000  # the restart delay on the simulated clock
    run.run()
    assert run.job_status is JobStatus.FINISHED
    msgs = messages(run)
    assert any(
        m.startswith("Calculating tasks to restart to recover the failed task ") for m in msgs
    )
    assert any(m.startswith("5 tasks should be restarted") for m in msgs)  # ALL_TO_ALL: 1 region
    assert any("Deploying Map (2/2) (attempt #1)" in m for m in msgs)
    assert any("switched from RUNNING to CANCELING." in m for m in msgs)
    jobs = [(h["from"], h["to"]) for h in run.state_history() if h["subject"].startswith("job")]
    assert jobs == [
        ("CREATED", "RUNNING"),
        ("RUNNING", "RESTARTING"),
        ("RESTARTING", "RUNNING"),
        ("RUNNING", "FINISHED"),
    ]
    # subtasks named as Flink's web UI names them: (index + 1) / parallelism
    failed = [h["subject"] for h in run.state_history() if h["to"] == "FAILED"]
    assert failed == ["Map (2/2)", "Map (2/2)"]  # TaskExecutor side, then JobMaster side
    assert {e.attempt_number for e in run.executions()} == {1}
    # a restart without checkpoints replays the source from the start with empty state
    finals: dict[int, int] = {}
    for k, v in run.results()["Sink: Collect"]:
        finals[k] = v
    assert finals == {k: sum(x for x in range(40) if x % 3 == k) for k in range(3)}


def test_fixed_delay_exhausted_fails_job() -> None:
    run = cluster().submit(demo_job(40, RestartStrategies.fixed_delay_restart(1, 100)))
    running(run)
    run.fail_task("Map", 0, cause="first")
    restart_cycle(run)
    run.fail_task("Map", 0, cause="second")
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    jobs = [h["to"] for h in run.state_history() if h["subject"].startswith("job")]
    assert jobs[-2:] == ["FAILING", "FAILED"]
    assert str(run.failure_cause) == (
        "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy"
        "(maxNumberRestartAttempts=1, backoffTimeMS=100)"
    )
    assert "second" in str(run.failure_cause.__cause__)


def test_no_restart_is_default_without_checkpointing() -> None:
    run = cluster().submit(demo_job(40))
    running(run)
    run.fail_task("Keyed Reduce", 1)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert "Using restart back off time strategy NoRestartBackoffTimeStrategy" in " ".join(
        messages(run)
    )
    assert str(run.failure_cause) == "Recovery is suppressed by NoRestartBackoffTimeStrategy"
    states = {
        e.vertex.job_vertex.name + str(e.vertex.subtask_index): e.state for e in run.executions()
    }
    assert states["Keyed Reduce -> Sink: Collect1"] is ExecutionState.FAILED
    assert all(
        s in (ExecutionState.FAILED, ExecutionState.CANCELED, ExecutionState.FINISHED)
        for s in states.values()
    )


def test_failure_rate_restart() -> None:
    strategy = RestartStrategies.failure_rate_restart(2, 60_000, 10)
    run = cluster().submit(demo_job(200, strategy))
    running(run)
    run.fail_task("Map", 0)
    restart_cycle(run)
    run.fail_task("Map", 1)  # second failure within the minute → refused
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert str(run.failure_cause).startswith(
        "Recovery is suppressed by FailureRateRestartBackoffTimeStrategy(failuresIntervalMS=60000"
    )


def test_user_exception_traceback_reaches_error() -> None:
    run = cluster().submit(demo_job(20, fail_on=lambda v: v == (0, 63)))
    run.run()
    assert run.job_status is JobStatus.FAILED
    tb = run.failure_traceback
    assert "ValueError: bad record (0, 63)" in tb
    assert "fake_chain.py" in tb and "Traceback (most recent call last)" in tb
    with pytest.raises(JobExecutionException) as info:
        run.raise_if_failed()
    assert "ValueError: bad record (0, 63)" in str(info.value)
    assert info.value.job_id == "a" * 32
    failed = [
        e for e in run.trace if e.new_state == "FAILED" and e.component == "JobMaster" and e.vertex
    ]
    assert failed and failed[0].message.endswith("on TaskExecutor-0 @ localhost (dataPort=-1).")


def test_cancel_job() -> None:
    run = cluster().submit(demo_job(400))
    running(run)
    run.cancel()
    run.run_until(job_finished())
    assert run.job_status is JobStatus.CANCELED
    jobs = [h["to"] for h in run.state_history() if h["subject"].startswith("job")]
    assert jobs == ["RUNNING", "CANCELLING", "CANCELED"]
    assert {e.state for e in run.executions()} <= {ExecutionState.CANCELED, ExecutionState.FINISHED}


def slot_shortage_run():
    src = source(range(10))
    jg = job_graph([collect_sink(map_(src, lambda x: x, 3), 3)], parallelism=3)
    run = cluster(task_managers=1, slots_per_task_manager=2).submit(jg)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert run.now >= 300_000  # slot.request.timeout
    assert any("Pending slot request [default#2] timed out." == m for m in messages(run))
    return run


@pytest.mark.flink_version("1.11")
def test_slot_shortage_fails_with_no_resource_available() -> None:
    cause = slot_shortage_run().failure_cause.__cause__
    assert type(cause).__name__ == "NoResourceAvailableException"
    assert str(cause) == (
        "Could not allocate the required slot within slot request timeout. "
        "Please make sure that the cluster has enough resources."
    )
    assert isinstance(cause.__cause__, TimeoutError)


def test_slot_shortage_fails_with_1_20s_message() -> None:
    """Flink 1.20: ``DeclarativeSlotPoolBridge.failPendingRequests`` (PyFlink 1.20.3 printed it for
    the golden ``program__notebook02_slots``)."""
    run = slot_shortage_run()
    cause = run.failure_cause.__cause__
    assert type(cause).__name__ == "NoResourceAvailableException"
    assert str(cause) == "Could not acquire the minimum required resources."
    assert cause.__cause__ is None
    run.step(200)  # the RM refuses the declarations still in flight: nothing more is allocated
    assert not run.has_next()


def test_task_manager_loss_restarts_on_remaining_slots() -> None:
    run = cluster(task_managers=2, slots_per_task_manager=2).submit(
        demo_job(60, RestartStrategies.fixed_delay_restart(2, 50))
    )
    running(run)
    assert set(run.tasks_frame().task_executor) == {"TaskExecutor-0"}
    run.fail_task_manager(0)
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert set(run.tasks_frame().task_executor) == {"TaskExecutor-1"}
    slots = run.slots_frame()
    assert list(slots[slots.task_executor == "TaskExecutor-0"].alive) == [False, False]


def test_dead_task_managers_slots_are_released_everywhere() -> None:
    run = cluster(task_managers=2, slots_per_task_manager=2).submit(
        demo_job(60, RestartStrategies.fixed_delay_restart(2, 50))
    )
    running(run)
    dead = run.task_executors[0]
    before = run.slots_frame()
    assert set(before[before.task_executor == "TaskExecutor-0"].state) == {"ALLOCATED"}
    run.fail_task_manager(0)
    run.step()  # the kill
    slots = run.slots_frame()
    gone = slots[slots.task_executor == "TaskExecutor-0"]
    assert list(gone.state) == ["FREE", "FREE"]  # the process and its slot table are gone
    assert list(gone.tasks) == ["", ""]
    assert gone.allocation_id.isna().all() and gone.job.isna().all()
    run.run()
    assert run.job_status is JobStatus.FINISHED
    pool = run.job_master.slot_pool
    assert not [s for s in pool.slots.values() if s.task_executor is dead]
    assert not [k for k in run.resource_manager.slot_manager.slots if k[0] == 0]
    slots = run.slots_frame()
    assert list(slots[slots.task_executor == "TaskExecutor-0"].state) == ["FREE", "FREE"]


def test_forward_only_pipeline_has_region_per_subtask() -> None:
    src = source(range(40), parallelism=2, name="Parallel Source")
    jg = job_graph([collect_sink(map_(src, lambda x: x + 1, 2), 2)], parallelism=2)
    run = cluster().submit(jg)
    run.step(4)
    assert "Built 2 pipelined regions" in messages(run)
