"""TwoPhaseCommitSinkFunction: pre-commit on snapshot, commit on notify, abort on restore."""

from __future__ import annotations

from pyflowkit.runtime.checkpoint.checkpointed_function import (
    FunctionInitializationContext,
    FunctionSnapshotContext,
)
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from pyflowkit.state.operator_state_backend import OperatorStateBackend


def test_commit_only_after_checkpoint_completes_and_restore_commits_then_aborts() -> None:
    store = TransactionStore()
    backend = OperatorStateBackend()
    sink = TransactionalListSink(store)
    sink.initialize_state(FunctionInitializationContext(False, backend))
    for v in (1, 2):
        sink.invoke(v, None)
    sink.snapshot_state(FunctionSnapshotContext(1, 0))
    sink.invoke(3, None)
    assert store.committed == []  # pre-committed only
    saved = backend.snapshot()
    sink.notify_checkpoint_complete(1)
    assert store.committed == [1, 2]
    sink.invoke(4, None)  # open transaction, lost with the failure

    restored_backend = OperatorStateBackend()
    restored_backend.restore(saved)
    again = TransactionalListSink(store)
    again.initialize_state(FunctionInitializationContext(True, restored_backend))
    assert store.committed == [1, 2]  # re-commit of txn of checkpoint 1 is idempotent
    assert len(store.aborted) == 1  # the transaction open at checkpoint 1
    again.invoke(3, None)
    again.invoke(4, None)
    again.finish()
    store.commit_final_transactions()
    assert store.committed == [1, 2, 3, 4]
