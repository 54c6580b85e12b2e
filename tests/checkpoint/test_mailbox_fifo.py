"""The task mailbox is first in, first out, as Flink 1.11's ``TaskMailboxImpl``.

``StreamTask.triggerCheckpointAsync`` submits to the main mailbox executor (MIN_PRIORITY) and
``notifyCheckpointComplete/AbortAsync`` to ``getMailboxExecutor(MAX_PRIORITY)``; the mailbox
loop still runs mail oldest first (``processMail`` drains a batch in order). Only a yield at
MAX_PRIORITY (the synchronous savepoint loop) takes a notification ahead of older mail.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.runtime.mailbox import MAX_PRIORITY, MIN_PRIORITY, Mail, MailboxProcessor
from pyflowkit.runtime.mini_cluster import MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count

RAN = "MailboxProcessor.runMailboxStep"


def test_the_loop_takes_mail_oldest_first_whatever_its_priority() -> None:
    box = MailboxProcessor()
    for name, priority in [("timer", MIN_PRIORITY), ("notify", MAX_PRIORITY), ("trigger", -1)]:
        box.put(Mail(name, lambda: None, priority))
    taken = [box.take_mail().description for _ in range(3)]  # type: ignore[union-attr]
    assert taken == ["timer", "notify", "trigger"] and box.take_mail() is None


def test_a_yield_at_max_priority_skips_older_mail_and_keeps_its_order() -> None:
    box = MailboxProcessor()
    for name, priority in [("timer", MIN_PRIORITY), ("n1", MAX_PRIORITY), ("n2", MAX_PRIORITY)]:
        box.put(Mail(name, lambda: None, priority))
    assert box.held(MAX_PRIORITY) == 1
    assert [box.take_mail(MAX_PRIORITY).description for _ in range(2)] == ["n1", "n2"]  # type: ignore[union-attr]
    assert box.take_mail(MAX_PRIORITY) is None and [m.description for m in box.mails] == ["timer"]


def _source_task(run: Any) -> Any:
    return next(
        t
        for te in run.task_executors
        for t in te.tasks.values()
        if t.tdd.job_vertex.name.startswith("Source") and t.tdd.subtask_index == 0
    )


def _mail_before(task: Any, rpc: str, monkeypatch: Any) -> list[str]:
    """Just before TaskExecutor ``rpc`` reaches ``task``, a mail is queued in its mailbox (as a
    processing-time timer firing then would be); returns what that mail ran."""
    te = task.task_executor
    original = getattr(te, rpc)
    ran: list[str] = []

    def rpc_with_older_mail(attempt_id: str, *args: Any) -> None:
        if attempt_id == task.attempt_id and not ran:
            task.put_mail(Mail("older mail", lambda: ran.append("older mail")))
        original(attempt_id, *args)

    monkeypatch.setattr(te, rpc, rpc_with_older_mail)
    return ran


def _job_run() -> Any:
    env = word_count(TransactionStore(), interval=None, words=["a", "b"] * 200)
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(all_tasks_in("RUNNING"))
    return run


def _mail_order(run: Any, task: Any) -> list[str]:
    prefix = f"{task.name} ran mail: "
    return [
        e.message[len(prefix) : -1]
        for e in run.trace
        if e.method == RAN and e.component == task.name
    ]


def _put(run: Any, task: Any, method: str) -> str:
    return next(e.message for e in run.trace if e.method == method and e.component == task.name)


def test_a_checkpoint_trigger_runs_after_the_mail_queued_before_it(monkeypatch: Any) -> None:
    run = _job_run()
    source = _source_task(run)
    ran = _mail_before(source, "trigger_checkpoint", monkeypatch)
    cid = run.trigger_checkpoint()
    run.run_until(checkpoint_completed(cid))
    assert "into its mailbox behind 1 queued mail(s)." in _put(
        run, source, "Task.triggerCheckpointBarrier"
    )
    order = _mail_order(run, source)
    trigger = f"StreamTask.triggerCheckpointAsync (checkpoint {cid})"
    assert order[: order.index(trigger) + 1] == ["older mail", trigger] and ran == ["older mail"]


def test_a_notification_waits_for_older_mail_in_the_loop(monkeypatch: Any) -> None:
    run = _job_run()
    source = _source_task(run)
    ran = _mail_before(source, "confirm_checkpoint", monkeypatch)
    cid = run.trigger_checkpoint()
    notify = f"StreamTask.notifyCheckpointCompleteAsync (checkpoint {cid})"
    run.run_until(lambda r: notify in _mail_order(r, source))
    assert "(priority mail) behind 1 queued mail(s)." in _put(
        run, source, "Task.notifyCheckpointComplete"
    )
    order = _mail_order(run, source)
    assert order[order.index("older mail") + 1] == notify and ran == ["older mail"]
