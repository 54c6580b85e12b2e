"""Every state the operators of the pipeline catalog hold, at every step of a run, round-trips
through the savepoint codec (``state_codec``: the encoding ``write_savepoint`` uses)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from pyflowkit.runtime import MiniCluster
from pyflowkit.state import state_codec
from pyflowkit.state.snapshot import OperatorSnapshot
from tests.pipelines.catalog import CATALOG, build_env
from tests.pipelines.spec import STREAMING


def snapshots_now(run: Any, step: int) -> list[tuple[str, OperatorSnapshot]]:
    """What a checkpoint would write for every running task right now (``checkpointState``'s
    sync part: function states, then every chained operator's snapshot), without a barrier."""
    out = []
    for te in run.task_executors:
        for task in te.tasks.values():
            chain = getattr(task.invokable, "chain", None)
            if chain is None or task.state.value != "RUNNING":
                continue
            for op, snap in chain.snapshot_state(step, run.now).items():
                out.append((f"{task.name} / {op}", snap))
    return out


def value_types(data: Any, seen: Counter) -> None:
    seen[type(data).__name__] += 1
    if isinstance(data, dict):
        for k, v in data.items():
            value_types(k, seen)
            value_types(v, seen)
    elif isinstance(data, (list, tuple, set, frozenset)):
        for v in data:
            value_types(v, seen)
    elif hasattr(data, "value") and type(data).__name__ == "TimestampedValue":
        value_types(data.value, seen)


@pytest.mark.parametrize(
    "pipeline", [p for p in CATALOG if STREAMING in p.modes], ids=lambda p: p.name
)
def test_every_operator_state_round_trips_through_the_savepoint_codec(pipeline):
    run = MiniCluster(seed=0, echo_print=False).submit(build_env(pipeline, STREAMING))
    checked = 0
    while run.has_next():
        run.step()
        for where, snap in snapshots_now(run, run.steps_taken):
            data = snap.to_dict()
            text = json.dumps(state_codec.encode(data, where), sort_keys=True)
            back = OperatorSnapshot.from_dict(state_codec.decode(json.loads(text)))
            assert back == snap, where
            assert state_codec.dumps(back.to_dict()) == state_codec.dumps(data), where
            checked += 1
    assert checked > 0, "no running task was ever snapshotted"


# 1.11's count_window(3, 2): GlobalWindows + CountEvictor keeps TimestampedValues (1.20's
# CountSlidingWindowAssigner has no evictor)
@pytest.mark.flink_version("1.11")
def test_the_sliding_count_window_with_an_evictor_holds_timestamped_values():
    """The state that broke notebook 7's Savepoint button: an evictor's pane elements."""
    from pyflowkit.datastream.window import TimestampedValue

    (pipeline,) = [p for p in CATALOG if p.name == "count_window_3_2_sliding_evictor"]
    run = MiniCluster(seed=0, echo_print=False).submit(build_env(pipeline, STREAMING))
    seen: Counter = Counter()
    while run.has_next():
        run.step()
        for _, snap in snapshots_now(run, run.steps_taken):
            value_types(snap.to_dict(), seen)
    assert seen["TimestampedValue"] > 0
    value = TimestampedValue(("k", 8), None)
    assert state_codec.loads(state_codec.dumps(value)) == value
    stamped = state_codec.loads(state_codec.dumps([TimestampedValue(1.5, 42)]))
    assert stamped == [TimestampedValue(1.5, 42)] and stamped[0].get_timestamp() == 42


# 1.11's count_window(3, 2): GlobalWindows + CountEvictor keeps TimestampedValues (1.20's
# CountSlidingWindowAssigner has no evictor)
@pytest.mark.flink_version("1.11")
def test_savepoint_of_a_sliding_count_window_from_the_stepper_restores(tmp_path):
    """The Savepoint button on a count window with an evictor writes, reads and restores."""
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.runtime.checkpoint.savepoint import read_savepoint

    def job(env: Any) -> Any:
        env.set_parallelism(1)
        env.enable_checkpointing(60_000)
        (
            env.from_collection([("k", v) for v in range(100)])
            .uid("numbers")
            .key_by(lambda t: t[0])
            .count_window(3, 2)
            .reduce(lambda x, y: (x[0], x[1] + y[1]))
            .uid("windows")
            .print()
            .uid("print")
        )
        return env

    stepper = Stepper(job(StreamExecutionEnvironment.get_execution_environment()), submit=True)
    while set(stepper.states.values()) != {"RUNNING"}:
        stepper.step()
    stepper.step(30)
    stepper.run.trigger_savepoint(str(tmp_path))
    stepper.run_to("checkpoint")
    (row,) = stepper.checkpoints["history"]
    assert row["status"] == "COMPLETED" and row["is_savepoint"], row
    path = stepper.run.savepoint_path(row["id"])
    _, states = read_savepoint(path)
    window_entries = [
        entry
        for st in states.values()
        for snap in st.subtask_states.values()
        for per_group in snap.keyed_state.values()
        for state in per_group.values()
        for entry in state["entries"]
    ]
    assert any(type(v).__name__ == "TimestampedValue" for e in window_entries for v in e[2])
    restored = Stepper(
        job(StreamExecutionEnvironment.get_execution_environment()), savepoint_path=path
    )
    restored.submit()
    restored.run_to("end")
    assert restored.job_status == "FINISHED"
