"""FLIP-147 under the 1.20 profile: checkpoints after tasks finish and the final checkpoint.

Flink 1.11's CheckpointCoordinator declines every trigger once a source FINISHED; Flink 1.20's
DefaultCheckpointPlanCalculator triggers the running tasks, waits for them only and reports the
finished ones, and a task waits for its final checkpoint before it reaches FINISHED, so a
two-phase-commit sink commits its last transaction in that checkpoint.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FINISHED_TASKS_KEY, FLINK_VERSION_KEY
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.graph.job_graph import DistributionPattern
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.checkpoint.checkpoint_plan import (
    CheckpointPlanException,
    DefaultCheckpointPlanCalculator,
)
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from tests.versions.test_flink_version_profile import _Endless

FINISHED = "switched from RUNNING to FINISHED."
FINISHED_ = "FINISHED"


def _env(version: str, **conf: str) -> StreamExecutionEnvironment:
    c = Configuration().set_string(FLINK_VERSION_KEY, version)
    for key, value in conf.items():
        c.set_string(key, value)
    env = StreamExecutionEnvironment.get_execution_environment(c)
    env.set_parallelism(1)
    env.enable_checkpointing(100)
    env.get_checkpoint_config().set_checkpoint_timeout(200)
    env.get_checkpoint_config().set_tolerable_checkpoint_failure_number(100)
    return env


def _two_sources(env: StreamExecutionEnvironment) -> Any:
    """A bounded source (finishes first) and an endless one, both into one print sink."""
    bounded = env.from_collection([1, 2, 3])
    endless = env.add_source(_Endless()).map(lambda e: e[1])
    bounded.union(endless).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env, "two-sources")
    run.step(3000)
    events = [(e.method, e.message) for e in run.bus.trace]
    finished_at = next(
        i
        for i, (m, msg) in enumerate(events)
        if m == "Execution.transitionState"
        and "Source: Collection Source" in msg
        and FINISHED in msg
    )
    completed_after = [
        msg
        for m, msg in events[finished_at:]
        if m == "CheckpointCoordinator.completePendingCheckpoint"
    ]
    states = {e.vertex.name: e.state.value for e in run.executions()}
    job_id = run.job_graph.job_id
    run.cancel()
    return events, finished_at, completed_after, states, job_id


def test_1_20_completes_checkpoints_after_a_source_finished() -> None:
    events, finished_at, completed_after, states, job_id = _two_sources(_env("1.20"))
    assert states["Source: Collection Source (1/1)"] == "FINISHED"
    assert states["Source: Custom Source -> Map (1/1)"] == "RUNNING"
    assert completed_after and completed_after[0].startswith(
        f"Completed checkpoint 2 for job {job_id}"
    )
    plan = [m for meth, m in events if meth.startswith("DefaultCheckpointPlanCalculator.")]
    assert plan[0] == (
        f"Checkpoint 2 of job {job_id} with finished tasks: triggering [Source: Custom Source -> "
        "Map (1/1)]; waiting for 2 running task(s); finished: [Source: Collection Source (1/1)]; "
        "fully finished operators (FullyFinishedOperatorState): ['Source: Collection Source']."
    )
    # only the running source is triggered; the finished one is reported, not waited for
    triggered = [m for meth, m in events[finished_at:] if meth == "Execution.triggerCheckpoint"]
    assert (
        triggered[0]
        == "Triggering checkpoint 2 at source Source: Custom Source -> Map (1/1) (attempt #0)."
    )
    assert all("Collection Source" not in m for m in triggered)
    # the finished source took part in checkpoint 1 (its final checkpoint) before FINISHED
    final = events.index(
        (
            "StreamTask.notifyCheckpointComplete",
            "Source: Collection Source (1/1): final checkpoint 1 complete "
            "(finalCheckpointCompleted): the task may finish.",
        )
    )
    assert final < finished_at
    assert not any("is not in state RUNNING" in m for _, m in events)


def test_1_11_declines_every_checkpoint_once_a_source_finished() -> None:
    events, finished_at, completed_after, states, job_id = _two_sources(_env("1.11"))
    assert states["Source: Collection Source (1/1)"] == "FINISHED"
    assert completed_after == []
    declined = (
        f"Checkpoint triggering task Source: Collection Source (1/1) of job {job_id} is not in "
        "state RUNNING but FINISHED instead. Aborting checkpoint."
    )
    assert ("CheckpointCoordinator.getTriggerExecutions", declined) in events[finished_at:]
    assert not any(m.startswith("DefaultCheckpointPlanCalculator.") for m, _ in events)


def test_1_20_with_the_option_off_refuses_checkpoints_with_finished_tasks() -> None:
    env = _env("1.20", **{FINISHED_TASKS_KEY: "false"})
    events, _, completed_after, _, job_id = _two_sources(env)
    assert completed_after == []
    assert (
        "DefaultCheckpointPlanCalculator.calculateCheckpointPlan",
        f"some tasks of job {job_id} has been finished, abort the checkpoint",
    ) in events


def _two_phase_commit_job(version: str) -> tuple[Any, TransactionStore]:
    env = _env(version)
    store = TransactionStore()
    env.from_collection(list(range(6))).add_sink(TransactionalListSink(store))
    run = MiniCluster(echo_print=False, seed=1).submit(env, "2pc")
    run.run_until(lambda r: r.job_status.name == "FINISHED", max_steps=50_000)
    return run, store


def test_1_20_commits_the_last_transaction_in_the_final_checkpoint() -> None:
    run, store = _two_phase_commit_job("1.20")
    assert store.committed == [0, 1, 2, 3, 4, 5]
    assert store.final == {}  # nothing left for commit_final_transactions
    events = [(e.method, e.message) for e in run.bus.trace]
    complete = next(
        i
        for i, (m, msg) in enumerate(events)
        if m == "StreamTask.notifyCheckpointComplete"
        and "final checkpoint" in msg
        and msg.startswith("Source: Collection Source -> Sink")
    )
    finished = next(
        i
        for i, (m, msg) in enumerate(events)
        if m == "Task.transitionState"
        and msg.startswith("Source: Collection Source -> Sink")
        and FINISHED in msg
    )
    assert complete < finished


def test_1_11_leaves_the_last_transaction_to_the_end_of_the_job() -> None:
    run, store = _two_phase_commit_job("1.11")
    assert store.committed == []  # no checkpoint completed before the source ended
    assert [t["records"] for t in store.final[0]] == [[0, 1, 2, 3, 4, 5]]
    assert not any(e.method == "StreamTask.notifyCheckpointComplete" for e in run.bus.trace)


def test_1_20_stop_with_savepoint_is_the_final_checkpoint() -> None:
    """``afterInvoke`` waits for ``finalCheckpointCompleted``, which a completed synchronous
    savepoint completes: the stopped job finishes without another checkpoint."""
    env = _env("1.20")
    env.add_source(_Endless()).map(lambda e: e[1]).key_by(lambda x: x % 2).map(abs).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env, "stop")
    run.step(2000)
    sp = run.stop_with_savepoint()
    run.run_until(lambda r: r.job_status.name == "FINISHED", max_steps=50_000)
    assert {e.state.value for e in run.executions()} == {"FINISHED"}
    completed = [
        e.message
        for e in run.bus.trace
        if e.method == "CheckpointCoordinator.completePendingCheckpoint"
    ]
    assert completed[-1].startswith(f"Completed checkpoint {sp} for job")


# --- DefaultCheckpointPlanCalculator on its own ---------------------------------------------


def _vertex(name: str, p: int, *inputs: tuple[Any, DistributionPattern]) -> Any:
    v = SimpleNamespace(id=name, name=name, parallelism=p, inputs=[], stream_nodes=[])
    v.stream_nodes = [SimpleNamespace(operator_name=name)]
    v.inputs = [SimpleNamespace(source=s, distribution_pattern=d) for s, d in inputs]
    return v


def _plan(states: dict[str, list[str]]) -> Any:
    a = _vertex("A", 2)
    m = _vertex("M", 2, (a, DistributionPattern.POINTWISE))
    s = _vertex("S", 1, (m, DistributionPattern.ALL_TO_ALL))
    execs = {
        v: [
            SimpleNamespace(
                state=SimpleNamespace(value=st), vertex=SimpleNamespace(name=f"{v} ({i + 1})")
            )
            for i, st in enumerate(states[v])
        ]
        for v in states
    }
    gateway = SimpleNamespace(current_executions=lambda vid: execs[vid])
    plan = DefaultCheckpointPlanCalculator(
        "j", [a, m, s], gateway, True
    ).calculate_checkpoint_plan()
    return SimpleNamespace(
        trigger=[e.vertex.name for e in plan.tasks_to_trigger],
        wait=[e.vertex.name for _, e in plan.tasks_to_wait_for],
        finished=[e.vertex.name for e in plan.finished_tasks],
        fully=plan.fully_finished_operators(),
    )


def test_the_plan_triggers_running_tasks_without_running_predecessors() -> None:
    r = "RUNNING"
    all_running = _plan({"A": [r, r], "M": [r, r], "S": [r]})
    assert all_running.trigger == ["A (1)", "A (2)"]  # calculateWithAllTasksRunning
    assert all_running.wait == ["A (1)", "A (2)", "M (1)", "M (2)", "S (1)"]
    # A (1) and its POINTWISE successor M (1) finished: M (2) still has a running predecessor
    half = _plan({"A": [FINISHED_, r], "M": [FINISHED_, r], "S": [r]})
    assert half.trigger == ["A (2)"]
    assert half.wait == ["A (2)", "M (2)", "S (1)"]
    assert half.finished == ["A (1)", "M (1)"] and half.fully == []
    # every A finished: M (2) is triggered itself; S waits behind the running M (ALL_TO_ALL)
    sources_done = _plan({"A": [FINISHED_, FINISHED_], "M": [FINISHED_, r], "S": [r]})
    assert sources_done.trigger == ["M (2)"]
    assert sources_done.fully == ["A"]
    # everything upstream finished: the sink is triggered through its finished channels
    assert _plan({"A": [FINISHED_] * 2, "M": [FINISHED_] * 2, "S": [r]}).trigger == ["S (1)"]


def test_the_plan_refuses_to_trigger_a_task_still_deploying() -> None:
    with pytest.raises(
        CheckpointPlanException,
        match=r"Checkpoint triggering task M \(2\) of job j "
        r"has not being executed at the moment\. Aborting checkpoint\.",
    ):
        _plan({"A": [FINISHED_] * 2, "M": [FINISHED_, "DEPLOYING"], "S": ["RUNNING"]})


def _bounded_pipeline(version: str, **conf: str) -> tuple[Any, list[str]]:
    """source → map → key_by → reduce → print at p=2: a bounded job with three stages."""
    env = _env(version, **conf)
    env.set_parallelism(2)
    data = [("a", 1), ("b", 2), ("a", 3), ("c", 4)]
    env.from_collection(data).map(lambda e: e).key_by(lambda e: e[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env, "bounded")
    run.run_until(lambda r: r.job_status.name == "FINISHED", max_steps=50_000)
    completed = [
        e.message.split(" for job")[0]
        for e in run.bus.trace
        if e.method == "CheckpointCoordinator.completePendingCheckpoint"
    ]
    return run, completed


def test_1_20_a_bounded_job_takes_one_final_checkpoint_for_all_its_stages() -> None:
    """EndOfData reaches every task ahead of the first barrier after the source ended, so every
    task takes that checkpoint as its final one (``StreamTask.performCheckpoint``:
    ``endOfDataReceived`` → ``finalCheckpointMinId``) and the job FINISHES after it."""
    run, completed = _bounded_pipeline("1.20")
    assert completed == ["Completed checkpoint 1"]
    finals = [
        e.message
        for e in run.bus.trace
        if e.method == "StreamTask.notifyCheckpointComplete" and "final checkpoint" in e.message
    ]
    assert sorted(m.split(": final")[0] for m in finals) == [
        "Keyed Reduce -> Sink: Print to Std. Out (1/2)",
        "Keyed Reduce -> Sink: Print to Std. Out (2/2)",
        "Map (1/2)",
        "Map (2/2)",
        "Source: Collection Source (1/1)",
    ]
    assert all("final checkpoint 1 complete" in m for m in finals)
    # the reduce ended its data on EndOfData, before any EndOfPartitionEvent reached it
    events = [(e.method, e.message) for e in run.bus.trace]
    ended = next(
        i
        for i, (_, m) in enumerate(events)
        if m.startswith("Keyed Reduce -> Sink: Print to Std. Out (1/2) received EndOfData")
        and "all inputs ended their data" in m
    )
    first_eop = next(
        i
        for i, (_, m) in enumerate(events)
        if m.startswith(
            "Keyed Reduce -> Sink: Print to Std. Out (1/2) received EndOfPartitionEvent"
        )
    )
    assert ended < first_eop
    assert sorted(run.printed()) == ["1> ('a', 1)", "1> ('a', 4)", "1> ('b', 2)", "1> ('c', 4)"]


def test_1_11_and_the_option_off_finish_a_bounded_job_without_a_final_checkpoint() -> None:
    for run, completed in (
        _bounded_pipeline("1.11"),
        _bounded_pipeline("1.20", **{FINISHED_TASKS_KEY: "false"}),
    ):
        assert completed == []
        assert not any("final checkpoint" in e.message for e in run.bus.trace)
        # the same sums (the key's subtask differs under 1.11: FLIP-130's Row.of(key) hash)
        assert sorted(line.split("> ", 1)[1] for line in run.printed()) == [
            "('a', 1)",
            "('a', 4)",
            "('b', 2)",
            "('c', 4)",
        ]
