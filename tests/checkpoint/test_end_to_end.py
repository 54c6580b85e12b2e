"""Checkpoints on the real simulated cluster."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pyflowkit.common import Configuration
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore

WORDS = ("to be or not to be that is the question " * 6).split()


def word_count(store: TransactionStore, interval: int = 20) -> Any:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    env.enable_checkpointing(interval)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(5, 100))
    (
        env.from_collection(WORDS)
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .add_sink(TransactionalListSink(store))
    )
    return env


def final_counts(committed: list[Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for w, c in committed:
        out[w] = max(out.get(w, 0), c)
    return out


def test_checkpoints_complete_and_notify_every_subtask() -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=1).submit(word_count(store))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    methods = [e.method for e in run.trace]
    assert "CheckpointCoordinator.completePendingCheckpoint" in methods
    assert "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete" in methods
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(
        (w, i + 1) for w in set(WORDS) for i in range(WORDS.count(w))
    )


def test_failure_restores_latest_checkpoint_and_sink_stays_exactly_once() -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(word_count(store, 15))
    run.run_until(
        lambda r: (
            r.job_master is not None
            and r.job_master.checkpoint_coordinator.store.get_latest_checkpoint() is not None
        )
    )
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    sink_vertex = run.job_graph.vertices[-1].name
    run.fail_task(sink_vertex, 0, cause=RuntimeError("injected"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    msgs = [e.message for e in run.trace]
    assert any("from latest valid checkpoint: Checkpoint" in m for m in msgs)
    store.commit_final_transactions()
    expected = Counter((w, i + 1) for w in set(WORDS) for i in range(WORDS.count(w)))
    assert Counter(store.committed) == expected


def test_print_sink_is_at_least_once_next_to_the_exactly_once_transactional_sink() -> None:
    store = TransactionStore()
    env = word_count(store, 15)
    counts = env.from_collection(WORDS).key_by(lambda w: w).map(lambda w: w)  # a second branch
    counts.print()
    run = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(env)
    run.run_until(
        lambda r: (
            r.job_master is not None
            and r.job_master.checkpoint_coordinator.store.get_latest_checkpoint() is not None
        )
    )
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    printer = next(v for v in run.job_graph.vertices if "Print" in v.name)
    run.fail_task(printer.name, 0, cause="injected")
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    expected = Counter((w, i + 1) for w in set(WORDS) for i in range(WORDS.count(w)))
    assert Counter(store.committed) == expected  # exactly once
    printed = [line.split("> ", 1)[-1] for line in run.printed()]
    assert set(printed) == set(WORDS)
    assert len(printed) > len(WORDS)  # records after the checkpoint were printed twice
