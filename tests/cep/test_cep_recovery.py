"""Recovery: failures mid-match (task and TaskManager) with checkpoints on give exactly the
failure-free matches through the two-phase-commit sink; a savepoint holding partial matches,
restored at another parallelism, gives the uninterrupted result (CEPOperatorTest#testKeyedCEP…
Snapshot/Restore and CEPRescalingTest behaviours)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.cep import CEP, Pattern
from pyflowkit.datastream import TimeCharacteristic
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from tests.cep.jobs import environment, expected_pairs, keyed_pairs, pair, readings

CEP_VERTEX = "CepOperator"


def checkpointed_job(store: TransactionStore, parallelism: int = 2) -> Any:
    env = environment(parallelism, interval=15)
    keyed_pairs(env).add_sink(TransactionalListSink(store))
    return env


def _after_first_checkpoint(run: Any) -> None:
    run.run_until(checkpoint_completed())
    run.run_until(all_tasks_in(ExecutionState.RUNNING))


@pytest.mark.parametrize("subtask", [0, 1])
def test_task_failure_mid_match_is_exactly_once(subtask: int) -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=2 + subtask, source_batch=2).submit(
        checkpointed_job(store)
    )
    _after_first_checkpoint(run)
    vertex = next(v.name for v in run.job_graph.vertices if v.name.startswith(CEP_VERTEX))
    run.fail_task(vertex, subtask, cause=RuntimeError("injected mid-match"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    store.commit_final_transactions()
    assert Counter(store.committed) == expected_pairs()


def test_task_manager_failure_mid_match_is_exactly_once() -> None:
    store = TransactionStore()
    run = MiniCluster(
        task_managers=2, slots_per_task_manager=2, echo_print=False, seed=5, source_batch=2
    ).submit(checkpointed_job(store))
    _after_first_checkpoint(run)
    run.fail_task_manager(0)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    assert Counter(store.committed) == expected_pairs()


def _processing_time_job(store: TransactionStore, parallelism: int) -> Any:
    """Processing time, no ``within``: each element meets the NFA on arrival, so checkpoints hold
    partial matches; the result does not depend on the clock."""
    env = environment(parallelism, interval=15)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    pattern = (
        Pattern.begin("first").where(lambda e: e[2] > 70).next("second").where(lambda e: e[2] > 70)
    )  # fmt: skip
    stream = env.from_collection(readings()).uid("readings").key_by(lambda e: e[0])
    CEP.pattern(stream, pattern).select(pair).uid("cep").add_sink(TransactionalListSink(store)).uid(
        "sink"
    )
    return env


def _waiting_partial_matches(state: dict[str, Any]) -> list[Any]:
    per_key = state.get(CEP_VERTEX, {}).get("nfaStateName", {})
    return [k for k, nfa in per_key.items() if any(cs[0] == "second" for cs in nfa[0])]


# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
@pytest.mark.parametrize(("before", "after"), [(2, 3), (3, 1)])
def test_savepoint_with_partial_matches_restored_at_another_parallelism(
    tmp_path: Path, before: int, after: int
) -> None:
    store = TransactionStore()
    first = MiniCluster(echo_print=False, seed=4, source_batch=1).submit(
        _processing_time_job(store, before)
    )
    waiting: list[Any] = []
    while not waiting:  # stop at a checkpoint that holds a partial match
        first.run_until(checkpoint_completed())
        cp = first.checkpoint_coordinator.store.get_latest_checkpoint().checkpoint_id
        waiting = _waiting_partial_matches(first.keyed_state_at(cp, CEP_VERTEX))
    sp = first.stop_with_savepoint(tmp_path)
    location = first.savepoint_path(sp)
    first.run_until(job_finished())
    assert first.job_status is JobStatus.FINISHED
    held = _waiting_partial_matches(first.keyed_state_at(sp, CEP_VERTEX))

    second = MiniCluster(echo_print=False, seed=6, source_batch=1).submit(
        _processing_time_job(store, after), savepoint_path=location
    )
    second.run()
    assert second.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    assert Counter(store.committed) == expected_pairs(within=10**9)
    # a partial match held by the savepoint completed after the restore at the new parallelism
    completed_after = {k for k, _a, _b in store.committed}
    assert held and set(held) <= completed_after


# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
@pytest.mark.parametrize("source_batch", [1, 4])
def test_processing_time_task_failure_after_checkpoints_is_exactly_once(source_batch: int) -> None:
    """CepOperator.process_batch keeps the key groups' state maps between batches; every
    checkpoint must still cut the state at its barrier (the table copies on write after it), so
    a restore from the latest one gives exactly the failure-free pairs."""
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=3, source_batch=source_batch).submit(
        _processing_time_job(store, 2)
    )
    for _ in range(2):  # snapshots, each followed by more batches on the cached maps
        run.run_until(checkpoint_completed())
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    vertex = next(v.name for v in run.job_graph.vertices if v.name.startswith(CEP_VERTEX))
    run.fail_task(vertex, 0, cause=RuntimeError("injected after checkpoints"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    store.commit_final_transactions()
    assert Counter(store.committed) == expected_pairs(within=10**9)
