"""What a user inspects of keyed state shows their keys as they gave them, told apart as the
state tables tell them: ``dump()`` (``JobRun.keyed_state``, the state pane), ``keyed_state_at``.
(The tables hold ``1``, ``True``, ``1.0`` and ``-0.0`` as ``TypedKey``s: never shown.)"""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.java_semantics import TypedKey, state_key
from pyflowkit.notebook.stepper_view_model import keyed_state_pane
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.predicates import job_finished
from pyflowkit.state import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.keyed_values import KeyedValues
from tests.runtime.test_pipelines import CountPerKey, env_p

KEYS = [1, True, 1.0, -0.0, 0.0, "s", (1, "a"), (True, "a"), [1, 2]]
COUNTS = {repr(k): i + 1 for i, k in enumerate(KEYS)}  # key i counted i + 1 times


def assert_users_keys(values: Any) -> None:
    assert sorted(map(repr, values)) == sorted(map(repr, KEYS))  # none merged
    assert all(type(k) is not TypedKey for k in values)
    assert {type(k).__name__ for k in values} >= {"int", "bool", "float", "str", "tuple"}
    for key in KEYS:  # each key finds its own count, not a Python-equal key's
        assert values[key] == COUNTS[repr(key)], key
    assert repr(values).count("TypedKey") == 0


def test_dump_shows_the_users_keys_apart() -> None:
    b = HeapKeyedStateBackend(1, KeyGroupRange(0, 0))
    state = b.get_partitioned_state(ValueStateDescriptor("n"))
    for key in KEYS:
        b.set_current_key(key)
        state.update(COUNTS[repr(key)])
    dumped = b.dump()["n"]
    assert_users_keys(dumped)
    same = KeyedValues(((k, COUNTS[repr(k)]) for k in KEYS), state_key)
    assert dumped == same and dumped != KeyedValues([(1, 1)]) and dumped != {1: 1, "s": 6}
    assert 2.0 not in dumped and dumped.get(1.0) == 3 and dumped.get(1) == 1


def counting_job() -> Any:
    env = env_p(1)
    env.enable_checkpointing(10)
    records = [k for i, k in enumerate(KEYS) for _ in range(i + 1)]
    env.from_collection(records).key_by(lambda k: k).process(CountPerKey()).add_sink(lambda _: None)
    return MiniCluster(echo_print=False, source_batch=4).submit(env)


def test_the_running_tasks_state_and_the_state_pane_show_the_users_keys() -> None:
    run = counting_job()
    run.run_until(lambda r: r.job_status.name == "RUNNING" and _counted(r) == len(KEYS))
    vertex = run.job_graph.vertices[-1]
    (values,) = run.keyed_state(vertex.name, 0)["KeyedProcess"].values()
    assert_users_keys(values)
    pane = keyed_state_pane(run, f"ev_{vertex.id}_0")
    shown = pane["KeyedProcess"]["count"]
    assert sorted(shown) == sorted(map(repr, KEYS)) and "TypedKey" not in str(pane)
    run.run_until(job_finished())


def _counted(run: Any) -> int:
    vertex = run.job_graph.vertices[-1]
    try:
        per = run.keyed_state(vertex.name, 0).get("KeyedProcess", {})
    except Exception:  # not running yet
        return 0
    values = per.get("count", {})
    return sum(1 for k in values if values[k] == COUNTS.get(repr(k)))


def test_keyed_state_at_shows_the_users_keys() -> None:
    run = counting_job()
    run.run_until(job_finished())
    frame = run.checkpoints_frame()
    last = int(frame[frame["status"] == "COMPLETED"]["id"].max())
    at = run.keyed_state_at(last, run.job_graph.vertices[-1])
    assert_users_keys(at["KeyedProcess"]["count"])
