"""The backend's key → key group cache and the state maps operators may hold on to."""

from __future__ import annotations

from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES, key_identity
from pyflowkit.state import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange, assign_to_key_group
from pyflowkit.state.time import VOID_NAMESPACE


def test_cache_keys_tell_apart_keys_java_hashes_differently() -> None:
    keys = [1, True, 1.0, (1, "a"), (True, "a"), ((1,),), ((True,),)]
    assert len({key_identity(k) for k in keys}) == len(keys)
    assert key_identity("a") == "a" and key_identity(7) == 7
    assert key_identity(True) != 1 and key_identity(1.0) != 1
    assert key_identity((1, "a")) == key_identity((1, "a"))  # equal keys: one identity
    assert [t for t in (str, int, bool, float, tuple) if t in SELF_IDENTIFYING_KEY_TYPES] == [
        str,
        int,
    ]


def test_current_key_group_follows_java_hash_not_python_equality() -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    for key in [1, True, 1.0, (1, "a"), (True, "a"), 1, True]:
        b.set_current_key(key)
        assert b.current_key_group == assign_to_key_group(key, 128), key
        assert b.key_group_of(key) == assign_to_key_group(key, 128)
    assert assign_to_key_group(1, 128) != assign_to_key_group(True, 128)


def test_void_namespace_map_survives_clear_window_namespaces_do_not() -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    b.set_current_key("k")
    kg = b.current_key_group
    held = state.table.namespace_map(kg, VOID_NAMESPACE)
    state.update(3)
    state.clear()
    assert held is state.table.namespace_map(kg, VOID_NAMESPACE)
    held["k"] = 4  # a write through the held map is the state's value
    assert state.value() == 4 and b.dump() == {"v": {"k": 4}}
    state.set_current_namespace("window-1")
    state.update(5)
    state.clear()
    assert "window-1" not in state.table.key_groups[kg]
    assert state.table.size() == 1
