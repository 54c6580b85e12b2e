"""Golden trace of checkpoint 1 of a 3-vertex job: every hop of the protocol, in order.

Regenerate the golden file after an intended change with ``PYFLOWKIT_REGEN_GOLDEN=1``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed
from pyflowkit.runtime.trace import TraceEvent
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count

GOLDEN = Path(__file__).with_name("golden_checkpoint_1.txt")
NOTIFIED = "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete"


def _about_checkpoint_1(e: TraceEvent) -> bool:
    return (
        e.checkpoint == 1
        or "CheckpointBarrier 1 @" in e.message
        or "(checkpoint 1)." in e.message  # the mails: triggerCheckpointAsync, notify…Async
    )


def checkpoint_1_run() -> Any:
    """The job as the process's n-th pipeline: orders come from job-local ids, so whatever earlier
    tests built, the HashMap order of the vertices (and of the notifications) is a fresh JVM's."""
    store = TransactionStore()
    env = word_count(store, parallelism=2, interval=20)
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(env)
    run.run_until(checkpoint_completed(1))
    run.run_until(
        lambda r: sum(1 for e in r.trace if e.checkpoint == 1 and e.method == NOTIFIED) == 5
    )
    return run


def checkpoint_1_lines(run: Any) -> list[str]:
    return [f"{e.component} | {e.method}" for e in run.trace if _about_checkpoint_1(e)]


# the golden trace is Flink 1.11's checkpoint protocol (1.20 adds FLIP-147's plan and final checkpoints)
@pytest.mark.flink_version("1.11")
def test_golden_trace_of_checkpoint_1() -> None:
    run = checkpoint_1_run()
    assert [v.name for v in run.job_graph.vertices] == [
        "Source: Collection Source",
        "Map",
        "Keyed Reduce -> Sink: Unnamed",
    ]
    lines = checkpoint_1_lines(run)
    if os.environ.get("PYFLOWKIT_REGEN_GOLDEN"):
        GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert lines == GOLDEN.read_text(encoding="utf-8").splitlines()


def _methods_of(run: Any, component: str) -> list[str]:
    return [
        e.method
        for e in run.trace
        if _about_checkpoint_1(e)
        and e.component == component
        and e.method != "StreamTask.processInput"
    ]


def test_each_subtask_takes_every_hop_in_protocol_order() -> None:
    run = checkpoint_1_run()
    snapshot_and_ack = [
        "SubtaskCheckpointCoordinatorImpl.checkpointState",
        "AsyncCheckpointRunnable.run",
        "TaskStateManagerImpl.reportTaskStateSnapshots",
        "RpcCheckpointResponder.acknowledgeCheckpoint",
    ]
    notify = ["Task.notifyCheckpointComplete", NOTIFIED]
    source = _methods_of(run, "Source: Collection Source (1/1)")
    assert [m for m in source if m != "MailboxProcessor.runMailboxStep"] == [
        "Task.triggerCheckpointBarrier",
        *snapshot_and_ack,
        *notify,
    ]
    for name in ("Map (1/2)", "Map (2/2)"):
        assert [m for m in _methods_of(run, name) if m != "MailboxProcessor.runMailboxStep"] == [
            *snapshot_and_ack,
            *notify,
        ]
    for i in (1, 2):
        methods = [
            m
            for m in _methods_of(run, f"Keyed Reduce -> Sink: Unnamed ({i}/2)")
            if m
            not in ("MailboxProcessor.runMailboxStep", "CheckpointBarrierHandler.processBarrier")
        ]
        assert methods == [*snapshot_and_ack, *notify]
    jm = [e.method for e in run.trace if e.checkpoint == 1 and e.component == "JobMaster"]
    assert jm[:2] == [
        "CheckpointCoordinator.createPendingCheckpoint",
        "Execution.triggerCheckpoint",
    ]
    assert (
        jm[2:17]
        == [
            "JobMaster.acknowledgeCheckpoint",
            "SchedulerBase.acknowledgeCheckpoint",
            "PendingCheckpoint.acknowledgeTask",
        ]
        * 5
    )
    assert jm[17:] == [
        "StandaloneCompletedCheckpointStore.addCheckpoint",
        "CheckpointCoordinator.completePendingCheckpoint",
        *["Execution.notifyCheckpointComplete"] * 5,
    ]
    completed_at = next(
        e.step for e in run.trace if e.method == "CheckpointCoordinator.completePendingCheckpoint"
    )
    confirms = [e for e in run.trace if e.checkpoint == 1 and e.method == NOTIFIED]
    assert all(e.step > completed_at for e in confirms)
    mails = [e.message for e in run.trace if e.method == "MailboxProcessor.runMailboxStep"]
    assert sum("notifyCheckpointCompleteAsync (checkpoint 1)" in m for m in mails) == 5
    assert sum("triggerCheckpointAsync (checkpoint 1)" in m for m in mails) == 1


def test_same_seed_same_checkpoint_trace() -> None:
    assert checkpoint_1_run().trace_json() == checkpoint_1_run().trace_json()
