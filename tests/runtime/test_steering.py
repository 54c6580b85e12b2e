"""Observing and steering: predicates, step_task, back pressure, processing time, local executor."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.errors import JobExecutionException
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.cluster_size import required_slots
from pyflowkit.runtime.local_executor import execute
from pyflowkit.runtime.network import Buffer, ResultPartition, ShuffleEnvironment, SingleInputGate
from pyflowkit.runtime.predicates import (
    job_finished,
    job_status_is,
    next_state_change,
    task_state_is,
)
from tests.runtime.fake_chain import demo_job, fake_chain_factory


def fake_run(**kw: Any) -> Any:
    return MiniCluster(chain_factory=fake_chain_factory, echo_print=False, **kw).submit(
        demo_job(60)
    )


def test_step_returns_the_events_of_exactly_one_delivery() -> None:
    run = fake_run()
    first = run.step()
    assert [e.method for e in first] == ["Dispatcher.submitJob", "Dispatcher.persistAndRunJob"]
    assert run.steps_taken == 1
    more = run.step(3)
    assert {e.step for e in more} == {2, 3, 4}


def test_predicates() -> None:
    run = fake_run()
    run.run_until(job_status_is("RUNNING"))
    assert run.job_status is JobStatus.RUNNING
    assert all(e.state is ExecutionState.SCHEDULED for e in run.executions())
    run.run_until(task_state_is("Map", 1, "RUNNING"))
    assert run.execution_state("Map", 1) is ExecutionState.RUNNING
    before = len(run.trace)
    events = run.run_until(next_state_change())
    changes = [e for e in events if e.new_state is not None]
    assert changes and changes[-1] is run.trace[-1] or changes[-1] in run.trace[before:]
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    with pytest.raises(Exception, match="ran out of events|predicate still false"):
        run.run_until(lambda r: False, max_steps=10_000)


def test_step_task_advances_until_that_task_moves() -> None:
    run = fake_run()
    run.run_until(task_state_is("Map", 0, "RUNNING"))
    events = run.step_task("Map", 0)
    assert events[-1].vertex == "Map" and events[-1].subtask == 0


def test_slow_consumer_back_pressures_producer() -> None:
    """Credits: with 2 buffers per channel and a small pool, an idle consumer stops the producer."""
    shuffle = ShuffleEnvironment()
    part = ResultPartition(("ds", 0, "a"), 1, pool_size=3)
    shuffle.register_partition(part)
    gate = SingleInputGate(0, buffers_per_channel=2)
    ch = gate.add_channel(("ds", 0, "a"), 0)
    shuffle.request_subpartition(ch)
    for i in range(5):
        part.pool.request()
        part.subpartitions[0].add(Buffer([(i, None)]))
    # two buffers crossed (the consumer's credits); three wait in the subpartition and hold the pool
    assert len(ch.queue) == 2 and part.queued_buffers() == 3
    assert not part.pool.is_available()
    woken: list[int] = []
    part.pool.listeners.append(lambda: woken.append(1))
    got = gate.poll_next()
    assert got is not None and got[1].elements == [(0, None)]
    ch.recycle()  # consumer done with one buffer → one credit → one more buffer crosses
    assert len(ch.queue) == 2 and part.queued_buffers() == 2
    assert part.pool.is_available() and woken == [1]


def test_back_pressure_visible_in_tasks_frame() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection(list(range(2000))).map(lambda x: x).key_by(lambda x: x % 7).reduce(
        lambda a, b: a + b
    ).add_sink(lambda v: None)
    run = MiniCluster(
        echo_print=False, buffers_per_channel=1, floating_buffers_per_gate=0, seed=2
    ).submit(env.get_job_graph("bp"))
    seen = False
    for _ in range(3000):
        run.step()
        if run.job_status is JobStatus.RUNNING and len(run.executions()):
            frame = run.tasks_frame()
            if frame.back_pressured.any():
                row = frame[frame.back_pressured].iloc[0]
                assert row.queued_out >= 1
                seen = True
                break
    assert seen


class TimerFn(KeyedProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        now = ctx.timer_service().current_processing_time()
        ctx.timer_service().register_processing_time_timer(now + 3)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (ctx.get_current_key(), timestamp)


def test_processing_time_is_the_simulated_clock() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection(["a"] * 200).key_by(lambda w: w).process(TimerFn()).print()
    run = MiniCluster(echo_print=False).submit(env.get_job_graph("timers"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    fired = [eval(line)[1] for line in run.printed()]  # noqa: S307 - our own tuple output
    assert fired and fired == sorted(set(fired))
    mails = [e for e in run.trace if "ran mail: processing-time timer @ " in e.message]
    assert len(mails) == len(fired)
    for e in mails:  # a timer mail runs on the simulated clock, never before its time
        assert e.time >= int(e.message.rsplit("@ ", 1)[1].rstrip("."))


def local_env(p: int) -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(p)
    return env


def test_local_executor_via_env_execute(capsys: pytest.CaptureFixture[str]) -> None:
    env = local_env(2)
    env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
    result = env.execute("local job")
    lines = result.results["Sink: Print to Std. Out"]
    assert sorted(x.split("> ")[1] for x in lines) == ["10", "20", "30"]
    assert all(x[:3] in ("1> ", "2> ") for x in lines)
    assert capsys.readouterr().out.splitlines() == lines  # echoed like Flink's stdout
    assert len(result.get_job_id()) == 32
    assert result.get_net_runtime() > 0


def test_execute_and_collect_on_local_target() -> None:
    env = local_env(2)
    words = ["a", "b", "a", "c", "a"]
    got = list(
        env.from_collection(words)
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .execute_and_collect()
    )
    assert sorted(got) == [("a", 1), ("a", 2), ("a", 3), ("b", 1), ("c", 1)]


def test_local_executor_raises_with_user_traceback() -> None:
    def explode(x: int) -> int:
        raise ZeroDivisionError(f"no {x}")

    env = local_env(1)
    env.from_collection([1]).map(explode).print()
    with pytest.raises(JobExecutionException) as info:
        execute(env, "boom")
    text = str(info.value)
    assert text.startswith("Job execution failed.\nTraceback (most recent call last):")
    assert "in explode" in text and "ZeroDivisionError: no 1" in text
    assert "pyflowkit/runtime" not in text  # only the user's frames
    assert isinstance(info.value.__cause__, Exception)


def test_required_slots_follow_slot_sharing() -> None:
    jg = demo_job()
    assert required_slots(jg) == 2
