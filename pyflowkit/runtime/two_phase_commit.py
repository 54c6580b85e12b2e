"""Exactly-once sinks by two-phase commit (Flink's ``TwoPhaseCommitSinkFunction``).

Pre-commit on snapshot, commit on ``notifyCheckpointComplete``, and on restore: commit what the
checkpoint had pre-committed, abort the transaction that was open. ``TransactionalListSink``
commits into a ``TransactionStore`` (the "external system") that outlives restarts.
"""

from __future__ import annotations

import itertools
from abc import abstractmethod
from typing import Any

from pyflowkit.datastream.functions import CheckpointListener, SinkFunction
from pyflowkit.runtime.checkpoint.checkpointed_function import (
    CheckpointedFunction,
    FunctionInitializationContext,
    FunctionSnapshotContext,
)

STATE_NAME = "state"  # TwoPhaseCommitSinkFunction's list state name


class TwoPhaseCommitSinkFunction(SinkFunction, CheckpointedFunction, CheckpointListener):
    """Flink's ``TwoPhaseCommitSinkFunction``: transactions must be plain data (savepoint-safe).

    Subclasses implement ``begin_transaction``, ``invoke_txn``, ``pre_commit``, ``commit`` (must
    be idempotent: a restore may commit again) and ``abort``.
    """

    def __init__(self) -> None:
        self.current_transaction: Any = None
        self.pending_commit_transactions: dict[int, Any] = {}
        self._state: Any = None
        self.subtask_index = 0
        # FLIP-147 (the 1.20 profile, set by the task): finish() leaves the last transaction to
        # the final checkpoint, whose snapshotState pre-commits it and begins no new one
        self.commits_with_final_checkpoint = False
        self.finished = False

    @abstractmethod
    def begin_transaction(self) -> Any: ...

    @abstractmethod
    def invoke_txn(self, transaction: Any, value: Any, context: Any) -> None: ...

    @abstractmethod
    def pre_commit(self, transaction: Any) -> None: ...

    @abstractmethod
    def commit(self, transaction: Any) -> None: ...

    @abstractmethod
    def abort(self, transaction: Any) -> None: ...

    def recover_and_commit(self, transaction: Any) -> None:
        """``recoverAndCommit``: a pre-committed transaction found in restored state."""
        self.commit(transaction)

    def recover_and_abort(self, transaction: Any) -> None:
        """``recoverAndAbort``: the transaction that was open at the checkpoint."""
        self.abort(transaction)

    def open(self, runtime_context: Any) -> None:
        self.subtask_index = runtime_context.get_index_of_this_subtask()

    def invoke(self, value: Any, context: Any) -> None:
        self.invoke_txn(self.current_transaction, value, context)

    def snapshot_state(self, context: FunctionSnapshotContext) -> None:
        """Pre-commit the open transaction under this checkpoint id, then begin a new one. After
        ``finish()`` there is none and none begins (Flink 1.14+: "There is no transaction when
        we are finished"), e.g. the Spark streaming task's snapshot of its last micro-batch."""
        checkpoint_id = context.get_checkpoint_id()
        if self.current_transaction is not None:
            self.pre_commit(self.current_transaction)
            self.pending_commit_transactions[checkpoint_id] = self.current_transaction
            # "no need to start new transactions after sink function is closed (no more input)"
            self.current_transaction = None if self.finished else self.begin_transaction()
        self._state.update(
            [
                {
                    "pending_transaction": self.current_transaction,
                    "pending_commit_transactions": [
                        [cid, txn] for cid, txn in sorted(self.pending_commit_transactions.items())
                    ],
                }
            ]
        )

    def initialize_state(self, context: FunctionInitializationContext) -> None:
        """Commit the restored pre-committed transactions, abort the open ones, begin anew."""
        self._state = context.get_operator_state_store().get_list_state(STATE_NAME)
        self.pending_commit_transactions = {}
        if context.is_restored():
            for entry in self._state.get():
                for _cid, txn in entry["pending_commit_transactions"]:
                    self.recover_and_commit(txn)
                if entry["pending_transaction"] is not None:  # None: snapshot after finish()
                    self.recover_and_abort(entry["pending_transaction"])
        self.current_transaction = self.begin_transaction()

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """Commit every transaction pre-committed at or before ``checkpoint_id``."""
        for cid in sorted(self.pending_commit_transactions):
            if cid <= checkpoint_id:
                self.commit(self.pending_commit_transactions.pop(cid))

    def finish(self) -> None:
        """End of input (``SinkFunction.finish``, called by ``StreamSink.end_input``): the open
        transaction is pre-committed as this subtask's final one.

        Flink 1.11 has no such step (its ``close()`` aborted the open transaction, so the tail
        after the last checkpoint was lost); later Flink commits it with a final checkpoint
        (FLIP-147). ``finish_transaction`` decides. Only a task that ended its input gets here.
        """
        if self.commits_with_final_checkpoint:  # Flink 1.14+: the final checkpoint commits it
            self.finished = True
            return
        for cid in sorted(self.pending_commit_transactions):  # pre-committed, never confirmed
            self.finish_transaction(self.pending_commit_transactions.pop(cid))
        if self.current_transaction is not None:
            self.pre_commit(self.current_transaction)
            self.finish_transaction(self.current_transaction)
            self.current_transaction = None

    def close(self) -> None:
        """Flink 1.11's ``close()``: abort the open transaction, if any (after ``finish()`` there
        is none). A failed or canceled attempt gets here through ``dispose``
        (``AbstractUdfStreamOperator`` closes its function), so its open transaction is aborted;
        what it had pre-committed stays for the restored job to commit."""
        transaction, self.current_transaction = self.current_transaction, None
        if transaction is not None:
            self.abort(transaction)

    def finish_transaction(self, transaction: Any) -> None:
        """What happens to the last transaction at end of input (default: abort, as in 1.11)."""
        self.abort(transaction)


class TransactionStore:
    """A transactional "external system": committed records survive restarts of the job.

    ``committed`` lists records in commit order; ``commit`` of the same transaction id twice is a
    no-op (idempotent), as Flink requires. ``aborted`` lists aborted transaction ids. Writers are
    fenced like Kafka's transactional producers: each attempt of a sink subtask calls
    ``init_transactions`` when it opens and gets a new epoch; a write of an older epoch (a stale
    attempt, e.g. a zombie on a lost TaskManager) is refused and its transaction id recorded in
    ``fenced``. ``final`` holds each sink subtask's last transactions (pre-committed at end of
    input by its newest attempt); ``commit_final_transactions()`` commits them.
    """

    def __init__(self) -> None:
        self.committed: list[Any] = []
        self.committed_ids: set[str] = set()
        self.pre_committed: set[str] = set()
        self.aborted: list[str] = []
        self.final: dict[int, list[Any]] = {}
        self.epochs: dict[int, int] = {}
        self.fenced: list[str] = []
        self._next_id = itertools.count(1)

    def next_transaction_id(self) -> str:
        """A new transaction id, unique in this store (same history → same ids: deterministic)."""
        return f"txn-{next(self._next_id)}"

    def __copy__(self) -> TransactionStore:
        return self  # an external system: copies of a pipeline all write to the same one

    def __deepcopy__(self, memo: dict[int, Any]) -> TransactionStore:
        return self

    def init_transactions(self, subtask: int) -> int:
        """``initTransactions`` of a new attempt: bump the subtask's epoch, which fences every
        older attempt, and drop the final transactions the older attempts left."""
        epoch = self.epochs.get(subtask, 0) + 1
        self.epochs[subtask] = epoch
        self.final.pop(subtask, None)
        return epoch

    def add_final(self, subtask: int, epoch: int, transaction: Any) -> bool:
        """Record ``transaction`` as a final one of ``subtask``; False (fenced) if ``epoch`` is
        not the subtask's newest: that writer is a stale attempt and its writes are ignored."""
        if epoch != self.epochs.get(subtask):
            self.fenced.append(transaction["id"])
            return False
        self.final.setdefault(subtask, []).append(transaction)
        return True

    def commit_final_transactions(self) -> None:
        """Commit every subtask's final transactions; call it once the job has FINISHED.

        A departure from Flink 1.11, whose ``TwoPhaseCommitSinkFunction.close()`` aborts the open
        transaction, so the records after the last completed checkpoint are never committed at
        end of input; Flink 1.14+ commits them with a final checkpoint (FLIP-147), which this
        stands in for. Only the newest attempt of each subtask can have left final transactions
        (``init_transactions`` drops older ones, ``add_final`` fences stale writers); committing
        them is right only if that attempt FINISHED in the job's last execution, hence the rule
        to call this after the job FINISHED — never after a failed or canceled job.
        """
        for subtask in sorted(self.final):
            for txn in self.final.pop(subtask):
                self.commit(txn["id"], list(txn["records"]))

    def commit(self, txn_id: str, records: list[Any]) -> bool:
        if txn_id in self.committed_ids:
            return False
        self.committed_ids.add(txn_id)
        self.committed.extend(records)
        return True


class TransactionalListSink(TwoPhaseCommitSinkFunction):
    """A ``TwoPhaseCommitSinkFunction`` writing into a ``TransactionStore``.

    A transaction is ``{"id": "txn-<n>", "records": [...]}``; the records of an aborted
    transaction are never visible in ``store.committed``.
    """

    def __init__(self, store: TransactionStore) -> None:
        super().__init__()
        self.store = store
        self.epoch: int | None = None  # this attempt's producer epoch (``init_transactions``)

    def begin_transaction(self) -> dict[str, Any]:
        return {"id": self.store.next_transaction_id(), "records": []}

    def open(self, runtime_context: Any) -> None:
        super().open(runtime_context)
        self.epoch = self.store.init_transactions(self.subtask_index)  # fences older attempts

    def finish_transaction(self, transaction: Any) -> None:
        if self.epoch is None:  # used without open() (outside a task): first writer of its subtask
            self.epoch = self.store.init_transactions(self.subtask_index)
        self.store.add_final(self.subtask_index, self.epoch, transaction)

    def invoke_txn(self, transaction: Any, value: Any, context: Any) -> None:
        transaction["records"].append(value)

    def pre_commit(self, transaction: Any) -> None:
        self.store.pre_committed.add(transaction["id"])

    def commit(self, transaction: Any) -> None:
        self.store.commit(transaction["id"], list(transaction["records"]))

    def abort(self, transaction: Any) -> None:
        self.store.aborted.append(transaction["id"])
