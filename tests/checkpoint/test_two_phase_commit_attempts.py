"""Only a live attempt that ends its input normally finishes its transactional sink.

Root cause of a soak-found duplicate: a TaskManager died while a sink subtask's ``Task.run`` was
queued; the attempt still ran on the dead process to its end of input and published its tail as
a final transaction, which the restored attempt had committed already. A killed TaskExecutor's
tasks run nothing more; failed and canceled attempts never finish their sink: their dispose closes
the sink function (1.11's ``AbstractUdfStreamOperator.dispose``), which aborts the open transaction.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import job_finished
from pyflowkit.runtime.task import Task
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import running_counts, word_count

SINK_VERTEX = "Keyed Reduce -> Sink: Unnamed"
WORDS = ("to be or not to be that is the question " * 6).split()


def submit(store: TransactionStore, seed: int) -> Any:
    return MiniCluster(echo_print=False, seed=seed, source_batch=2).submit(
        word_count(store, interval=20, words=WORDS)
    )


def sink_tasks(run: Any) -> list[Task]:
    return [
        t
        for te in run.task_executors
        for t in te.tasks.values()
        if t.tdd.job_vertex.name == SINK_VERTEX
    ]


def step_until_a_sink_task(run: Any, pred: Callable[[Task], bool]) -> Task:
    while run.has_next():
        run.step()
        for task in sink_tasks(run):
            if task.process_alive and pred(task):
                return task
    raise AssertionError("the job ended before a sink task matched")


def after_invoke_queued(task: Task) -> bool:
    """End of input reached, ``StreamTask.afterInvoke`` (which closes the chain) not yet run."""
    inv = task.invokable
    return task.state is ExecutionState.RUNNING and inv.end_of_input and not task.invoking


def sink_function(task: Task) -> Any:
    return task.invokable.chain.operators[-1].user_function


def opened_attempts(run: Any, subtask: int) -> int:
    return sum(
        e.method == "StreamTask.invoke" and e.vertex == SINK_VERTEX and e.subtask == subtask
        for e in run.trace
    )


def finish_exactly_once(run: Any, store: TransactionStore) -> None:
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    store.commit_final_transactions()
    assert Counter(store.committed) == running_counts(WORDS)


def test_a_task_whose_task_manager_died_before_task_run_never_starts() -> None:
    store = TransactionStore()
    run = submit(store, seed=3)
    zombie = step_until_a_sink_task(run, lambda t: t.state is ExecutionState.CREATED)
    run.fail_task_manager(zombie.task_executor.index)
    killed_at = run.steps_taken
    finish_exactly_once(run, store)
    assert zombie.state is ExecutionState.CREATED  # Task.run was queued when the process died
    assert zombie.invokable.chain is None  # no operator chain, no sink function ever opened
    assert not any(
        zombie.attempt_id in e.message and e.step > killed_at
        for e in run.trace
        if e.component == zombie.name
    )
    subtask = zombie.tdd.subtask_index
    assert store.epochs[subtask] == opened_attempts(run, subtask)  # only live attempts opened
    assert store.fenced == []


def test_a_task_manager_dying_before_after_invoke_leaves_the_sink_unclosed() -> None:
    store = TransactionStore()
    run = submit(store, seed=4)
    zombie = step_until_a_sink_task(run, after_invoke_queued)
    open_txn = sink_function(zombie).current_transaction
    assert open_txn is not None
    run.fail_task_manager(zombie.task_executor.index)
    finish_exactly_once(run, store)
    assert zombie.state is ExecutionState.RUNNING  # never FINISHED: the process is gone
    assert sink_function(zombie).current_transaction is open_txn  # close() never ran
    assert open_txn["id"] not in store.committed_ids
    assert store.fenced == []


def test_a_failed_attempt_aborts_its_open_transaction_in_dispose() -> None:
    store = TransactionStore()
    run = submit(store, seed=5)
    failed = step_until_a_sink_task(run, after_invoke_queued)
    open_txn = sink_function(failed).current_transaction
    run.fail_task(SINK_VERTEX, failed.tdd.subtask_index, cause="failure after end of input")
    assert failed.state is ExecutionState.FAILED
    assert sink_function(failed).current_transaction is None  # dispose closed the function
    assert store.aborted[-1] == open_txn["id"]  # ... whose close() aborted the open transaction
    assert failed.tdd.subtask_index not in store.final  # never finished: nothing published
    finish_exactly_once(run, store)
    assert open_txn["id"] not in store.committed_ids


def test_a_canceled_attempt_aborts_its_open_transaction_in_dispose() -> None:
    store = TransactionStore()
    run = submit(store, seed=6)
    canceled = step_until_a_sink_task(run, after_invoke_queued)
    open_txn = sink_function(canceled).current_transaction
    # TaskExecutor.cancelTask arrives while afterInvoke is still queued.
    canceled.task_executor.cancel_task(canceled.attempt_id)
    run.run_until(lambda r: canceled.state.is_terminal())
    assert canceled.state is ExecutionState.CANCELED
    assert sink_function(canceled).current_transaction is None  # closed by dispose
    assert store.aborted[-1] == open_txn["id"]
    assert canceled.tdd.subtask_index not in store.final
    finish_exactly_once(run, store)
    assert open_txn["id"] not in store.committed_ids
