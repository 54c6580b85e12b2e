"""Barrier alignment on a real two-input job (connect → keyed co-process, two sources).

Exactly-once blocks exactly the channel that delivered barrier n until every channel did;
at-least-once never blocks; unaligned checkpoints put the overtaken records into the snapshot.
"""

from __future__ import annotations

import re
from typing import Any

from pyflowkit.datastream.checkpointing_mode import CheckpointingMode
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.pipelines import PIPELINES, build

CONNECT = next(p for p in PIPELINES if p.name == "connect")
TASK = "Co-Keyed-Process -> Sink: Unnamed (1/2)"
PROCESSED = re.compile(r"processed a buffer of \d+ records.* from channel (\d+) \(input (\d)\)")


def connect_run(seed: int, mode: CheckpointingMode | None = None, unaligned: bool = False) -> Any:
    store = TransactionStore()
    env = build(CONNECT, store, interval=10)
    if mode is not None:
        env.get_checkpoint_config().set_checkpointing_mode(mode)
    if unaligned:
        env.get_checkpoint_config().enable_unaligned_checkpoints()
    return MiniCluster(echo_print=False, seed=seed, source_batch=2, buffer_size=2).submit(env)


def driver_of(run: Any, name: str) -> Any:
    for te in run.task_executors:
        for task in te.tasks.values():
            if task.name == name:
                return task.checkpointing
    return None


def test_exactly_once_blocks_the_channel_that_delivered_the_barrier() -> None:
    run = connect_run(seed=1)
    blocked_seen: list[list[int]] = []
    processed_while_blocked: list[int] = []
    while run.has_next() and run.job_status is not JobStatus.FINISHED:
        events = run.step()
        d = driver_of(run, TASK)
        if d is None or d.handler is None:
            continue
        blocked = list(d.handler.blocked_channels())
        for e in events:
            m = PROCESSED.search(e.message) if e.component == TASK else None
            if m and blocked:
                flat = int(m.group(2)) - 1  # one channel per input: flat index = input - 1
                processed_while_blocked.append(flat)
                assert flat not in blocked, (e.step, e.message, blocked)
        if blocked:
            blocked_seen.append(blocked)
    assert run.job_status is JobStatus.FINISHED
    assert [0] in blocked_seen and [1] in blocked_seen  # either input can be first
    assert all(len(b) == 1 for b in blocked_seen)  # never both: then the barrier is aligned
    assert processed_while_blocked  # the other channel goes on while one is blocked
    starts = [
        e for e in run.trace if e.component == TASK and "Starting stream alignment" in e.message
    ]
    assert starts and all(e.checkpoint is not None for e in starts)


def test_at_least_once_never_blocks() -> None:
    run = connect_run(seed=1, mode=CheckpointingMode.AT_LEAST_ONCE)
    barriers_between = 0
    while run.has_next() and run.job_status is not JobStatus.FINISHED:
        events = run.step()
        d = driver_of(run, TASK)
        if d is None or d.handler is None:
            continue
        assert d.handler.blocked_channels() == []
        barriers_between += sum(1 for e in events if "CheckpointBarrier" in e.message)
    assert run.job_status is JobStatus.FINISHED
    assert barriers_between > 0
    assert not any("Starting stream alignment" in e.message for e in run.trace)
    assert len(run.checkpoints_frame().query("status == 'COMPLETED'")) >= 1


def test_unaligned_checkpoint_snapshots_the_overtaken_records() -> None:
    found = []
    for seed in range(6):
        run = connect_run(seed=seed, unaligned=True)
        run.step(1_000_000)
        assert run.job_status is JobStatus.FINISHED
        for cp in run.checkpoint_coordinator.completed_by_id.values():
            for key, channel_state in cp.channel_states.items():
                if channel_state is not None and channel_state.num_records() > 0:
                    found.append((seed, cp.checkpoint_id, key, channel_state.num_records()))
    assert found, "no unaligned checkpoint captured in-flight records"
