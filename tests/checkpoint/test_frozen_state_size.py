"""The state size read from a snapshot's frozen maps equals the codec's length of its plain form,
byte for byte, and sizing leaves the snapshot frozen (materialised only when read)."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.datastream.state import (
    ListStateDescriptor,
    MapStateDescriptor,
    ValueStateDescriptor,
)
from pyflowkit.datastream.window import TimeWindow
from pyflowkit.runtime.checkpoint.frozen_state_size import keyed_state_size, operator_snapshot_size
from pyflowkit.runtime.checkpoint.state_codec import snapshot_size, state_size
from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.snapshot import OperatorSnapshot

ATOMS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
    st.sampled_from(["ü", '"q"', "back\\slash", "\n", "\u2028"]),
)
# values the fast path reads (atoms, tuples and lists of them, nested) …
PLAIN = st.recursive(
    ATOMS, lambda inner: st.tuples(inner, inner) | st.lists(inner, max_size=3), max_leaves=6
)
# … and values only the materialising path can size (tags other than tuple, non-finite floats)
OTHER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda f: f != f or abs(f) == 1e999),
    st.binary(max_size=2),
    st.dictionaries(st.integers(0, 3), ATOMS, max_size=2),
    st.builds(TimeWindow, st.integers(0, 9), st.integers(10, 20)),
    st.frozensets(st.integers(0, 3), max_size=2),
)
KEYS = st.one_of(
    st.text(max_size=3), st.integers(-(2**40), 2**40), st.tuples(st.text(max_size=2), st.integers())
)
NAMESPACES = st.sampled_from([None, None, "w", 3, TimeWindow(0, 10)])
WRITES = st.lists(
    st.tuples(st.sampled_from(["value", "list", "map"]), KEYS, NAMESPACES, PLAIN | OTHER),
    max_size=25,
)


def frozen(writes: list[tuple[str, Any, Any, Any]]) -> OperatorSnapshot:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    for kind, key, ns, value in writes:
        b.set_current_key(key)
        if value is None:
            continue
        if kind == "value":
            b.get_partitioned_state(ValueStateDescriptor("value"), ns).update(value)
        elif kind == "list":
            b.get_partitioned_state(ListStateDescriptor("list"), ns).add(value)
        else:
            b.get_partitioned_state(MapStateDescriptor("map"), ns).put(str(key)[:1], value)
    snap = OperatorSnapshot(operator_state={"s": {"mode": "UNION", "entries": [1, (2, "x")]}})
    snap.defer_keyed_state(b.begin_snapshot())
    snap.timers = {5: [["window-timers", "event", 9, "k", None]]}
    return snap


@given(WRITES)
def test_the_frozen_size_is_the_codec_length_of_the_plain_form(writes: list) -> None:
    snap = frozen(writes)
    size = operator_snapshot_size(snap)
    plain = snap.to_dict()
    assert size == snapshot_size(plain) == state_size(plain)


@given(st.lists(st.tuples(st.sampled_from(["value", "list", "map"]), KEYS, NAMESPACES, PLAIN)))
def test_plain_state_is_sized_without_materialising(writes: list) -> None:
    snap = frozen(writes)
    tables = snap.pending_keyed_state.frozen_tables()
    assert keyed_state_size(tables) is not None
    size = operator_snapshot_size(snap)
    assert snap.pending_keyed_state is not None  # still frozen: nothing serialised yet
    assert size == state_size(snap.to_dict())
    assert snap.pending_keyed_state is None  # read: materialised


def test_other_tags_take_the_materialising_path_with_the_same_count() -> None:
    snap = frozen([("value", "a", None, ("a", 1)), ("value", "b", None, {"x": b"\x00"})])
    assert keyed_state_size(snap.pending_keyed_state.frozen_tables()) is None
    assert operator_snapshot_size(snap) == state_size(snap.to_dict())


def test_an_empty_keyed_state_counts_the_empty_dict() -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    b.set_current_key("a")
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    state.update(1)
    state.clear()  # the void namespace's map stays, empty
    snap = OperatorSnapshot()
    snap.defer_keyed_state(b.begin_snapshot())
    assert operator_snapshot_size(snap) == state_size(snap.to_dict())
    assert snap.keyed_state == {}
