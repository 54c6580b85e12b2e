"""Flink 1.11's ``AbstractUdfStreamOperator.dispose`` closes a user function that was not closed
yet (``FunctionUtils.closeFunction``): a failed or canceled task aborts the open transaction of its
two-phase-commit sink; a normally finished task closes each function exactly once; an error of
close() during dispose is logged and never replaces the failure that ended the task."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import MapFunction
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from tests.checkpoint.jobs import WORDS, running_counts, word_count

SINK_VERTEX = "Keyed Reduce -> Sink: Unnamed"


class CountingClose(MapFunction):
    """Counts close() calls per subtask (in a shared dict: each subtask has its own copy)."""

    def __init__(self, closes: dict[int, int], fail_on_close: bool = False) -> None:
        self.closes = closes
        self.fail_on_close = fail_on_close
        self.subtask = -1

    def open(self, runtime_context: Any) -> None:
        self.subtask = runtime_context.get_index_of_this_subtask()

    def map(self, value: Any) -> Any:
        return value

    def close(self) -> None:
        self.closes[self.subtask] = self.closes.get(self.subtask, 0) + 1
        if self.fail_on_close:
            raise RuntimeError(f"close() of subtask {self.subtask} failed")


class SharedDict(dict):  # type: ignore[type-arg]
    """Copied by reference, so that every operator copy of the user code counts into it."""

    def __copy__(self) -> SharedDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SharedDict:
        return self


def map_job(fn: CountingClose, restarts: int = 0) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(restarts, 10))
    env.from_collection(list(range(40))).map(fn).print()
    return env


def invoked(vertex: str, subtask: int) -> Any:
    """Predicate: the subtask's StreamTask.invoke ran (its operators are open)."""

    def pred(run: Any) -> bool:
        return any(
            e.method == "StreamTask.invoke" and e.vertex == vertex and e.subtask == subtask
            for e in run.trace
        )

    return pred


def map_vertex(run: Any) -> str:
    return next(v.name for v in run.job_graph.vertices if v.name.startswith("Map"))


def test_a_normally_finished_task_closes_its_function_once() -> None:
    closes: dict[int, int] = SharedDict()
    run = MiniCluster(echo_print=False, seed=1).submit(map_job(CountingClose(closes)))
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert closes == {0: 1, 1: 1}


def test_a_failed_task_closes_its_function_in_dispose() -> None:
    closes: dict[int, int] = SharedDict()
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(
        map_job(CountingClose(closes))
    )
    vertex = map_vertex(run)
    run.run_until(invoked(vertex, 1))
    run.fail_task(vertex, 1, cause="boom")
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert closes.get(1) == 1  # the failed subtask's function, closed by dispose


def test_a_close_error_in_dispose_does_not_mask_the_failure() -> None:
    closes: dict[int, int] = SharedDict()
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(
        map_job(CountingClose(closes, fail_on_close=True))
    )
    vertex = map_vertex(run)
    run.run_until(invoked(vertex, 0))
    run.fail_task(vertex, 0, cause="the original failure")
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FAILED
    assert "the original failure" in str(run.failure_cause.__cause__)
    failed = [e for e in run.executions() if e.state is ExecutionState.FAILED]
    assert failed and all("the original failure" in str(e.failure_cause) for e in failed)
    logged = [e.message for e in run.trace if e.method == "StreamTask.disposeAllOperators"]
    assert any(
        "Error during disposal of stream operator" in m
        and "RuntimeError: close() of subtask 0 failed" in m
        for m in logged
    )


def test_a_failed_sink_attempt_aborts_its_open_transaction_and_stays_exactly_once() -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(
        word_count(store, interval=30)
    )
    run.run_until(checkpoint_completed(1))
    sink = next(
        t
        for te in run.task_executors
        for t in te.tasks.values()
        if t.tdd.job_vertex.name == SINK_VERTEX and t.tdd.subtask_index == 0
    )
    fn = sink.invokable.chain.operators[-1].user_function
    assert isinstance(fn, TransactionalListSink)
    open_txn = fn.current_transaction["id"]
    aborted_before = list(store.aborted)
    run.fail_task(SINK_VERTEX, 0, cause="sink failure")
    assert store.aborted == aborted_before + [open_txn]
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    store.commit_final_transactions()
    assert open_txn not in store.committed_ids
    assert Counter(store.committed) == running_counts(WORDS)
