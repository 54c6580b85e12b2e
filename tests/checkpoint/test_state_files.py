"""Tagged JSON state codec, savepoint files, state assignment on rescale and uid mismatch."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from pyflowkit.common.types import Row
from pyflowkit.datastream.window import CountWindow, GlobalWindow, TimeWindow
from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.graph.job_graph import OperatorIDPair
from pyflowkit.runtime.checkpoint.savepoint import read_savepoint, write_savepoint
from pyflowkit.runtime.checkpoint.state_assignment import StateAssignmentOperation
from pyflowkit.runtime.checkpoint.task_state import OperatorState
from pyflowkit.state import state_codec
from pyflowkit.state.key_groups import assign_to_key_group
from pyflowkit.state.snapshot import OperatorSnapshot


def test_codec_round_trips_state_values_without_pickle() -> None:
    value = {
        ("a", 1): [TimeWindow(0, 10), CountWindow(3), GlobalWindow.get()],
        "row": Row(name="x", count=2),
        "set": {1, 2},
        "bytes": b"\x00\xff",
        "inf": float("inf"),
        None: (1, (2, 3)),
    }
    text = state_codec.dumps(value)
    json.loads(text)  # plain JSON
    back = state_codec.loads(text)
    assert back[("a", 1)] == [TimeWindow(0, 10), CountWindow(3), GlobalWindow.get()]
    assert back["row"] == Row(name="x", count=2) and back["row"]._fields == ["name", "count"]
    assert back["set"] == {1, 2} and back["bytes"] == b"\x00\xff"
    assert back["inf"] == float("inf") and back[None] == (1, (2, 3))


def test_codec_refuses_unknown_types_and_tags() -> None:
    class Acc:
        pass

    with pytest.raises(IllegalArgumentException, match="Acc have no JSON form.*inside a function"):
        state_codec.dumps({"x": Acc()})
    with pytest.raises(IllegalArgumentException, match="does not trust pickles"):
        state_codec.loads('{"@": "pickle", "v": "gASV"}')
    with pytest.raises(IllegalArgumentException, match="Unknown tag 'exec'"):
        state_codec.loads('{"@": "exec", "v": "gASV"}')


def keyed_snapshot(keys: list[str], max_p: int = 128) -> OperatorSnapshot:
    snap = OperatorSnapshot()
    for k in keys:
        kg = assign_to_key_group(k, max_p)
        entry = snap.keyed_state.setdefault(kg, {}).setdefault(
            "count", {"kind": "value", "entries": []}
        )
        entry["entries"].append([k, None, len(k)])
    return snap


def jv(vid: str, p: int, op_ids: list[OperatorIDPair]):
    return SimpleNamespace(id=vid, parallelism=p, max_parallelism=-1, operator_ids=op_ids)


KEYS = [f"key-{i}" for i in range(40)]


def test_savepoint_round_trip_and_rescale_2_to_3_and_3_to_1(tmp_path) -> None:
    from pyflowkit.state.key_groups import compute_key_group_range_for_operator_index as rng

    halves = [[k for k in KEYS if assign_to_key_group(k, 128) in rng(128, 2, i)] for i in range(2)]
    state = OperatorState("op1", 2, 128, {i: keyed_snapshot(halves[i]) for i in range(2)}, "Reduce")
    path = write_savepoint(tmp_path / "sp", "j" * 32, 7, 1234, {"op1": state})
    meta, states = read_savepoint(path)
    assert meta["checkpoint_id"] == 7 and states["op1"].parallelism == 2
    three = StateAssignmentOperation(states, [jv("v", 3, [OperatorIDPair("op1")])]).assign_states()
    got3 = {
        i: sorted(
            e[0]
            for kg in three[("v", i)]["op1"].keyed_state.values()
            for e in kg["count"]["entries"]
        )
        for i in range(3)
    }
    assert sorted(k for ks in got3.values() for k in ks) == sorted(KEYS)
    for i in range(3):
        assert all(assign_to_key_group(k, 128) in rng(128, 3, i) for k in got3[i])
    as3 = OperatorState("op1", 3, 128, {i: three[("v", i)]["op1"] for i in range(3)})
    one = StateAssignmentOperation(
        {"op1": as3}, [jv("v", 1, [OperatorIDPair("op1")])]
    ).assign_states()
    entries = [
        e[0] for kg in one[("v", 0)]["op1"].keyed_state.values() for e in kg["count"]["entries"]
    ]
    assert sorted(entries) == sorted(KEYS)


def test_unmapped_operator_state_fails_with_flinks_message_unless_allowed() -> None:
    state = {"gone": OperatorState("gone", 1, 128, {0: keyed_snapshot(["a"])})}
    vertices = [jv("v", 1, [OperatorIDPair("other")])]
    with pytest.raises(IllegalStateException) as err:
        StateAssignmentOperation(state, vertices, "file:/sp")
    assert str(err.value) == (
        "Failed to rollback to checkpoint/savepoint file:/sp. Cannot map checkpoint/savepoint "
        "state for operator gone to the new program, because the operator is not available in "
        "the new program. If you want to allow to skip this, you can set the "
        "--allowNonRestoredState option on the CLI."
    )
    op = StateAssignmentOperation(state, vertices, "file:/sp", allow_non_restored_state=True)
    assert op.skipped == ["gone"] and op.assign_states() == {}


def test_user_defined_operator_id_maps_to_generated_id() -> None:
    state = {"uidhash": OperatorState("uidhash", 1, 128, {0: keyed_snapshot(["a"])})}
    vertices = [jv("v", 1, [OperatorIDPair("generated", "uidhash")])]
    out = StateAssignmentOperation(state, vertices).assign_states()
    assert list(out[("v", 0)]) == ["generated"]


def test_operator_list_state_round_robin_and_union_on_rescale() -> None:
    def op_state(split, union):
        return OperatorSnapshot(
            operator_state={
                "split": {"mode": "SPLIT_DISTRIBUTE", "entries": split},
                "union": {"mode": "UNION", "entries": union},
            }
        )

    state = OperatorState("op", 2, 128, {0: op_state([1, 2, 3], ["u0"]), 1: op_state([4], ["u1"])})
    out = StateAssignmentOperation(
        {"op": state}, [jv("v", 3, [OperatorIDPair("op")])]
    ).assign_states()
    split = [out[("v", i)]["op"].operator_state["split"]["entries"] for i in range(3)]
    assert split == [[1, 2], [3], [4]]
    assert all(
        out[("v", i)]["op"].operator_state["union"]["entries"] == ["u0", "u1"] for i in range(3)
    )
