"""A vertex where only some subtasks FINISHED, under 1.20 (FLIP-147).

A checkpoint taken while subtask 0 of a parallel source has finished and subtask 1 still runs
records subtask 0 of the source's operators as ``FinishedOperatorSubtaskState``
(``DefaultCheckpointPlan.fulfillSubtaskStateForPartiallyFinishedOperators``), not as "no state".
Restored, such a subtask's operators start empty (``assignNonFinishedStateToTask``: only a fully
finished vertex is deployed FINISHED_ON_RESTORE), so a legacy source subtask runs again; and
``VertexFinishedStateChecker`` refuses a job graph whose partially finished vertex reads a
vertex that is not fully finished over an ALL_TO_ALL edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.flink_version import FLINK_VERSION_KEY
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import SourceFunction, StreamExecutionEnvironment
from pyflowkit.errors import FlinkRuntimeException
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint, write_savepoint
from pyflowkit.runtime.checkpoint.state_assignment import validate_operators_finished_state
from pyflowkit.runtime.checkpoint.task_state import (
    FinishedOperatorSubtaskState,
    OperatorState,
    is_finished_subtask_state,
)


class _ShortAndEndless(SourceFunction):
    """Subtask 0 emits three records and finishes; subtask 1 never ends (a parallel source)."""

    is_parallel = True

    def open(self, runtime_context: Any) -> None:
        self.index = runtime_context.get_index_of_this_subtask()

    def run(self, ctx: Any) -> Iterator[None]:
        index = self.index
        i = 0
        while index == 1 or i < 3:
            ctx.collect((f"s{index}", i))
            ctx.sleep(10)
            i += 1
            yield None

    def cancel(self) -> None:
        pass


def _job() -> Any:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    )
    env.set_parallelism(2)
    env.enable_checkpointing(100)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 10))
    env.add_source(_ShortAndEndless()).key_by(lambda e: e[0]).map(lambda e: e).print("out")
    run: Any = MiniCluster(echo_print=False, seed=1).submit(env, "partly-finished")
    return run


def test_a_finished_subtask_is_recorded_finished_and_restores_empty() -> None:
    run = _job()
    run.step(1500)
    store = run.checkpoint_coordinator.store
    latest = store.get_latest_checkpoint()
    source_vertex = run.job_graph.vertices[0]
    source_ops = {pair.generated_operator_id for pair in source_vertex.operator_ids}
    for op_id in source_ops:
        state = latest.operator_states[op_id]
        assert not state.fully_finished
        assert is_finished_subtask_state(state.subtask_states[0])
        assert not is_finished_subtask_state(state.subtask_states[1])
    run.fail_task("Source: Custom Source", 1, "boom")
    run.step(1500)
    run.cancel()
    restored = [e.message for e in run.trace if e.method == "StreamTask.restoreInternal"]
    assert not any("FINISHED_ON_RESTORE" in m for m in restored)  # not a fully finished vertex
    # the finished subtask 0 started empty and emitted its three records again
    s0 = [line for line in run.printed() if "'s0'" in line]
    assert len(s0) == 6, s0


def test_the_finished_subtasks_survive_a_savepoint(tmp_path: Any) -> None:
    states = {
        "src": OperatorState("src", 2, 128, {0: FinishedOperatorSubtaskState()}, "Source"),
    }
    path = write_savepoint(tmp_path / "sp", "job", 1, 0, states)
    _, read = read_savepoint(path)
    assert is_finished_subtask_state(read["src"].subtask_states[0])


def test_vertex_finished_state_checker() -> None:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, "1.20")
    )
    env.set_parallelism(2)
    env.from_collection([("a", 1)]).key_by(lambda e: e[0]).map(lambda e: e).print()
    graph = env.get_job_graph()
    source, consumer = graph.vertices
    mapping = {
        p.generated_operator_id: (jv, p.generated_operator_id)
        for jv in graph.vertices
        for p in jv.operator_ids
    }

    def states(source_state: str, consumer_partial: bool) -> dict[str, OperatorState]:
        out = {}
        for jv, state in (
            (source, source_state),
            (consumer, "partial" if consumer_partial else ""),
        ):
            for pair in jv.operator_ids:
                subs = {0: FinishedOperatorSubtaskState()} if state == "partial" else {}
                out[pair.generated_operator_id] = OperatorState(
                    pair.generated_operator_id, 2, 128, subs, fully_finished=state == "full"
                )
        return out

    validate_operators_finished_state(states("full", True), mapping, graph.vertices)
    with pytest.raises(FlinkRuntimeException) as refused:
        validate_operators_finished_state(states("", True), mapping, graph.vertices)
    assert str(refused.value) == (
        "Illegal JobGraph modification. Cannot run a program with partially finished vertices "
        "predeceased with running or partially finished ones and connected via the ALL_TO_ALL "
        f"edges. Task vertex {consumer.name}({consumer.id}) has a all running predecessor"
    )
