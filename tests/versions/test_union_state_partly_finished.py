"""Union list state in a partly finished vertex, under 1.20 (FLIP-147).

A union list state is restored to every subtask as the union of all subtasks' entries, so a
checkpoint that lacked a finished subtask's entries would lose them. Flink 1.20's
``DefaultCheckpointPlan.fulfillFinishedTaskStatus`` therefore refuses to finalize a checkpoint
in which a vertex that uses union list state is partly finished
(``PartialFinishingNotSupportedByStateException``, aborted as CHECKPOINT_DECLINED_TASK_CLOSING):
``checkNoPartlyOperatorsFinishedVertexUsedUnionListState`` when some subtasks only ended their
data (they wait for a final checkpoint that never completes until the slow subtasks end too) and
``checkNoPartlyFinishedVertexUsedUnionListState`` when some subtasks FINISHED.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY, profile_for
from pyflowkit.datastream import SourceFunction, StreamExecutionEnvironment
from pyflowkit.datastream.functions import CheckpointedFunction, MapFunction
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.checkpoint.checkpoint_plan import (
    PartialFinishingNotSupportedByStateException,
)
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason
from pyflowkit.runtime.checkpoint.pending_checkpoint import AckTask, PendingCheckpoint
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties
from pyflowkit.runtime.checkpoint.task_state import CheckpointMetrics, TaskStateSnapshot
from pyflowkit.state.snapshot import SPLIT_DISTRIBUTE, UNION, OperatorSnapshot

CLOSING = CheckpointFailureReason.CHECKPOINT_DECLINED_TASK_CLOSING.message


class _ShortAndEndless(SourceFunction):
    """Subtask 0 emits three records and ends; subtask 1 never ends (a parallel source)."""

    is_parallel = True

    def open(self, runtime_context: Any) -> None:
        self.index = runtime_context.get_index_of_this_subtask()

    def run(self, ctx: Any) -> Iterator[None]:
        i = 0
        while self.index == 1 or i < 3:
            ctx.collect((f"s{self.index}", i))
            ctx.sleep(10)
            i += 1
            yield None

    def cancel(self) -> None:
        pass


class _CountingMap(MapFunction, CheckpointedFunction):
    """Chained to the source: counts its records in a union list state
    (``get_union_list_state``) or a split one (``get_list_state``)."""

    def __init__(self, union: bool) -> None:
        self.union = union
        self.seen = 0

    def initialize_state(self, context: Any) -> None:
        store = context.get_operator_state_store()
        get = store.get_union_list_state if self.union else store.get_list_state
        self.counts = get("counts")

    def snapshot_state(self, context: Any) -> None:
        self.counts.update([self.seen])

    def map(self, value: Any) -> Any:
        self.seen += 1
        return value


def _run(union: bool) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    )
    env.set_parallelism(2)
    env.enable_checkpointing(100)
    env.add_source(_ShortAndEndless()).map(_CountingMap(union)).print("out")
    run: Any = MiniCluster(echo_print=False, seed=1).submit(env, "union-offsets")
    run.step(1500)
    return run


def _aborts(run: Any) -> list[str]:
    return [
        e.message
        for e in run.bus.trace
        if e.method == "CheckpointCoordinator.abortPendingCheckpoint"
    ]


def _states(run: Any) -> dict[str, str]:
    return {e.vertex.name: e.state.value for e in run.executions()}


def test_1_20_refuses_checkpoints_while_a_union_state_vertex_is_partly_finished() -> None:
    run = _run(union=True)
    job_id = run.job_graph.job_id
    source = run.job_graph.vertices[0]
    aborts = _aborts(run)
    refused = (
        f"failed: {CLOSING} The vertex {source.name} (id = {source.id}) has used UnionListState, "
        "but part of its tasks has called operators' finish method."
    )
    assert aborts and all(refused in m for m in aborts), aborts
    # checkpoint 1 completed before subtask 0 ended its data; none completes after
    completed = [
        e.message
        for e in run.bus.trace
        if e.method == "CheckpointCoordinator.completePendingCheckpoint"
    ]
    assert [m.split(" for job")[0] for m in completed] == ["Completed checkpoint 1"]
    assert aborts[0].startswith(f"Checkpoint 2 of job {job_id} failed:")
    # the fast subtask waits for a final checkpoint that cannot complete: it stays RUNNING
    states = _states(run)
    assert states[f"{source.name} (1/2)"] == "RUNNING"
    assert states[f"{source.name} (2/2)"] == "RUNNING"
    # the refusal is not counted as a failed checkpoint (the job keeps running)
    assert run.job_status.name == "RUNNING"
    run.cancel()


def test_1_20_a_split_list_state_lets_the_fast_subtask_finish() -> None:
    run = _run(union=False)
    source = run.job_graph.vertices[0]
    assert _aborts(run) == []
    assert _states(run)[f"{source.name} (1/2)"] == "FINISHED"
    run.cancel()


def _task(vertex: str, index: int, op: str) -> AckTask:
    return AckTask(f"{vertex}-{index}", vertex, vertex, index, 2, 128, (op,), (op,), (None,))


def _pending(mode: str) -> PendingCheckpoint:
    """Subtask 0 of vertex V FINISHED; subtask 1 runs and reports its operator state."""
    pending = PendingCheckpoint(
        "job",
        7,
        0,
        {"V-1": _task("V", 1, "op")},
        CheckpointProperties.for_checkpoint("NEVER_RETAIN_AFTER_TERMINATION"),
        finished_tasks={"V-0": _task("V", 0, "op")},
        may_have_finished_tasks=True,
    )
    state = OperatorSnapshot(operator_state={"offsets": {"mode": mode, "entries": [1]}})
    snapshot = TaskStateSnapshot({"op": state})
    pending.acknowledge_task("V-1", snapshot, CheckpointMetrics(), 5)
    return pending


def test_a_finished_subtask_of_a_union_state_vertex_refuses_the_checkpoint() -> None:
    with pytest.raises(
        PartialFinishingNotSupportedByStateException,
        match=r"^The vertex V \(id = V\) has used UnionListState, but part of its tasks are "
        r"FINISHED\.$",
    ):
        _pending(UNION).finalize_checkpoint(10)
    completed = _pending(SPLIT_DISTRIBUTE).finalize_checkpoint(10)
    assert completed.operator_states["op"].subtask_states[0].is_finished


@pytest.mark.parametrize("version", ["1.11", "1.20"])
def test_the_rule_is_in_the_profile(version: str) -> None:
    rule = profile_for(version).union_state_partly_finished
    assert rule.refused(True) is (version == "1.20")
    assert rule.refused(False) is False
    assert rule.rule.issue.startswith("FLIP-147")
