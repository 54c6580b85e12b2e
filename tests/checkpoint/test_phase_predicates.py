"""Predicates that stop a run inside one phase of the checkpoint protocol (alignment, snapshot
taken but not acknowledged, notification in flight), checked against the trace."""

from __future__ import annotations

from typing import Any

from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.predicates import (
    alignment_in_progress,
    notification_in_flight,
    snapshot_not_acknowledged,
)
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.pipelines import PIPELINES, build

WORD_COUNT = next(p for p in PIPELINES if p.name == "word_count")


def word_count_run(seed: int = 0) -> Any:
    env = build(WORD_COUNT, TransactionStore())
    return MiniCluster(echo_print=False, seed=seed, source_batch=2).submit(env)


def last_step_methods(run: Any) -> set[str]:
    return {e.method for e in run.trace if e.step == run.steps_taken}


def spans(run: Any, start: str, end: str) -> set[tuple[str, int, int]]:
    """(vertex, subtask, checkpoint) with a ``start`` event and no ``end`` event yet."""
    opened = {(e.vertex, e.subtask, e.checkpoint) for e in run.trace if e.method == start}
    closed = {(e.vertex, e.subtask, e.checkpoint) for e in run.trace if e.method == end}
    return opened - closed


def test_alignment_in_progress_stops_with_one_channel_blocked() -> None:
    run = word_count_run()
    run.run_until(alignment_in_progress())
    blocked = [
        (task.name, task.checkpointing.handler.blocked_channels())
        for te in run.task_executors
        for task in te.tasks.values()
        if task.checkpointing is not None
        and task.checkpointing.handler is not None
        and task.checkpointing.handler.blocked_channels()
    ]
    assert len(blocked) == 1 and len(blocked[0][1]) == 1
    last = [e.message for e in run.trace if e.method == "CheckpointBarrierHandler.processBarrier"]
    assert last[-1].startswith(blocked[0][0].rsplit(" (", 1)[0])
    assert "Starting stream alignment for checkpoint 1." in last[-1]
    assert not any("Received all barriers" in m for m in last if blocked[0][0] in m)


def test_snapshot_not_acknowledged_stops_between_snapshot_and_ack() -> None:
    run = word_count_run()
    run.run_until(snapshot_not_acknowledged())
    open_ = spans(
        run, "SubtaskCheckpointCoordinatorImpl.checkpointState", "PendingCheckpoint.acknowledgeTask"
    )
    assert open_
    assert {c for _, _, c in open_} <= set(run.checkpoint_coordinator.pending)
    assert last_step_methods(run) >= {"SubtaskCheckpointCoordinatorImpl.checkpointState"}
    pred = snapshot_not_acknowledged()
    run.run_until(lambda r: not pred(r))
    assert "PendingCheckpoint.acknowledgeTask" in last_step_methods(run)


def test_notification_in_flight_stops_after_completion_before_the_chain_is_notified() -> None:
    run = word_count_run()
    run.run_until(notification_in_flight())
    open_ = spans(
        run,
        "Execution.notifyCheckpointComplete",
        "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete",
    )
    assert open_ and {c for _, _, c in open_} <= set(run.checkpoint_coordinator.completed_by_id)
    assert "Execution.notifyCheckpointComplete" in last_step_methods(run)


def test_a_failed_subtask_leaves_the_notification_phase() -> None:
    run = word_count_run()
    pred = notification_in_flight()
    run.run_until(pred)
    for vertex, subtask, _ in spans(
        run,
        "Execution.notifyCheckpointComplete",
        "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete",
    ):
        run.fail_task(vertex, subtask, cause="injected failure")
    run.step()
    assert not pred(run)
