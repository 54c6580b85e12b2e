"""Keys Python finds equal but Flink tells apart are apart in the keyed state tables.

PyFlink 1.20 keys an undeclared key type by its pickled bytes (``1``, ``True``, ``1.0`` and a
``str`` subclass of ``"a"`` are four keys apart from ``"a"``); Java's ``keyBy`` (1.11) by
``equals`` of the key's Java value (a ``str`` subclass is its String). The tables hold such keys
as ``TypedKey``; users, snapshots and timers see the key the selector returned.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.java_semantics import TypedKey, java_state_key, plain_key, state_key
from pyflowkit.state import HeapKeyedStateBackend
from pyflowkit.state.java_hash import state_key_function
from pyflowkit.state.key_groups import KeyGroupRange


class Name(str):
    """A str subclass: Python-equal to its str; pickled apart from it."""


KEYS = [1, True, 1.0, 0, False, 0.0, "a", Name("a"), (1, "a"), (True, "a"), None, (2, "b")]


def backend(rule: Any) -> HeapKeyedStateBackend:
    b = HeapKeyedStateBackend(1, KeyGroupRange(0, 0))  # one key group holds every key
    b.state_key = rule
    return b


def counts(b: HeapKeyedStateBackend, keys: list[Any]) -> list[tuple[str, int]]:
    state = b.get_partitioned_state(ValueStateDescriptor("n"))
    out = []
    for key in keys:
        b.set_current_key(key)
        state.update((state.value() or 0) + 1)
        current = b.get_current_key()
        assert current is key or current == key and type(current) is type(key)
        out.append((f"{key!r}:{type(key).__name__}", state.value()))
    return out


def test_the_profiles_rules() -> None:
    assert state_key_function(True, None) is state_key
    assert state_key_function(False, None) is java_state_key
    for key in ("w", 7, (1, "x"), ("a", ("b", 2)), None):  # held as they are: the fast path
        assert state_key(key) is key and java_state_key(key) is key
    for key in (True, 1.0, (True, "a"), ((1.0,),), frozenset({False})):
        assert type(state_key(key)) is TypedKey and type(java_state_key(key)) is TypedKey
    assert type(state_key(Name("a"))) is TypedKey and java_state_key(Name("a")) == "a"
    assert state_key(True) != state_key(1) and state_key(True) == state_key(True)
    assert state_key(1.0) != 1 and plain_key(state_key(1.0)) == 1.0
    assert state_key(state_key(True)) == state_key(True) and repr(state_key(True)) == "True"


@pytest.mark.parametrize("rule", [state_key, java_state_key])
def test_python_equal_keys_have_their_own_state_in_one_key_group(rule: Any) -> None:
    b = backend(rule)
    got = dict(counts(b, KEYS + KEYS))  # each key counted twice, never with another's count
    name_apart = rule is state_key
    assert got.pop("'a':Name") == (2 if name_apart else 4)
    assert got.pop("'a':str") == (2 if name_apart else 3)  # (its last count: before Name's)
    assert set(got.values()) == {2}


def test_snapshot_shows_the_keys_and_restore_keeps_them_apart() -> None:
    b = backend(state_key)
    counts(b, KEYS)
    snap = b.snapshot()
    entries = snap[0]["n"]["entries"]
    assert sorted(repr(k) for k, _ns, _v in entries) == sorted(repr(k) for k in KEYS)
    assert all(type(k) is not TypedKey for k, _ns, _v in entries)
    restored = backend(state_key)
    restored.restore(snap)
    assert dict(counts(restored, KEYS)) == {f"{k!r}:{type(k).__name__}": 2 for k in KEYS}
    keys = list(restored.get_keys("n"))
    assert sorted(map(repr, keys)) == sorted(map(repr, KEYS))
    assert {type(k) for k in keys} == {type(k) for k in KEYS}
    assert sorted(map(repr, restored.dump()["n"])) == sorted(map(repr, KEYS))  # none merged
