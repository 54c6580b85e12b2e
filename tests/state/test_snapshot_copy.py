"""Snapshots of the heap backend share no mutable state with the live tables."""

from __future__ import annotations

from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend, StateTable
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.operator_state_backend import OperatorStateBackend
from pyflowkit.state.state_codec import decode, encode


def _backend() -> HeapKeyedStateBackend:
    backend = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    backend.tables["v"] = StateTable("v", "value")
    backend.tables["m"] = StateTable("m", "map")
    return backend


def test_mutating_state_after_snapshot_leaves_snapshot_unchanged() -> None:
    backend = _backend()
    live = {"xs": [1, 2], "t": (1, [3])}
    live_map = {"k": [5]}
    backend.tables["v"].put(3, None, "a", live)
    backend.tables["v"].put(3, None, ("b", 1), 7)
    backend.tables["m"].put(3, None, "a", live_map)
    snap = backend.snapshot()
    live["xs"].append(3)
    live["t"][1].append(4)
    live_map["k"].append(6)
    live_map["new"] = [0]
    entries = snap[3]["v"]["entries"]
    assert entries == [["a", None, {"xs": [1, 2], "t": (1, [3])}], [("b", 1), None, 7]]
    assert snap[3]["m"]["entries"] == [["a", None, [["k", [5]]]]]


def test_snapshot_restores_to_equal_state() -> None:
    backend = _backend()
    backend.tables["v"].put(5, None, "x", [1.5, b"z", None, True])
    backend.tables["m"].put(5, None, "x", {("a", 2): {"n": 1}})
    other = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    other.restore(decode(encode(backend.snapshot())))
    assert other.tables["v"].get(5, None, "x") == [1.5, b"z", None, True]
    assert other.tables["m"].get(5, None, "x") == {("a", 2): {"n": 1}}


def test_codec_fast_path_keeps_tags() -> None:
    value = [1, "s", True, None, 2.5, (1, 2), [float("inf")], {1: "a"}]
    encoded = encode(value)
    assert encoded[:5] == [1, "s", True, None, 2.5]
    assert encoded[5] == {"@": "tuple", "v": [1, 2]}
    assert encoded[6] == [{"@": "float", "v": "inf"}]
    assert encoded[7] == {"@": "dict", "v": [[1, "a"]]}
    assert decode(encoded) == value


def test_a_list_value_of_atoms_is_copied_and_nested_lists_deep_copied() -> None:
    backend = _backend()
    flat, nested = [1, "a", None], [1, [2]]
    backend.tables["v"].put(7, None, "flat", flat)
    backend.tables["v"].put(7, None, "nested", nested)
    snap = backend.snapshot()
    flat.append(9)
    nested[1].append(3)
    assert snap[7]["v"]["entries"] == [["flat", None, [1, "a", None]], ["nested", None, [1, [2]]]]


def test_operator_list_state_snapshots_share_no_list_with_the_live_state() -> None:
    backend = OperatorStateBackend()
    positions = backend.get_list_state("reader-position")
    positions.add(41)
    nested = backend.get_union_list_state("nested")
    nested.add([1])
    snap = backend.snapshot()
    positions.add(42)
    nested.get()[0].append(2)
    assert snap == {
        "reader-position": {"mode": "SPLIT_DISTRIBUTE", "entries": [41]},
        "nested": {"mode": "UNION", "entries": [[1]]},
    }
