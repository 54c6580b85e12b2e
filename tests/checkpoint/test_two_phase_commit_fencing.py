"""TransactionStore fences stale sink attempts by epoch, as Kafka fences transactional producers."""

from __future__ import annotations

from typing import Any

from pyflowkit.runtime.checkpoint.checkpointed_function import FunctionInitializationContext
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore
from pyflowkit.state.operator_state_backend import OperatorStateBackend


class SubtaskContext:
    """The one RuntimeContext method the sink reads."""

    def __init__(self, index: int) -> None:
        self.index = index

    def get_index_of_this_subtask(self) -> int:
        return self.index


def attempt(store: TransactionStore, subtask: int, records: list[Any]) -> TransactionalListSink:
    """A sink attempt of ``subtask``: initialized, opened, and fed ``records``."""
    sink = TransactionalListSink(store)
    sink.initialize_state(FunctionInitializationContext(False, OperatorStateBackend()))
    sink.open(SubtaskContext(subtask))
    for r in records:
        sink.invoke(r, None)
    return sink


def test_a_stale_attempt_closing_after_the_new_one_opened_is_fenced() -> None:
    store = TransactionStore()
    old = attempt(store, 0, ["a", "b"])
    new = attempt(store, 0, ["a", "b", "c"])
    assert (old.epoch, new.epoch) == (1, 2)
    stale_txn = old.current_transaction["id"]
    old.finish()  # the zombie's end of input arrives late
    assert store.final == {}
    assert store.fenced == [stale_txn]
    new.finish()
    assert [t["records"] for t in store.final[0]] == [["a", "b", "c"]]
    store.commit_final_transactions()
    assert store.committed == ["a", "b", "c"]
    assert stale_txn not in store.committed_ids


def test_a_new_attempt_drops_the_final_transactions_older_attempts_left() -> None:
    store = TransactionStore()
    finished = attempt(store, 1, ["x"])
    finished.finish()  # FINISHED, then restarted by a failover before the job ended
    assert [t["records"] for t in store.final[1]] == [["x"]]
    attempt(store, 1, ["x", "y"])  # the restarted attempt has not reached its end yet
    assert store.final == {}
    store.commit_final_transactions()
    assert store.committed == []
    assert store.fenced == []


def test_attempts_of_different_subtasks_do_not_fence_each_other() -> None:
    store = TransactionStore()
    first = attempt(store, 0, [1])
    second = attempt(store, 1, [2])
    assert store.epochs == {0: 1, 1: 1}
    second.finish()
    first.finish()
    store.commit_final_transactions()
    assert store.committed == [1, 2]  # subtask order
    assert store.fenced == []


def test_add_final_refuses_an_epoch_the_store_never_handed_out() -> None:
    store = TransactionStore()
    assert store.init_transactions(3) == 1
    assert not store.add_final(3, 7, {"id": "txn-x", "records": [1]})
    assert store.add_final(3, 1, {"id": "txn-y", "records": [2]})
    assert store.fenced == ["txn-x"]
    assert store.final == {3: [{"id": "txn-y", "records": [2]}]}
