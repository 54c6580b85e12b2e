"""Barrier handling at a task's inputs (Flink 1.11's ``CheckpointBarrierHandler`` family).

A handler sees every ``CheckpointBarrier``, ``CancelCheckpointMarker`` and end of partition of all
input channels of one task (Flink's ``CheckpointedInputGate`` over the task's gates), blocks or
unblocks channels, and tells the task (a ``BarrierNotifier``) when to snapshot or abort.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pyflowkit.runtime.checkpoint.barriers import CancelCheckpointMarker, CheckpointBarrier
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R
from pyflowkit.runtime.checkpoint.properties import CheckpointType


class BarrierNotifier(Protocol):
    """What a handler calls on its task (Flink's ``AbstractInvokable`` checkpoint hooks)."""

    def trigger_checkpoint_on_barrier(
        self, barrier: CheckpointBarrier, alignment_duration: int
    ) -> None: ...

    def abort_checkpoint_on_barrier(self, checkpoint_id: int, reason: R) -> None: ...


class Channel(Protocol):
    """An input channel as a handler sees it: a position and a ``blocked`` flag."""

    blocked: bool


@dataclass
class _BarrierCount:
    """Flink's ``CheckpointBarrierTracker.CheckpointBarrierCount``."""

    checkpoint_id: int
    count: int = 1
    aborted: bool = False


class CheckpointBarrierHandler:
    """Flink's ``CheckpointBarrierHandler``: common bookkeeping of one task's input barriers.

    Abstract base: the aligner, tracker, unaligner and alternating handlers implement
    ``process_barrier``, ``process_cancellation_barrier``, ``process_end_of_partition`` and
    ``latest_checkpoint_id``.
    """

    def __init__(
        self,
        task_name: str,
        channels: Sequence[Channel],
        notifier: BarrierNotifier,
        clock: Callable[[], int] = lambda: 0,
        resume: Callable[[int], None] | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.task_name = task_name
        self.channels = list(channels)
        self.notifier = notifier
        self.clock = clock
        self.resume = resume or (lambda index: None)
        self.log = log or (lambda message: None)
        self.latest_alignment_duration = 0
        self.start_of_alignment: int | None = None

    @property
    def total_channels(self) -> int:
        return len(self.channels)

    def process_barrier(self, barrier: CheckpointBarrier, channel_index: int) -> None:
        raise NotImplementedError

    def process_cancellation_barrier(self, marker: CancelCheckpointMarker) -> None:
        raise NotImplementedError

    def process_end_of_partition(self, channel_index: int) -> None:
        raise NotImplementedError

    def is_blocked(self, channel_index: int) -> bool:
        return bool(self.channels[channel_index].blocked)

    def blocked_channels(self) -> list[int]:
        return [i for i, ch in enumerate(self.channels) if ch.blocked]

    def latest_checkpoint_id(self) -> int:
        raise NotImplementedError

    def _mark_alignment_start(self) -> None:
        self.start_of_alignment = self.clock()

    def _mark_alignment_end(self) -> None:
        if self.start_of_alignment is not None:
            self.latest_alignment_duration = self.clock() - self.start_of_alignment
        self.start_of_alignment = None

    def _notify_checkpoint(self, barrier: CheckpointBarrier) -> None:
        self.notifier.trigger_checkpoint_on_barrier(barrier, self.latest_alignment_duration)

    def _notify_abort(self, checkpoint_id: int, reason: R) -> None:
        self.notifier.abort_checkpoint_on_barrier(checkpoint_id, reason)


class CheckpointBarrierAligner(CheckpointBarrierHandler):
    """Flink 1.11's ``CheckpointBarrierAligner`` (exactly-once, aligned).

    The first barrier of checkpoint n starts the alignment; every channel that delivered barrier n
    is blocked until barrier n arrived on all channels (closed channels count), then all channels
    are resumed and the task snapshots. A newer barrier mid-alignment aborts the current one.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.current_checkpoint_id = -1
        self.num_barriers_received = 0
        self.num_closed_channels = 0
        self.closed: set[int] = set()

    def latest_checkpoint_id(self) -> int:
        return self.current_checkpoint_id

    def is_checkpoint_pending(self) -> bool:
        return self.num_barriers_received > 0

    def process_barrier(self, barrier: CheckpointBarrier, channel_index: int) -> None:
        barrier_id = barrier.id
        if self.total_channels == 1:
            if barrier_id > self.current_checkpoint_id:
                self.current_checkpoint_id = barrier_id
                self.latest_alignment_duration = 0
                self._notify_checkpoint(barrier)
            return
        if self.is_checkpoint_pending():
            if barrier_id == self.current_checkpoint_id:
                self._on_barrier(channel_index)
            elif barrier_id > self.current_checkpoint_id:
                self.log(
                    f"{self.task_name}: Received checkpoint barrier for checkpoint {barrier_id} "
                    f"before completing current checkpoint {self.current_checkpoint_id}. "
                    "Skipping current checkpoint."
                )
                self._notify_abort(self.current_checkpoint_id, R.CHECKPOINT_DECLINED_SUBSUMED)
                self._release_blocks_and_reset_barriers()
                self._begin_new_alignment(barrier_id, channel_index)
            else:
                return  # a trailing barrier of an older, already aborted checkpoint
        elif barrier_id > self.current_checkpoint_id:
            self._begin_new_alignment(barrier_id, channel_index)
        else:
            return
        if self.num_barriers_received + self.num_closed_channels == self.total_channels:
            self.log(
                f"{self.task_name}: Received all barriers, triggering checkpoint {barrier_id}."
            )
            self._release_blocks_and_reset_barriers()
            self._notify_checkpoint(barrier)

    def _begin_new_alignment(self, checkpoint_id: int, channel_index: int) -> None:
        self.current_checkpoint_id = checkpoint_id
        self._on_barrier(channel_index)
        self._mark_alignment_start()
        self.log(f"{self.task_name}: Starting stream alignment for checkpoint {checkpoint_id}.")

    def _on_barrier(self, channel_index: int) -> None:
        """``onBarrier``: block the channel (its records queue until the alignment is over)."""
        ch = self.channels[channel_index]
        if not ch.blocked:
            ch.blocked = True
            self.num_barriers_received += 1
            self.log(f"{self.task_name}: Received barrier from channel {channel_index}.")

    def _release_blocks_and_reset_barriers(self) -> None:
        """``releaseBlocksAndResetBarriers``: resume every blocked channel."""
        for i, ch in enumerate(self.channels):
            if ch.blocked:
                ch.blocked = False
                self.resume(i)
        self.num_barriers_received = 0
        self._mark_alignment_end()

    def process_cancellation_barrier(self, marker: CancelCheckpointMarker) -> None:
        barrier_id = marker.checkpoint_id
        if self.total_channels == 1:
            if barrier_id > self.current_checkpoint_id:
                self.current_checkpoint_id = barrier_id
                self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)
            return
        if self.is_checkpoint_pending():
            if barrier_id == self.current_checkpoint_id:
                self._release_blocks_and_reset_barriers()
                self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)
            elif barrier_id > self.current_checkpoint_id:
                self._release_blocks_and_reset_barriers()
                self.current_checkpoint_id = barrier_id
                self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)
        elif barrier_id > self.current_checkpoint_id:
            self.current_checkpoint_id = barrier_id
            self.latest_alignment_duration = 0
            self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)

    def process_end_of_partition(self, channel_index: int) -> None:
        if channel_index in self.closed:
            return
        self.closed.add(channel_index)
        self.num_closed_channels += 1
        if self.is_checkpoint_pending():
            self._notify_abort(
                self.current_checkpoint_id, R.CHECKPOINT_DECLINED_INPUT_END_OF_STREAM
            )
            self._release_blocks_and_reset_barriers()


class CheckpointBarrierTracker(CheckpointBarrierHandler):
    """Flink 1.11's ``CheckpointBarrierTracker`` (at-least-once): counts barriers, never blocks."""

    MAX_CHECKPOINTS_TO_TRACK = 50

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: list[_BarrierCount] = []
        self.latest_pending_checkpoint_id = -1

    def latest_checkpoint_id(self) -> int:
        return self.latest_pending_checkpoint_id

    def process_barrier(self, barrier: CheckpointBarrier, channel_index: int) -> None:
        barrier_id = barrier.id
        if self.total_channels == 1:
            self._notify_checkpoint(barrier)
            return
        pos = next((i for i, c in enumerate(self.pending) if c.checkpoint_id == barrier_id), None)
        if pos is not None:
            count = self.pending[pos]
            count.count += 1
            if count.count == self.total_channels:
                del self.pending[: pos + 1]  # this one and every older one are done
                if not count.aborted:
                    self._mark_alignment_end()
                    self._notify_checkpoint(barrier)
        elif barrier_id > self.latest_pending_checkpoint_id:
            self._mark_alignment_start()
            self.latest_pending_checkpoint_id = barrier_id
            self.pending.append(_BarrierCount(barrier_id))
            if len(self.pending) > self.MAX_CHECKPOINTS_TO_TRACK:
                self.pending.pop(0)

    def process_cancellation_barrier(self, marker: CancelCheckpointMarker) -> None:
        barrier_id = marker.checkpoint_id
        if self.total_channels == 1:
            self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)
            return
        while self.pending and self.pending[0].checkpoint_id < barrier_id:
            self.pending.pop(0)
        if self.pending and self.pending[0].checkpoint_id == barrier_id:
            count = self.pending[0]
            if not count.aborted:
                count.aborted = True
                self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)
        elif barrier_id > self.latest_pending_checkpoint_id:
            self._notify_abort(barrier_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)
            self.latest_pending_checkpoint_id = barrier_id
            self.pending.insert(0, _BarrierCount(barrier_id, aborted=True))

    def process_end_of_partition(self, channel_index: int) -> None:
        while self.pending:
            count = self.pending.pop(0)
            if not count.aborted:
                count.aborted = True
                self._notify_abort(count.checkpoint_id, R.CHECKPOINT_DECLINED_INPUT_END_OF_STREAM)


class CheckpointBarrierUnaligner(CheckpointBarrierHandler):
    """Flink 1.11's ``CheckpointBarrierUnaligner``: the checkpoint starts at the **first** barrier.

    Barriers overtake queued buffers; the task persists the overtaken buffers and, until a
    channel's barrier arrives, every buffer it processes from that channel (``channel state``).
    ``pending_channels`` are the channels whose barrier has not arrived yet.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.current_checkpoint_id = -1
        self.pending_channels: set[int] = set()
        self.closed: set[int] = set()

    def latest_checkpoint_id(self) -> int:
        return self.current_checkpoint_id

    def is_persisting(self, channel_index: int) -> bool:
        """Buffers from this channel are in-flight data of the running checkpoint."""
        return channel_index in self.pending_channels

    def process_barrier(self, barrier: CheckpointBarrier, channel_index: int) -> None:
        if barrier.id > self.current_checkpoint_id:
            if self.pending_channels:
                self._notify_abort(self.current_checkpoint_id, R.CHECKPOINT_DECLINED_SUBSUMED)
            self.current_checkpoint_id = barrier.id
            self.pending_channels = set(range(self.total_channels)) - self.closed
            self._mark_alignment_start()
            self.pending_channels.discard(channel_index)
            self._notify_checkpoint(barrier)
        elif barrier.id == self.current_checkpoint_id:
            self.pending_channels.discard(channel_index)
        if not self.pending_channels:
            self._mark_alignment_end()

    def process_cancellation_barrier(self, marker: CancelCheckpointMarker) -> None:
        if marker.checkpoint_id >= self.current_checkpoint_id and (
            marker.checkpoint_id > self.current_checkpoint_id or self.pending_channels
        ):
            self.current_checkpoint_id = marker.checkpoint_id
            self.pending_channels = set()
            self._notify_abort(marker.checkpoint_id, R.CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER)

    def process_end_of_partition(self, channel_index: int) -> None:
        self.closed.add(channel_index)
        if channel_index in self.pending_channels:
            self.pending_channels = set()
            self._notify_abort(
                self.current_checkpoint_id, R.CHECKPOINT_DECLINED_INPUT_END_OF_STREAM
            )


class AlternatingCheckpointBarrierHandler(CheckpointBarrierHandler):
    """Flink 1.11's ``AlternatingCheckpointBarrierHandler``: savepoints aligned, checkpoints not."""

    def __init__(
        self, aligned: CheckpointBarrierAligner, unaligned: CheckpointBarrierUnaligner
    ) -> None:
        super().__init__(aligned.task_name, aligned.channels, aligned.notifier, aligned.clock)
        self.aligned = aligned
        self.unaligned = unaligned
        self.active: CheckpointBarrierHandler = unaligned

    def latest_checkpoint_id(self) -> int:
        return self.active.latest_checkpoint_id()

    def process_barrier(self, barrier: CheckpointBarrier, channel_index: int) -> None:
        if barrier.id > self.active.latest_checkpoint_id():
            savepoint = barrier.options.checkpoint_type is not CheckpointType.CHECKPOINT
            self.active = self.aligned if savepoint else self.unaligned
            for other in (self.aligned, self.unaligned):  # both must skip older trailing barriers
                if other is not self.active:
                    other.current_checkpoint_id = barrier.id
        self.active.process_barrier(barrier, channel_index)
        self.latest_alignment_duration = self.active.latest_alignment_duration

    def process_cancellation_barrier(self, marker: CancelCheckpointMarker) -> None:
        self.active.process_cancellation_barrier(marker)

    def process_end_of_partition(self, channel_index: int) -> None:
        self.aligned.process_end_of_partition(channel_index)
        self.unaligned.process_end_of_partition(channel_index)


def create_checkpoint_barrier_handler(
    exactly_once: bool,
    unaligned: bool,
    task_name: str,
    channels: Sequence[Channel],
    notifier: BarrierNotifier,
    **kwargs: Any,
) -> CheckpointBarrierHandler:
    """``InputProcessorUtil.createCheckpointBarrierHandler`` (1.11)."""
    if not exactly_once:
        if unaligned:
            from pyflowkit.errors import IllegalStateException

            raise IllegalStateException(
                "Cannot use unaligned checkpoints with AT_LEAST_ONCE checkpointing mode"
            )
        return CheckpointBarrierTracker(task_name, channels, notifier, **kwargs)
    if unaligned:
        return AlternatingCheckpointBarrierHandler(
            CheckpointBarrierAligner(task_name, channels, notifier, **kwargs),
            CheckpointBarrierUnaligner(task_name, channels, notifier, **kwargs),
        )
    return CheckpointBarrierAligner(task_name, channels, notifier, **kwargs)
