"""FLIP-147 under 1.20: a vertex that had FINISHED when a checkpoint was taken restores finished.

The checkpoint records its operators as ``FullyFinishedOperatorState``
(``DefaultCheckpointPlan.fulfillFinishedTaskStatus``); a restore deploys every subtask of that
vertex with ``TaskStateSnapshot.FINISHED_ON_RESTORE`` (``StateAssignmentOperation``), and the
task runs a ``FinishedOperatorChain``: the legacy source skips its run. Without it the restored
source ran from its first record again and the keyed state counted every record twice.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyflowkit.errors import FlinkRuntimeException
from pyflowkit.runtime import JobStatus
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint, write_savepoint
from pyflowkit.runtime.checkpoint.state_assignment import StateAssignmentOperation
from pyflowkit.runtime.checkpoint.task_state import OperatorState, is_task_deployed_as_finished
from tests.checkpoint.test_exactly_once import (
    BY_NAME,
    PhaseFailures,
    failure_free,
    run_recording_final_state,
)


@pytest.mark.flink_version("1.20")
def test_a_failure_while_the_final_checkpoint_is_notified_stays_exactly_once() -> None:
    # a task fails while checkpoint 3 (a source's final checkpoint) is notified. Every task ends
    # its data on EndOfData (StreamTask.endData), so the tasks' final checkpoints are taken
    # together and no checkpoint completes after a source FINISHED: the restore runs every
    # subtask (FINISHED_ON_RESTORE is covered by tests/versions/test_finished_restore.py)
    phases = PhaseFailures([("notify", 2, 0, "phase_task")])
    run, store, final = run_recording_final_state(BY_NAME["connect"], 3, [], False, phases)
    assert run.job_status is JobStatus.FINISHED, run.failure_cause
    assert phases.injected == ["notify"]
    assert not any(e.method == "StreamTask.restoreInternal" for e in run.trace)
    committed, expected_final = failure_free("connect")
    assert Counter(store.committed) == committed
    assert final == expected_final


def _vertex(vid: str, op: str, parallelism: int) -> SimpleNamespace:
    pair = SimpleNamespace(generated_operator_id=op, user_defined_operator_id=None)
    return SimpleNamespace(id=vid, parallelism=parallelism, max_parallelism=-1, operator_ids=[pair])


def test_every_subtask_of_a_fully_finished_vertex_restores_finished() -> None:
    states = {
        "src": OperatorState("src", 1, 128, {}, "Source", fully_finished=True),
        "map": OperatorState("map", 2, 128, {}, "Map"),
    }
    out = StateAssignmentOperation(states, [_vertex("v1", "src", 2), _vertex("v2", "map", 2)])
    assigned = out.assign_states()
    assert [is_task_deployed_as_finished(assigned.get(("v1", i))) for i in range(2)] == [
        True,
        True,
    ]
    assert not any(is_task_deployed_as_finished(assigned.get(("v2", i))) for i in range(2))


def test_a_vertex_is_fully_finished_or_not_at_all() -> None:
    pairs = [
        SimpleNamespace(generated_operator_id=op, user_defined_operator_id=None)
        for op in ("src", "map")
    ]
    vertex = SimpleNamespace(id="v1", parallelism=1, max_parallelism=-1, operator_ids=pairs)
    states = {
        "src": OperatorState("src", 1, 128, {}, "Source", fully_finished=True),
        "map": OperatorState("map", 1, 128, {}, "Map"),
    }
    # VertexFinishedStateChecker (run before the assignment, as CheckpointCoordinator does)
    with pytest.raises(FlinkRuntimeException) as refused:
        StateAssignmentOperation(states, [vertex]).assign_states()
    assert str(refused.value) == (
        "Can not restore vertex (v1) which contain mixed operator finished state: "
        "[ALL_RUNNING, FULLY_FINISHED]"
    )


def test_a_savepoint_keeps_fully_finished_operators(tmp_path: Path) -> None:
    states = {
        "src": OperatorState("src", 1, 128, {}, "Source", fully_finished=True),
        "map": OperatorState("map", 2, 128, {}, "Map"),
    }
    path = write_savepoint(tmp_path / "sp", "job", 4, 60, states)
    _, read = read_savepoint(path)
    assert read["src"].fully_finished and not read["map"].fully_finished
