"""One task's side of a checkpoint (Flink's ``SubtaskCheckpointCoordinatorImpl``).

``checkpoint_state`` is the synchronous part (pre-barrier hook, barrier broadcast, operator and
function snapshots); ``finish_async`` is the asynchronous part (sizing the frozen state, which is
materialised when first read); notifications are forwarded to every operator of the chain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.runtime.checkpoint.barriers import CancelCheckpointMarker, CheckpointBarrier
from pyflowkit.runtime.checkpoint.frozen_state_size import operator_snapshot_size
from pyflowkit.runtime.checkpoint.task_state import ChannelState, TaskStateSnapshot
from pyflowkit.runtime.network import Buffer
from pyflowkit.state import state_codec
from pyflowkit.state.snapshot import OperatorSnapshot


@dataclass
class SyncSnapshot:
    """The result of the synchronous part, waiting for the asynchronous part."""

    barrier: CheckpointBarrier
    operator_states: dict[str, OperatorSnapshot]
    sync_duration: int
    started_at: int
    channel_state: ChannelState = field(default_factory=ChannelState)
    async_scheduled: bool = False
    # StreamTask.finishedOperators when the checkpoint was taken (endData ran: FLIP-147)
    operators_finished: bool = False


def broadcast_event(writers: list[Any], event: Any, priority: bool = False) -> dict[int, Any]:
    """Put ``event`` into every subpartition of every writer (``broadcastEvent``).

    A priority event (unaligned barrier) overtakes the buffers still queued in a subpartition;
    those buffers are returned as output channel state: writer index → subpartition → elements.
    """
    overtaken: dict[int, dict[int, list[Any]]] = {}
    for wi, writer in enumerate(writers):
        writer.flush_all()
        partition = writer.partition
        for sp in partition.subpartitions:
            partition.pool.request()
            if priority:
                data = [el for b in sp.queue if not b.is_event for el in b.elements]
                if data:
                    overtaken.setdefault(wi, {})[sp.index] = data
                sp.queue.appendleft(Buffer(event=event))
                sp.try_send()
            else:
                sp.add(Buffer(event=event))
    return overtaken


class SubtaskCheckpointCoordinator:
    """Flink's ``SubtaskCheckpointCoordinatorImpl`` for one task (chain + output writers)."""

    def __init__(
        self,
        chain: Any,
        writers: list[Any],
        clock: Callable[[], int],
    ) -> None:
        self.chain = chain
        self.writers = writers
        self.clock = clock
        self.aborted_ids: set[int] = set()
        self.last_checkpoint_id = -1

    def checkpoint_state(
        self, barrier: CheckpointBarrier, operators_finished: bool = False
    ) -> SyncSnapshot | None:
        """``checkpointState``: steps 0–4 of reference §7.4; None if the id was aborted.
        ``operators_finished``: the task's ``finishedOperators`` (its snapshot reports
        ``TaskStateSnapshot.isTaskFinished``)."""
        checkpoint_id = barrier.id
        if checkpoint_id in self.aborted_ids:
            broadcast_event(self.writers, CancelCheckpointMarker(checkpoint_id))
            return None
        started = self.clock()
        self.chain.prepare_snapshot_pre_barrier(checkpoint_id)
        overtaken = broadcast_event(self.writers, barrier, priority=barrier.options.is_unaligned)
        states = self.chain.snapshot_state(checkpoint_id, barrier.timestamp)
        sync_ms = self.clock() - started  # simulated ms: the sync part is one mailbox step
        self.last_checkpoint_id = max(self.last_checkpoint_id, checkpoint_id)
        return SyncSnapshot(
            barrier,
            dict(states),
            sync_ms,
            started,
            ChannelState(output=dict(overtaken)),
            operators_finished=operators_finished,
        )

    def finish_async(self, sync: SyncSnapshot) -> tuple[TaskStateSnapshot, int]:
        """``AsyncCheckpointRunnable.run``: size the frozen state; (snapshot, async ms)."""
        # sized from the frozen maps: the snapshot is materialised only when someone reads it
        size = sum(map(operator_snapshot_size, sync.operator_states.values()))
        if not sync.channel_state.is_empty:
            size += state_codec.state_size(
                [sync.channel_state.input, list(sync.channel_state.output.items())]
            )
        async_ms = self.clock() - sync.started_at - sync.sync_duration
        finished = bool(getattr(self.chain, "is_task_deployed_as_finished", False))
        snapshot = TaskStateSnapshot(sync.operator_states, sync.channel_state, size, finished)
        snapshot.is_task_finished = sync.operators_finished
        return snapshot, async_ms

    def abort_checkpoint_on_barrier(self, checkpoint_id: int) -> None:
        """``abortCheckpointOnBarrier``: forward a CancelCheckpointMarker downstream."""
        self.aborted_ids.add(checkpoint_id)
        broadcast_event(self.writers, CancelCheckpointMarker(checkpoint_id))

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """``notifyCheckpointComplete``: every operator of the chain, head to tail."""
        self.chain.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        self.aborted_ids.add(checkpoint_id)
        self.chain.notify_checkpoint_aborted(checkpoint_id)
