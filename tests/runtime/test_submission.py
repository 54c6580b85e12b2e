"""The submission and deployment path in Flink 1.11's order (reference §6, §10)."""

import re

import pytest

from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import job_finished
from tests.runtime.fake_chain import demo_job, fake_chain_factory

# the classroom's golden 1.11 submission (EagerSchedulingStrategy, one requestSlot per slot, slot
# numbers 0, 1); 1.20's (declarative slots, dynamic slot ids) is asserted in tests/versions
pytestmark = pytest.mark.flink_version("1.11")


def make_run(**kw):
    return MiniCluster(chain_factory=fake_chain_factory, echo_print=False, **kw).submit(demo_job())


def first(trace, pattern: str) -> int:
    for i, e in enumerate(trace):
        if re.search(pattern, e.message) or e.method == pattern:
            return i
    raise AssertionError(f"{pattern!r} not in trace")


def test_golden_submission_order_three_vertex_job() -> None:
    run = make_run()
    run.run_until(job_finished())
    run.step(1000)  # the Dispatcher and slot release come after FINISHED
    assert not run.has_next()
    t = run.trace
    order = [
        "Dispatcher.submitJob",
        "JobManagerRunnerImpl.start",
        "JobManagerRunnerImpl.grantLeadership",
        r"^Initializing job demo job",
        r"^Built 1 pipelined regions$",
        "JobMaster.start",
        r"^Starting scheduling with scheduling strategy \[.*EagerSchedulingStrategy\]$",
        r"^Job demo job \(a{32}\) switched from state CREATED to RUNNING\.$",
        r"switched from CREATED to SCHEDULED\.$",
        "SlotPool.requestNewAllocatedSlot",
        "ResourceManager.registerJobManager",
        "SlotManager.registerSlotRequest",
        "TaskExecutor.requestSlot",
        "SlotPool.offerSlot",
        r"switched from SCHEDULED to DEPLOYING\.$",
        r"^Deploying .* \(attempt #0\) to TaskExecutor-\d @ localhost \(dataPort=-1\)$",
        "TaskExecutor.submitTask",
        r"switched from CREATED to DEPLOYING\.$",
        r"switched from DEPLOYING to RUNNING\.$",
        "StreamTask.invoke",
        r"switched from RUNNING to FINISHED\.$",
        r"^Job demo job \(a{32}\) switched from state RUNNING to FINISHED\.$",
        r"^Stopping checkpoint coordinator for job a{32}\.$",
        r"^Job a{32} reached globally terminal state FINISHED\.$",
    ]
    positions = [first(t, p) for p in order]
    assert positions == sorted(positions), list(zip(order, positions, strict=True))
    # all five executions are SCHEDULED before any slot is requested (eager scheduling)
    scheduled = [i for i, e in enumerate(t) if e.message.endswith("CREATED to SCHEDULED.")]
    assert len(scheduled) == 5
    assert max(scheduled) < first(t, "SlotPool.requestNewAllocatedSlot")
    # JobStatus goes RUNNING before any task is deployed (pitfall 11)
    assert first(t, "CREATED to RUNNING") < first(t, "SCHEDULED to DEPLOYING")
    assert run.job_status is JobStatus.FINISHED


def test_log_line_formats() -> None:
    run = make_run()
    run.run_until(job_finished())
    msgs = [e.message for e in run.trace]
    assert "Received task Map (1/2)." in msgs
    assert any(
        re.fullmatch(r"Map \(1/2\) \([0-9a-f]{32}\) switched from SCHEDULED to DEPLOYING\.", m)
        for m in msgs
    )
    assert any(
        re.fullmatch(
            r"Deploying Map \(1/2\) \(attempt #0\) to TaskExecutor-\d @ localhost "
            r"\(dataPort=-1\)",
            m,
        )
        for m in msgs
    )
    assert any(
        re.fullmatch(
            r"Un-registering task and sending final execution state FINISHED to "
            r"JobManager for task Map \(2/2\) [0-9a-f]{32}\.",
            m,
        )
        for m in msgs
    )


def test_slot_sharing_one_slot_per_subtask_index() -> None:
    run = make_run()
    run.run_until(
        lambda r: all(e.state.value == "RUNNING" for e in r.executions()) and bool(r.executions())
    )
    slots = run.slots_frame()
    allocated = slots[slots.state == "ALLOCATED"]
    assert len(allocated) == 2  # max parallelism in the 'default' group
    tasks = sorted(allocated.tasks)
    assert tasks == [
        "Keyed Reduce -> Sink: Collect (1/2), Map (1/2), Source: Custom Source (1/1)",
        "Keyed Reduce -> Sink: Collect (2/2), Map (2/2)",
    ]
    frame = run.tasks_frame()
    assert list(frame.state) == ["RUNNING"] * 5
    assert frame.set_index("name").loc["Map (2/2)", "slot"] == 1


def test_results_and_finish() -> None:
    run = make_run()
    run.run()
    assert run.job_status is JobStatus.FINISHED
    got = run.results()["Sink: Collect"]
    expect: dict[int, int] = {}
    finals = {}
    for x in range(20):
        expect[x % 3] = expect.get(x % 3, 0) + x
    for k, v in got:
        finals[k] = v
    assert finals == expect
    assert len(got) == 20
    # every slot is free again once the job is over
    assert set(run.slots_frame().state) == {"FREE"}
