"""Barrier handlers over fake channels: which channels block, when the task snapshots or aborts."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pyflowkit.errors import IllegalStateException
from pyflowkit.runtime.checkpoint.barrier_handlers import (
    AlternatingCheckpointBarrierHandler,
    CheckpointBarrierAligner,
    CheckpointBarrierTracker,
    CheckpointBarrierUnaligner,
    create_checkpoint_barrier_handler,
)
from pyflowkit.runtime.checkpoint.barriers import CancelCheckpointMarker, CheckpointBarrier
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R
from pyflowkit.runtime.checkpoint.properties import CheckpointOptions, CheckpointType


@dataclass
class Ch:
    blocked: bool = False


class Task:
    def __init__(self) -> None:
        self.events: list[tuple] = []
        self.now = 0

    def trigger_checkpoint_on_barrier(self, barrier: CheckpointBarrier, alignment: int) -> None:
        self.events.append(("snapshot", barrier.id, alignment))

    def abort_checkpoint_on_barrier(self, checkpoint_id: int, reason: R) -> None:
        self.events.append(("abort", checkpoint_id, reason.name))


def barrier(i: int, kind: CheckpointType = CheckpointType.CHECKPOINT, unaligned=False):
    return CheckpointBarrier(i, 100 * i, CheckpointOptions(kind, is_unaligned=unaligned))


def make(cls, n: int):
    task, chans, resumed = Task(), [Ch() for _ in range(n)], []
    h = cls("T (1/1)", chans, task, clock=lambda: task.now, resume=resumed.append)
    return h, task, chans, resumed


def test_aligner_blocks_exactly_the_channels_that_delivered_the_barrier() -> None:
    h, task, chans, resumed = make(CheckpointBarrierAligner, 3)
    h.process_barrier(barrier(1), 2)
    assert [c.blocked for c in chans] == [False, False, True]
    task.now = 5
    h.process_barrier(barrier(1), 0)
    assert [c.blocked for c in chans] == [True, False, True]
    assert task.events == []
    task.now = 12
    h.process_barrier(barrier(1), 1)
    assert [c.blocked for c in chans] == [False, False, False]
    assert sorted(resumed) == [0, 1, 2]
    assert task.events == [("snapshot", 1, 12)]


def test_aligner_newer_barrier_aborts_current_with_declined_subsumed() -> None:
    h, task, chans, _ = make(CheckpointBarrierAligner, 2)
    h.process_barrier(barrier(1), 0)
    h.process_barrier(barrier(2), 1)
    assert task.events == [("abort", 1, "CHECKPOINT_DECLINED_SUBSUMED")]
    assert [c.blocked for c in chans] == [False, True]
    h.process_barrier(barrier(1), 0)  # trailing barrier of the aborted checkpoint: ignored
    assert [c.blocked for c in chans] == [False, True]
    h.process_barrier(barrier(2), 0)
    assert task.events[-1] == ("snapshot", 2, 0)


def test_aligner_single_channel_triggers_at_once_and_end_of_partition_aborts() -> None:
    h, task, chans, _ = make(CheckpointBarrierAligner, 1)
    h.process_barrier(barrier(3), 0)
    assert task.events == [("snapshot", 3, 0)] and not chans[0].blocked
    h2, task2, chans2, _ = make(CheckpointBarrierAligner, 2)
    h2.process_barrier(barrier(1), 0)
    h2.process_end_of_partition(1)
    assert task2.events == [("abort", 1, "CHECKPOINT_DECLINED_INPUT_END_OF_STREAM")]
    assert not chans2[0].blocked
    h2.process_barrier(barrier(2), 0)  # the closed channel counts as delivered
    assert task2.events[-1] == ("snapshot", 2, 0)


def test_aligner_cancellation_marker_releases_and_aborts() -> None:
    h, task, chans, _ = make(CheckpointBarrierAligner, 2)
    h.process_barrier(barrier(1), 0)
    h.process_cancellation_barrier(CancelCheckpointMarker(1))
    assert not chans[0].blocked
    assert task.events == [("abort", 1, "CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER")]


def test_tracker_never_blocks_and_triggers_on_the_last_barrier() -> None:
    h, task, chans, _ = make(CheckpointBarrierTracker, 3)
    for i in (1, 0):
        h.process_barrier(barrier(1), i)
        assert not any(c.blocked for c in chans)
    assert task.events == []
    h.process_barrier(barrier(1), 2)
    assert task.events == [("snapshot", 1, 0)]
    assert not any(c.blocked for c in chans)


def test_tracker_completing_a_newer_checkpoint_drops_older_ones() -> None:
    h, task, _, _ = make(CheckpointBarrierTracker, 2)
    h.process_barrier(barrier(1), 0)
    h.process_barrier(barrier(2), 0)
    h.process_barrier(barrier(2), 1)
    assert task.events == [("snapshot", 2, 0)]
    h.process_barrier(barrier(1), 1)  # too late: checkpoint 1 is gone
    assert task.events == [("snapshot", 2, 0)]


def test_unaligner_triggers_on_first_barrier_and_tracks_in_flight_channels() -> None:
    h, task, chans, _ = make(CheckpointBarrierUnaligner, 3)
    h.process_barrier(barrier(1, unaligned=True), 1)
    assert task.events == [("snapshot", 1, 0)]
    assert not any(c.blocked for c in chans)
    assert [h.is_persisting(i) for i in range(3)] == [True, False, True]
    h.process_barrier(barrier(1, unaligned=True), 0)
    h.process_barrier(barrier(1, unaligned=True), 2)
    assert [h.is_persisting(i) for i in range(3)] == [False, False, False]


def test_alternating_aligns_savepoints_and_not_checkpoints() -> None:
    task, chans = Task(), [Ch(), Ch()]
    h = create_checkpoint_barrier_handler(True, True, "T", chans, task)
    assert isinstance(h, AlternatingCheckpointBarrierHandler)
    h.process_barrier(barrier(1, unaligned=True), 0)
    assert task.events == [("snapshot", 1, 0)] and not chans[0].blocked
    h.process_barrier(barrier(1, unaligned=True), 1)
    h.process_barrier(barrier(2, CheckpointType.SAVEPOINT), 1)
    assert chans[1].blocked and len(task.events) == 1
    h.process_barrier(barrier(2, CheckpointType.SAVEPOINT), 0)
    assert task.events[-1] == ("snapshot", 2, 0) and not chans[1].blocked


def test_factory_picks_handlers_as_flink_1_11() -> None:
    task = Task()
    assert isinstance(
        create_checkpoint_barrier_handler(True, False, "T", [Ch()], task), CheckpointBarrierAligner
    )
    assert isinstance(
        create_checkpoint_barrier_handler(False, False, "T", [Ch()], task),
        CheckpointBarrierTracker,
    )
    with pytest.raises(
        IllegalStateException, match="Cannot use unaligned checkpoints with AT_LEAST_ONCE"
    ):
        create_checkpoint_barrier_handler(False, True, "T", [Ch()], task)
