"""CheckpointCoordinator against a fake JobMaster: trigger, ack, complete, decline, expire."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pyflowkit.errors import CheckpointException
from pyflowkit.graph.job_graph import JobCheckpointingSettings, OperatorIDPair
from pyflowkit.runtime.checkpoint.completed_checkpoint import StandaloneCompletedCheckpointStore
from pyflowkit.runtime.checkpoint.coordinator import CheckpointCoordinator
from pyflowkit.runtime.checkpoint.failure_manager import CheckpointFailureManager
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties
from pyflowkit.runtime.checkpoint.request_decider import (
    CheckpointRequestDecider,
    CheckpointTriggerRequest,
    Decision,
)
from pyflowkit.runtime.checkpoint.task_state import CheckpointMetrics, TaskStateSnapshot
from pyflowkit.runtime.rpc import ClusterConfig, RpcBus
from pyflowkit.state.snapshot import OperatorSnapshot

# Flink 1.11's CheckpointCoordinator (its own trigger checks; 1.20's DefaultCheckpointPlanCalculator
# needs the real JobGraph and is tested in tests/versions/test_finished_tasks_checkpoints.py)
pytestmark = pytest.mark.flink_version("1.11")


def vertex(vid: str, name: str, p: int, source: bool = False):
    node = SimpleNamespace(id=int(vid, 16) % 1000, operator_name=name, uid=None)
    return SimpleNamespace(
        id=vid,
        name=name,
        parallelism=p,
        max_parallelism=-1,
        stream_nodes=[node],
        operator_ids=[OperatorIDPair(vid.replace("a", "b"))],
        is_input_vertex=source,
    )


class Gateway:
    def __init__(self, vertices, bus) -> None:
        self.execs = {
            v.id: [
                SimpleNamespace(
                    vertex=SimpleNamespace(
                        name=f"{v.name} ({i + 1}/{v.parallelism})", subtask_index=i, job_vertex=v
                    ),
                    attempt_number=0,
                    attempt_id=f"{v.name}-{i}",
                    state=SimpleNamespace(value="RUNNING"),
                )
                for i in range(v.parallelism)
            ]
            for v in vertices
        }
        self.calls: list[tuple] = []
        self.failed: list[BaseException] = []

    def current_executions(self, vertex_id):
        return self.execs[vertex_id]

    def trigger_checkpoint(self, e, cid, ts, options):
        self.calls.append(("trigger", e.attempt_id, cid))

    def notify_checkpoint_complete(self, e, cid, ts):
        self.calls.append(("complete", e.attempt_id, cid))

    def notify_checkpoint_aborted(self, e, cid, ts):
        self.calls.append(("aborted", e.attempt_id, cid))

    def fail_job(self, cause):
        self.failed.append(cause)


def setup(interval=1000, timeout=600_000, max_conc=1, min_pause=0, tolerable=0):
    src, mp = vertex("a1" * 16, "Source", 1, True), vertex("a2" * 16, "Map", 2)
    ids = [src.id, mp.id]
    settings = JobCheckpointingSettings(
        [src.id],
        ids,
        ids,
        interval,
        timeout,
        min_pause,
        max_conc,
        "NEVER_RETAIN_AFTER_TERMINATION",
        True,
        False,
        tolerable,
    )
    jg = SimpleNamespace(
        job_id="f" * 32,
        vertices=[src, mp],
        checkpointing_settings=settings,
        stream_graph=SimpleNamespace(checkpoint_config=None),
    )
    bus = RpcBus(ClusterConfig(seed=3))
    gw = Gateway([src, mp], bus)
    return CheckpointCoordinator(jg, bus, gw), gw, bus, src, mp


def ack_all(coord, cid, attempts=("Source-0", "Map-0", "Map-1")):
    for a in attempts:
        snap = OperatorSnapshot(operator_state={"s": {"mode": "SPLIT_DISTRIBUTE", "entries": [a]}})
        op = "b2" * 16 if a.startswith("Map") else "b1" * 16
        coord.receive_acknowledge_message(
            a, cid, CheckpointMetrics(), TaskStateSnapshot({op: snap}, state_size=10)
        )


def messages(bus):
    return [(e.method, e.message) for e in bus.trace]


def test_trigger_goes_to_sources_only_and_completion_notifies_every_task() -> None:
    coord, gw, bus, *_ = setup()
    cid = coord.trigger_checkpoint()
    assert cid == 1
    assert gw.calls == [("trigger", "Source-0", 1)]
    assert f"Triggering checkpoint 1 (type=CHECKPOINT) @ 0 for job {'f' * 32}." in [
        m for _, m in messages(bus)
    ]
    ack_all(coord, 1, ("Source-0", "Map-0"))
    assert coord.pending[1].number_of_non_acknowledged_tasks == 1
    ack_all(coord, 1, ("Map-1",))
    assert 1 not in coord.pending
    assert coord.store.get_latest_checkpoint().checkpoint_id == 1
    assert [c for c in gw.calls if c[0] == "complete"] == [
        ("complete", "Source-0", 1),
        ("complete", "Map-0", 1),
        ("complete", "Map-1", 1),
    ]
    assert any(m.startswith("Completed checkpoint 1 for job") for _, m in messages(bus))
    stats = coord.stats.snapshot()
    assert stats["counts"] == {
        "restored": 0,
        "total": 1,
        "in_progress": 0,
        "completed": 1,
        "failed": 0,
    }
    assert stats["history"][0]["num_subtasks"] == 3
    assert stats["history"][0]["state_size"] == 30


def test_not_all_tasks_running_aborts_before_an_id_is_used() -> None:
    coord, gw, bus, src, _ = setup()
    gw.execs[src.id][0].state = SimpleNamespace(value="SCHEDULED")
    with pytest.raises(CheckpointException, match="Not all required tasks are currently running."):
        coord.trigger_checkpoint()
    assert any(
        "is not in state RUNNING but SCHEDULED instead. Aborting checkpoint." in m
        for _, m in messages(bus)
    )
    gw.execs[src.id][0].state = SimpleNamespace(value="RUNNING")
    assert coord.trigger_checkpoint() == 1  # the aborted attempt consumed no id


def test_decline_aborts_and_late_acks_are_logged_and_dropped() -> None:
    coord, gw, bus, *_ = setup(tolerable=5)
    coord.trigger_checkpoint()
    coord.receive_decline_message("Map-0", 1, None)
    assert coord.stats.by_id[1]["status"] == "FAILED"
    assert coord.stats.by_id[1]["failure_message"] == "Checkpoint was declined."
    ack_all(coord, 1, ("Map-1",))
    assert any(
        "Received late message for now expired checkpoint attempt 1" in m for _, m in messages(bus)
    )
    assert coord.trigger_checkpoint() == 2  # ids are never reused


def test_timeout_expires_pending_checkpoint() -> None:
    coord, gw, bus, *_ = setup(timeout=50, tolerable=3)
    coord.trigger_checkpoint()
    while bus.env.peek() != float("inf"):
        bus.env.next_event().action()
    assert bus.now == 50
    assert coord.stats.by_id[1]["failure_message"] == "Checkpoint expired before completing."
    assert any(
        m == f"Checkpoint 1 of job {'f' * 32} expired before completing." for _, m in messages(bus)
    )


def test_failure_manager_fails_job_above_tolerable_number() -> None:
    coord, gw, bus, *_ = setup(tolerable=1)
    coord.trigger_checkpoint()
    coord.receive_decline_message("Map-0", 1, None)
    assert gw.failed == []
    coord.trigger_checkpoint()
    coord.receive_decline_message("Map-0", 2, None)
    assert [str(e) for e in gw.failed] == ["Exceeded checkpoint tolerable failure threshold."]
    fm = CheckpointFailureManager(0, gw.failed.append)
    fm.handle_job_level_checkpoint_exception(R.TASK_FAILURE, 9)  # does not count
    assert len(gw.failed) == 1


def test_max_concurrent_queues_periodic_and_savepoints_pass() -> None:
    coord, gw, bus, *_ = setup()
    coord.periodic_scheduling = True
    assert coord.trigger_checkpoint(is_periodic=True) == 1
    assert coord.trigger_checkpoint(is_periodic=True) is None  # queued
    assert coord.trigger_checkpoint(props=CheckpointProperties.for_savepoint()) == 2
    ack_all(coord, 2)  # completing the savepoint drops the older checkpoint (1.11)
    assert coord.stats.by_id[1]["failure_message"] == "Checkpoint has been subsumed."
    assert coord.pending.keys() == {3}  # the queued request ran once a slot was free
    assert coord.stats.by_id[2]["is_savepoint"] is True


def test_completing_newer_checkpoint_subsumes_older_pending() -> None:
    coord, gw, bus, *_ = setup(max_conc=2)
    coord.trigger_checkpoint()
    coord.trigger_checkpoint()
    ack_all(coord, 2)
    assert coord.stats.by_id[1]["failure_message"] == "Checkpoint has been subsumed."


def test_request_decider_min_pause_and_store_retention() -> None:
    d = CheckpointRequestDecider(1, 100)
    periodic = CheckpointTriggerRequest(True, False)
    assert d.decide(periodic, 0, 150, 100) == (Decision.DROP, R.MINIMUM_TIME_BETWEEN_CHECKPOINTS)
    assert d.decide(periodic, 0, 200, 100) == (Decision.EXECUTE, None)
    assert d.decide(periodic, 1, 500, 100) == (Decision.QUEUE, None)
    store = StandaloneCompletedCheckpointStore(2)
    cps = [SimpleNamespace(checkpoint_id=i, discarded=False, is_savepoint=False) for i in range(3)]
    for cp in cps:
        cp.discard_on_subsume = lambda cp=cp: setattr(cp, "discarded", True)
        store.add_checkpoint(cp)
    assert [c.checkpoint_id for c in store.get_all_checkpoints()] == [1, 2]
    assert cps[0].discarded and not cps[1].discarded


def test_failure_reason_messages_are_flink_1_11() -> None:
    assert R.CHECKPOINT_DECLINED_SUBSUMED.message == (
        "Checkpoint was canceled because a barrier from newer checkpoint was received."
    )
    assert R.NOT_ALL_REQUIRED_TASKS_RUNNING.is_pre_flight
    assert not R.CHECKPOINT_EXPIRED.is_pre_flight
    assert len(R) == 25
