"""Savepoints on the cluster: round trip with rescaling 2 → 3 → 1, uid mismatch, non-restored state."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common.flink_version import default_version, profile_for
from pyflowkit.errors import IllegalStateException
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionStore
from pyflowkit.state.java_hash import key_hash_function
from pyflowkit.state.key_groups import assign_key_to_parallel_operator
from tests.checkpoint.jobs import WORDS, running_counts, word_count

REDUCE = "Keyed Reduce"


def stop_after_first_checkpoint(run: Any, path: Path) -> str:
    run.run_until(checkpoint_completed())
    sp = run.stop_with_savepoint(path)
    location = run.savepoint_path(sp)
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    return location


def counts_in(state: dict[str, Any]) -> dict[str, int]:
    (per_key,) = state[REDUCE].values()
    return {w: c for w, (_, c) in per_key.items()}


def assert_key_groups_match(run: Any, parallelism: int, expected: dict[str, int]) -> None:
    """Each restored subtask holds exactly the keys of its key-group range, with their counts
    (the key's hash is the job's profile's: 1.20's PyFlink key_by hashes ``Row.of(key)``)."""
    settings = run.job_graph.stream_graph.execution_config
    version = getattr(settings, "flink_version", None) or default_version()
    hash_of = key_hash_function(profile_for(version).key_by.keys_by_row, None)
    run.run_until(all_tasks_in("RUNNING"))
    run.run_until(lambda r: all(r._task(_vid(r), i).invokable.chain for i in range(parallelism)))
    seen: dict[str, int] = {}
    for i in range(parallelism):
        state = run.keyed_state(REDUCE, i)
        counts = counts_in(state) if state.get(REDUCE) else {}
        for word in counts:
            assert assign_key_to_parallel_operator(word, 128, parallelism, hash_of) == i, (word, i)
        seen.update(counts)
    assert seen == expected


def _vid(run: Any) -> str:
    return run.job_graph.get_vertex(REDUCE).id


def test_savepoint_round_trip_rescaling_2_to_3_to_1(tmp_path: Path) -> None:
    store = TransactionStore()
    first = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(word_count(store, 2))
    sp1 = stop_after_first_checkpoint(first, tmp_path)
    at_sp1 = counts_in(
        first.keyed_state_at(
            first.checkpoint_coordinator.store.get_latest_checkpoint().checkpoint_id, REDUCE
        )
    )
    assert 0 < sum(at_sp1.values()) < len(WORDS)

    second = MiniCluster(echo_print=False, seed=3, source_batch=2).submit(
        word_count(store, 3), savepoint_path=sp1
    )
    assert_key_groups_match(second, 3, at_sp1)
    restored = [e.message for e in second.trace if "from latest valid checkpoint" in e.message]
    assert len(restored) == 1
    sp2 = stop_after_first_checkpoint(second, tmp_path)

    third = MiniCluster(echo_print=False, seed=4, source_batch=2).submit(
        word_count(store, 1), savepoint_path=sp2
    )
    third.run()
    assert third.job_status is JobStatus.FINISHED
    store.commit_final_transactions()
    assert Counter(store.committed) == running_counts(WORDS)


def test_uid_mismatch_is_flinks_error(tmp_path: Path) -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(word_count(store))
    sp = stop_after_first_checkpoint(run, tmp_path)
    renamed = word_count(TransactionStore(), reduce_uid="totals")
    with pytest.raises(IllegalStateException) as err:
        MiniCluster(echo_print=False).submit(renamed, savepoint_path=sp)
    message = str(err.value)
    assert message.startswith(f"Failed to rollback to checkpoint/savepoint {sp}. Cannot map ")
    assert "because the operator is not available in the new program" in message
    assert "--allowNonRestoredState" in message


def test_allow_non_restored_state_skips_the_unmapped_operator(tmp_path: Path) -> None:
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=2, source_batch=2).submit(word_count(store))
    sp = stop_after_first_checkpoint(run, tmp_path)
    store.commit_final_transactions()
    before = len(store.committed)
    renamed = word_count(store, reduce_uid="totals")
    resumed = MiniCluster(echo_print=False, seed=5).submit(
        renamed, savepoint_path=sp, allow_non_restored_state=True
    )
    resumed.run()
    assert resumed.job_status is JobStatus.FINISHED
    assert any(
        "allowing non restored state" in e.message
        for e in resumed.trace
        if e.method == "CheckpointCoordinator.restoreSavepoint"
    )
    store.commit_final_transactions()
    rest = WORDS[before:]
    # the source resumed after the savepoint, the counts started again from nothing
    assert Counter(store.committed[before:]) == running_counts(rest)
