"""The synchronous savepoint loop runs priority mail only, as Flink 1.11's
``StreamTask.runSynchronousSavepointMailboxLoop`` (``getMailboxExecutor(MAX_PRIORITY).yield()``):
a processing-time timer due while a task waits for its stop-with-savepoint to complete fires
only after the savepoint completed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.runtime.mailbox import MAX_PRIORITY, Mail, MailboxProcessor
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished

EVENTS = [(f"k{i % 3}", i) for i in range(80)]
LOOP = "StreamTask.runSynchronousSavepointMailboxLoop"
TIMER_DELAY = 2  # ms of simulated processing time


class SoonProcessingTimer(KeyedProcessFunction):
    """Per element a processing-time timer TIMER_DELAY ms later; it emits (key, timestamp)."""

    def process_element(self, value: Any, ctx: Any) -> Any:
        ts = ctx.timer_service()
        ts.register_processing_time_timer(ts.current_processing_time() + TIMER_DELAY)
        return iter(())

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (ctx.get_current_key(), timestamp)


def job() -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    env.from_collection(EVENTS).key_by(lambda t: t[0]).process(SoonProcessingTimer()).print()
    return env


def stopped_run(tmp_path: Path, seed: int = 1) -> tuple[Any, int, int]:
    """(run, savepoint id, steps taken before the stop) of a job stopped after checkpoint 1."""
    run = MiniCluster(echo_print=False, seed=seed, source_batch=2).submit(job())
    run.run_until(checkpoint_completed(1))
    at = run.steps_taken
    sp = run.stop_with_savepoint(tmp_path)
    run.savepoint_path(sp)
    run.run_until(job_finished())
    return run, sp, at


def process_tasks(run: Any) -> list[str]:
    return sorted({e.component for e in run.trace if e.method == LOOP})


def test_priority_only_mailbox_takes_priority_mail_and_leaves_the_rest() -> None:
    box = MailboxProcessor()
    ran: list[str] = []
    box.put(Mail("timer", lambda: ran.append("timer")))
    box.put(Mail("notify", lambda: ran.append("notify"), MAX_PRIORITY))
    assert box.has_mail(MAX_PRIORITY) and box.held(MAX_PRIORITY) == 1
    box.take_mail(MAX_PRIORITY).action()  # type: ignore[union-attr]
    assert not box.has_mail(MAX_PRIORITY) and box.has_mail()
    assert box.take_mail(MAX_PRIORITY) is None
    box.take_mail().action()  # type: ignore[union-attr]
    assert ran == ["notify", "timer"]


def test_a_timer_due_during_the_wait_fires_after_the_savepoint_completes(tmp_path: Path) -> None:
    run, sp, _ = stopped_run(tmp_path)
    tasks = process_tasks(run)
    assert len(tasks) == 2  # both KeyedProcess subtasks ran the loop
    held_total = 0
    for task in tasks:
        events = [(i, e) for i, e in enumerate(run.trace) if e.component == task]
        enter = next(
            i for i, e in events if e.method == LOOP and "waits for savepoint" in e.message
        )
        done = next(
            i
            for i, e in events
            if e.method == "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete"
            and e.checkpoint == sp
        )
        timer_runs = [
            i
            for i, e in events
            if e.method == "MailboxProcessor.runMailboxStep"
            and "processing-time timer" in e.message
        ]
        assert not [i for i in timer_runs if enter < i < done]  # nothing fired during the wait
        held = [i for i, e in events if e.method == LOOP and "holds mail" in e.message]
        assert all(enter < i < done for i in held)
        held_total += len(held)
        if held:  # a timer became due during the wait: it fires after the savepoint completed
            assert [i for i in timer_runs if i > done]
    assert held_total > 0
    hold = next(e for e in run.trace if e.method == LOOP and "holds mail" in e.message)
    assert f"until savepoint {sp} completes or is aborted" in hold.message
    assert "MailboxProcessor.getMailboxExecutor(MAX_PRIORITY)" in hold.message


def test_same_seed_same_trace_and_rewind_replays_the_loop(tmp_path: Path) -> None:
    run, _, at = stopped_run(tmp_path)
    again, _, _ = stopped_run(tmp_path)
    first = [(e.component, e.method, e.message) for e in run.trace]
    assert [(e.component, e.method, e.message) for e in again.trace] == first
    assert any(m == LOOP and "holds mail" in msg for _, m, msg in first)
    run.rewind(at - 1)
    run.run_until(job_finished())
    assert [(e.component, e.method, e.message) for e in run.trace] == first


def test_an_aborted_savepoint_ends_the_loop_and_the_held_mail_runs(tmp_path: Path) -> None:
    """``notifyCheckpointAbortAsync`` is priority mail too: the loop ends, held timers fire."""
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(job())
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(tmp_path)

    def looping(r: Any) -> list[Any]:
        return [
            t
            for te in r.task_executors
            for t in te.tasks.values()
            if t.process_alive and t.priority_mail_only() and t.mailbox.mails
        ]

    run.run_until(lambda r: bool(looping(r)))
    task = looping(run)[0]
    held = len(task.mailbox.mails)
    task.notify_checkpoint_aborted(sp)
    run.run_until(lambda r: not task.priority_mail_only())
    left = [e for e in run.trace if e.method == LOOP and "leaves" in e.message]
    assert left[-1].component == task.name
    assert left[-1].message == (
        f"{task.name} leaves the synchronous savepoint loop: savepoint {sp} was aborted; "
        f"{held} held mail(s) run from now on."
    )
    at = len(run.trace)
    run.run_until(lambda r: not task.mailbox.mails)
    assert any(
        e.component == task.name and "ran mail: processing-time timer" in e.message
        for e in run.trace[at:]
    )
