"""The state size read from a snapshot's frozen maps equals the codec's length of its plain form,
byte for byte, and sizing leaves the snapshot frozen (materialised only when read)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.datastream.state import (
    ListStateDescriptor,
    MapStateDescriptor,
    ValueStateDescriptor,
)
from pyflowkit.datastream.window import TimeWindow
from pyflowkit.runtime.checkpoint.frozen_state_size import keyed_state_size, operator_snapshot_size
from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.state.state_codec import snapshot_size, state_size
from tests.state.test_copy_on_write import OPS as COW_OPS
from tests.state.test_copy_on_write import apply as cow_apply

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


LIST_STATES = st.dictionaries(
    st.sampled_from(["reader-position", "ü", 'q"', "s"]),
    st.fixed_dictionaries(
        {"mode": st.sampled_from(["SPLIT_DISTRIBUTE", "UNION"]), "entries": st.lists(PLAIN | OTHER)}
    ),
    max_size=3,
)


@given(LIST_STATES)
def test_operator_list_states_alone_size_as_the_codec_writes_them(states: dict) -> None:
    """A source's snapshot (its reader position, no keyed state): the same count as the codec's,
    whatever the entries (those the codec tags otherwise are left to it)."""
    snap = OperatorSnapshot(operator_state=copy.deepcopy(states))
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


def _sized(b: HeapKeyedStateBackend) -> tuple[OperatorSnapshot, int]:
    snap = OperatorSnapshot()
    snap.defer_keyed_state(b.begin_snapshot())
    return snap, operator_snapshot_size(snap)  # sized while frozen, as the async part does


def _five_thousand_words() -> tuple[HeapKeyedStateBackend, Any]:
    """A backend whose value state holds ("w{i}", i) for 5,000 keys: ~39 a key group, so not
    small (small key groups are measured whole)."""
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    state = b.get_partitioned_state(ValueStateDescriptor("count"))
    for i in range(5000):
        b.set_current_key(f"w{i}")
        state.update((f"w{i}", i))
    return b, state


@given(COW_OPS)
def test_sizing_only_changed_key_groups_keeps_the_exact_count(ops: list) -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    held: list[tuple[OperatorSnapshot, int]] = []
    for op, key, ns, n in ops:
        if op == "snapshot":
            held.append(_sized(b))
        elif op == "materialize" and held:
            snap, size = held.pop(n % len(held))
            assert size == state_size(snap.to_dict())  # materialised: may release the tables
        else:
            cow_apply(b, op, key, ns, n)
    for snap, size in held:
        assert size == state_size(snap.to_dict())


def test_a_checkpoint_after_few_writes_measures_only_their_key_groups(monkeypatch: Any) -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    b, state = _five_thousand_words()
    first, first_size = _sized(b)
    measured: list[int] = []
    entries_chars = frozen_state_size._entries_chars

    def counting(name: str, kind: str, key_groups: dict) -> Any:
        measured.append(len(key_groups))
        return entries_chars(name, kind, key_groups)

    monkeypatch.setattr(frozen_state_size, "_entries_chars", counting)
    table = b.tables["count"]
    table.namespace_maps(list(table.key_groups), None)  # every group copied, as keyed reduce does
    for word in ("w1", "w2", "w4999"):
        b.set_current_key(word)
        state.update((word, -1))
    b.set_current_key("new")
    state.update(("new", 0))
    second, second_size = _sized(b)
    assert max(measured) <= 4  # the changed key groups (copies holding the same objects are not)
    assert first_size == state_size(first.to_dict())
    assert second_size == state_size(second.to_dict()) != first_size


def test_key_groups_emptied_since_the_last_sizing_are_taken_off() -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    state = b.get_partitioned_state(ValueStateDescriptor("per-window"), TimeWindow(0, 10))
    for i in range(200):
        b.set_current_key(i)
        state.update([i, "x"])
    first, first_size = _sized(b)
    table = b.tables["per-window"]
    groups = len(table.key_groups)
    for i in range(0, 200, 40):  # the key group's only window map empties: the group goes
        b.set_current_key(i)
        for j in range(i, 200):
            if b.key_group_of(j) == b.current_key_group:
                b.set_current_key(j)
                state.clear()
        b.set_current_key(i)
    assert len(table.key_groups) < groups
    second, second_size = _sized(b)
    assert second_size == state_size(second.to_dict()) < first_size
    assert first_size == state_size(first.to_dict())


def test_maps_written_in_place_after_a_release_are_measured_again() -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    state = b.get_partitioned_state(ValueStateDescriptor("count"))
    for i in range(300):
        b.set_current_key(f"k{i}")
        state.update(i)
    first, first_size = _sized(b)
    assert first_size == state_size(first.to_dict())  # materialised: the table writes in place
    table = b.tables["count"]
    kg = b.key_group_of("k7")
    same = table.key_groups[kg]
    b.set_current_key("k7")
    state.update("a much longer value than before")
    assert table.key_groups[kg] is same  # changed in place: the same map objects
    second, second_size = _sized(b)
    assert second_size == state_size(second.to_dict()) > first_size


class _Name(str):
    """A str subclass: the codec writes it as a plain string."""


def test_str_subclasses_bools_and_int_subclasses_size_as_the_codec_writes_them() -> None:
    from enum import IntEnum

    class Level(IntEnum):
        LOW = 1

    writes = [
        ("value", _Name("k1"), None, (_Name("v"), 7)),
        ("value", "k2", None, (True, Level.LOW)),
        ("value", 3, None, [False, -12, 2**70]),
        ("list", _Name("k4"), "w", _Name('q"uote')),
    ]
    snap = frozen(writes)
    plain = snap.to_dict()
    assert operator_snapshot_size(snap) == snapshot_size(plain) == state_size(plain)
    for empty in (OperatorSnapshot(), frozen([])):
        assert operator_snapshot_size(empty) == state_size(empty.to_dict())


# ---- the measuring of keys and values, against the codec value by value ----

MIXED_ATOMS = st.one_of(
    ATOMS,
    st.integers(-300, 300),  # around the small ints counted on their bytes
    st.integers(),
    st.sampled_from([-0.0, 1e16, 1e-7, 2**64, -(2**70), True, False, "\x7f", "\ud800", "a\\b"]),
    st.text(st.characters(max_codepoint=0x7F), max_size=3),  # ASCII incl. control characters
)
RECORDS = st.one_of(
    st.lists(st.tuples(MIXED_ATOMS, MIXED_ATOMS), max_size=12),  # record-like: columns
    st.lists(st.tuples(st.text(max_size=3), st.integers(0, 255)), max_size=12),
    st.lists(st.tuples(st.text(max_size=3), st.integers(-(2**40), 2**40)), max_size=12),
    st.lists(st.tuples(MIXED_ATOMS, st.tuples(MIXED_ATOMS, MIXED_ATOMS)), max_size=8),
    st.lists(st.lists(MIXED_ATOMS, max_size=3), max_size=8),  # ragged lists
    st.lists(st.one_of(st.tuples(), st.tuples(MIXED_ATOMS), st.lists(MIXED_ATOMS)), max_size=8),
    st.lists(MIXED_ATOMS | PLAIN, max_size=12),
)


def _codec_chars(values: list[Any]) -> int:
    return sum(state_size(v) for v in values)


@given(RECORDS)
def test_values_measure_as_the_codec_writes_them_one_by_one(values: list[Any]) -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    assert frozen_state_size._items_chars(values) == _codec_chars(values)
    zip_max = frozen_state_size._ZIP_MAX
    frozen_state_size._ZIP_MAX = 0  # the columns a pass at a time, as for many records
    try:
        assert frozen_state_size._items_chars(values) == _codec_chars(values)
    finally:
        frozen_state_size._ZIP_MAX = zip_max


@given(st.lists(st.one_of(OTHER, st.builds(lambda v: (v, 1), OTHER)), min_size=1, max_size=4))
def test_values_the_codec_tags_otherwise_are_left_to_it(others: list[Any]) -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    for values in (others, [("a", 1), *others], [1, *others]):
        assert frozen_state_size._items_chars(values) is None


def test_ints_beyond_the_bytes_and_bools_among_them_count_as_json_writes_them() -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    for values in (
        [0, 9, 10, 99, 100, 255],
        [0, 9, 10, 99, 100, 255, 256],
        [-1, 5],
        [-1000, -999, -100, -99, -10, -9, -1, 0, 9, 10, 99, 100, 999, 1000, 10**18, -(10**18)],
        [True, 3, None, 2.5, False],
        [("w", 1), ("x", 300), ("y", -7)],
        [10**4300 - 1] * 2,
    ):
        assert frozen_state_size._items_chars(values) == _codec_chars(values)
    for tagged in ([float("inf")], [1.5, float("-inf")], [None, float("nan")], [("a", 1e999)]):
        assert frozen_state_size._items_chars(tagged) is None
    for beyond in ([10**4300, 1], [-(10**4300), 300], [("a", 10**4300)]):  # int → str refuses
        assert frozen_state_size._items_chars(beyond) is None


@given(st.lists(st.tuples(st.text(max_size=4), st.integers(0, 600)), min_size=1, max_size=40))
def test_a_word_count_snapshot_after_every_key_changed_sizes_exactly(counts: list) -> None:
    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    state = b.get_partitioned_state(ValueStateDescriptor("_op_state"))
    for word, count in counts:
        b.set_current_key(word)
        state.update((word, count))
    first, first_size = _sized(b)
    for word, count in counts:  # every key written again, as between two word-count checkpoints
        b.set_current_key(word)
        state.update((word, count + 250))
    second, second_size = _sized(b)
    assert first_size == state_size(first.to_dict())
    assert second_size == state_size(second.to_dict())


def test_the_same_text_again_keeps_its_escapes_whatever_the_split() -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    for values in (['a"b', "ü"], ['a"', "bü"], ['a"', "bü"], ["x"], ['a"', "b", "ü"], ["x"]):
        assert frozen_state_size._items_chars(values) == _codec_chars(values)


# writes between checkpoints on a state spread over every key group: (op, key, value)
ENTRY_WRITES = st.lists(
    st.lists(
        st.tuples(
            st.sampled_from(["put", "put", "mutate", "clear", "grouped"]),
            st.integers(0, 400),
            st.one_of(ATOMS, st.tuples(ATOMS, ATOMS), st.lists(ATOMS, max_size=2)),
        ),
        max_size=12,
    ),
    min_size=1,
    max_size=5,
)


@given(ENTRY_WRITES)
def test_sizing_only_changed_entries_keeps_the_exact_count(rounds: list) -> None:
    """A checkpoint after a few writes in many key groups (every group copied on write, as
    keyed reduce does; ~50 entries a group, so the copies and the sizing go entry by entry) is
    sized from the changed entries alone, and exactly, and holds the state as of its mark:
    replaced values, new keys, cleared keys and lists mutated in place."""
    b = HeapKeyedStateBackend(8, KeyGroupRange(0, 7))
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    for i in range(400):
        b.set_current_key(f"k{i}")
        state.update((f"k{i}", i) if i % 3 else [i])
    held = [(*_sized(b), copy.deepcopy(b.dump()["v"]))]
    for writes in rounds:
        table = b.tables["v"]
        table.namespace_maps(list(table.key_groups), None)  # every group copied
        for op, i, value in writes:
            b.set_current_key(f"k{i}")
            if op == "put":
                state.update(value)
            elif op == "mutate" and isinstance(state.value(), list):
                state.value().append(value)
            elif op == "clear":
                state.clear()
            elif op == "grouped":
                kg = b.checked_key_group(f"k{i}")
                table.namespace_map(kg, None)[f"k{i}"] = (i, value)
        held.append((*_sized(b), copy.deepcopy(b.dump().get("v", {}))))
    for snap, size, at_mark in held:
        assert size == state_size(snap.to_dict())
        entries = [e for states in snap.keyed_state.values() for e in states["v"]["entries"]]
        assert {key: value for key, _, value in entries} == at_mark


def test_a_checkpoint_after_one_write_per_key_group_measures_only_those_entries(
    monkeypatch: Any,
) -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    b, state = _five_thousand_words()
    first, first_size = _sized(b)
    measured: list[int] = []
    entries_chars = frozen_state_size._entries_chars

    def counting(name: str, kind: str, key_groups: dict) -> Any:
        measured.append(sum(len(m) for by_ns in key_groups.values() for m in by_ns.values()))
        return entries_chars(name, kind, key_groups)

    monkeypatch.setattr(frozen_state_size, "_entries_chars", counting)
    written = {}
    for i in range(5000):  # one key in every key group
        kg = b.key_group_of(f"w{i}")
        if kg not in written:
            written[kg] = i
            b.set_current_key(f"w{i}")
            state.update((f"w{i}", -i))
    assert len(written) == 128
    second, second_size = _sized(b)
    assert sum(measured) == 2 * 128  # each changed entry, as it was and as it is
    assert first_size == state_size(first.to_dict())
    assert second_size == state_size(second.to_dict()) != first_size


def test_small_key_groups_are_measured_whole_unless_few_changed(monkeypatch: Any) -> None:
    """Small key groups (~8 entries each) are measured whole when many changed since the last
    sizing, and only the changed ones when at most one in ``_FEW_CHANGED`` did (a checkpoint
    after writes to one key); the count is exact either way."""
    from pyflowkit.runtime.checkpoint import frozen_state_size

    b = HeapKeyedStateBackend(128, KeyGroupRange(0, 127))
    state = b.get_partitioned_state(ValueStateDescriptor("count"))
    for i in range(1000):  # ~8 a key group
        b.set_current_key(f"w{i}")
        state.update((f"w{i}", i))
    held = [_sized(b)]  # held: the table copies on write all along
    calls: list[str] = []
    changed = frozen_state_size._changed_chars
    monkeypatch.setattr(
        frozen_state_size, "_changed_chars", lambda *a: calls.append("changed") or changed(*a)
    )
    b.set_current_key("w1")
    state.update(("w1", -1))
    snap, size = _sized(b)
    assert calls == ["changed"] and size == state_size(snap.to_dict())
    held.append((snap, size))
    for i in range(0, 1000, 3):  # every key group
        b.set_current_key(f"w{i}")
        state.update((f"w{i}", -i))
    snap, size = _sized(b)
    assert calls == ["changed"] and size == state_size(snap.to_dict())


# rounds of a keyed reduce between checkpoints: (key, amount, per record?) records; amount 0
# clears the key (the reduce returns None), a per-record batch writes outside the undo logs
LOGGED_ROUNDS = st.lists(
    st.tuples(
        st.lists(
            st.tuples(
                st.one_of(st.integers(0, 300), st.sampled_from(["a", "b", "ü", 'q"'])),
                st.integers(0, 5),
            ),
            max_size=30,
        ),
        st.booleans(),
    ),
    min_size=1,
    max_size=6,
)


def _reduce_sized(rounds: list) -> list[tuple[int, int]]:
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    def add(a: tuple, b: tuple) -> tuple | None:
        return None if b[1] == 0 else (a[0], a[1] + b[1])

    factory = OperatorFactory("StreamGroupedReduce", params={"function": add})
    op, _ = harness(factory.create(), key=lambda v: v[0])
    # key groups of over 32 entries on average (smaller ones are measured whole)
    op.process_batch([(k, 1) for k in range(1000, 5500)], None)
    sizes = []
    previous = None
    for i, (records, per_record) in enumerate(rounds):
        if per_record:  # ValueState.update: not logged, so this checkpoint scans
            for r in records:
                op.keyed_state_backend.set_current_key(r[0])
                op.process_element(r, None)
        else:
            op.process_batch(records, None)
        snap = op.snapshot_state(i, 0)
        size = operator_snapshot_size(snap)  # sized while frozen, as the async part does
        if previous is not None:  # read (and released) once the next one is frozen
            sizes.append(previous)
        previous = (size, snap)
    sizes.append(previous)
    return [(size, state_size(snap.to_dict())) for size, snap in sizes]


@settings(max_examples=20)
@given(LOGGED_ROUNDS)
def test_a_keyed_reduce_sized_from_its_undo_logs_keeps_the_exact_count(rounds: list) -> None:
    """The keyed reduce logs the keys it writes; a checkpoint measures only their entries
    (replaced, added, cleared), and after unlogged writes (copy-on-write from then on) it
    scans: the count stays exact."""
    for size, exact in _reduce_sized(rounds):
        assert size == exact


def test_a_keyed_reduce_checkpoint_measures_only_the_logged_entries(monkeypatch: Any) -> None:
    from pyflowkit.runtime.checkpoint import frozen_state_size

    calls: list[int] = []
    undo = frozen_state_size._undo_chars

    def spy(*args: Any) -> Any:
        calls.append(len(args[5][0]))
        return undo(*args)

    monkeypatch.setattr(frozen_state_size, "_undo_chars", spy)
    monkeypatch.setattr(frozen_state_size, "_changed_chars", lambda *a: 1 / 0)
    many = [(k, 1) for k in range(2000)]  # more keys in every key group
    rounds = [(many, False), ([(5, 2), (7, 0), (5, 1), ("new", 3)], False), ([(9, 4)], False)]
    for size, exact in _reduce_sized(rounds):
        assert size == exact
    assert calls == [3, 1]  # the keys written since the last checkpoint, each once


def test_a_keyed_reduce_logs_nothing_without_snapshots_and_keeps_only_the_logs_it_needs() -> None:
    """Without a snapshot held the keyed reduce records nothing (a job without checkpoints
    keeps no log); with snapshots, a log lives while a snapshot up to its mark is held."""
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    factory = OperatorFactory("StreamGroupedReduce", params={"function": lambda a, b: a})
    op, _ = harness(factory.create(), key=lambda v: v[0])
    table = op._state.table
    for start in range(0, 5000, 400):
        op.process_batch([(k, 1) for k in range(start, start + 400)], None)
        assert table.undo is None and table.undo_mode
    snaps = [op.snapshot_state(1, 0)]
    assert snaps[0].pending_keyed_state.frozen_tables()[0][1].changes is None  # checked whole
    for i in range(2, 6):
        op.process_batch([(7, 2), (5000 + i, 1)], None)
        snaps.append(op.snapshot_state(i, 0))
        assert len(table.undo) == 0 and sorted(table._undo_logs) == list(range(1, i + 1))
    assert snaps[-1].pending_keyed_state.frozen_tables()[0][1].changes[0] == [7, 5005]
    for snap in snaps[:-1]:
        assert operator_snapshot_size(snap) == state_size(snap.to_dict())  # read: released
    assert sorted(table._undo_logs) == [5]  # only the last mark's interval is still needed
    assert operator_snapshot_size(snaps[-1]) == state_size(snaps[-1].to_dict())
    assert table._undo_logs == {} and table.undo is None  # nothing held: nothing logged
    del snaps


# steps of a keyed reduce whose snapshots are undo views: ("batch", records) through the batch
# loop, ("record", records) through ValueState (unlogged), ("snapshot", n) a snapshot sized at
# once, ("read", n) / ("drop", n) the n-th held snapshot materialised or dropped unread
UNDO_KEYS = st.one_of(st.integers(0, 40), st.sampled_from(["a", "b", "ü", 'q"', "w1"]))
UNDO_STEPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("batch"),
            st.lists(st.tuples(UNDO_KEYS, st.integers(0, 4)), max_size=20),
        ),
        st.tuples(
            st.just("record"),
            st.lists(st.tuples(UNDO_KEYS, st.integers(0, 4)), max_size=3),
        ),
        st.tuples(
            st.just("mixed"),
            st.lists(
                st.tuples(st.sampled_from([2.5, 3.5, ("t", 1)]), st.integers(1, 4)), max_size=2
            ),
        ),
        st.tuples(st.sampled_from(["snapshot", "read", "drop"]), st.integers(0, 5)),
    ),
    max_size=25,
)


@settings(max_examples=100)
@given(UNDO_STEPS, st.booleans(), st.sampled_from(["undo", "copy", "switch"]))
def test_undo_views_read_and_size_as_the_state_at_their_marks(
    steps: list, big: bool, kind: str
) -> None:
    """Every snapshot, held alongside others and released in any order, reads as the state at
    its mark and is sized exactly, through pops, unlogged writes and keys of other types; with
    undo logs at every mark, copy-on-write from the first mark, or the table switching between
    them as it grows and shrinks past the thresholds (``StateTable.choose_snapshot_kind``)."""
    from pyflowkit.state import heap_keyed_state_backend as h

    seed = 300 if big else 5
    lines = {"undo": (0, 0), "copy": (10**9, 10**9), "switch": (seed + 8, seed + 16)}[kind]
    saved = h.COPY_ON_WRITE_BELOW, h.UNDO_LOG_FROM
    h.COPY_ON_WRITE_BELOW, h.UNDO_LOG_FROM = lines
    try:
        _undo_views_at_their_marks(steps, seed)
    finally:
        h.COPY_ON_WRITE_BELOW, h.UNDO_LOG_FROM = saved


def _undo_views_at_their_marks(steps: list, seed_keys: int) -> None:
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    def add(a: tuple, b: tuple) -> tuple | None:
        return None if b[1] == 0 else (a[0], a[1] + b[1])

    factory = OperatorFactory("StreamGroupedReduce", params={"function": add})
    op, _ = harness(factory.create(), key=lambda v: v[0])
    state: dict[Any, Any] = {}

    def model(records: list) -> None:
        for r in records:
            current = state.get(r[0])
            new = r if current is None else add(current, r)
            if new is None:
                state.pop(r[0], None)
            else:
                state[r[0]] = new

    seed = [(f"s{i}", 1) for i in range(seed_keys)]
    op.process_batch(seed, None)
    model(seed)
    held: list[tuple[Any, int, dict]] = []
    for i, (what, arg) in enumerate(steps):
        if what in ("batch", "mixed"):
            op.process_batch(arg, None)
            model(arg)
        elif what == "record":
            for r in arg:
                op.keyed_state_backend.set_current_key(r[0])
                op.process_element(r, None)
            model(arg)
        elif what == "snapshot":
            snap = op.snapshot_state(i, 0)
            held.append((snap, operator_snapshot_size(snap), dict(state)))
        elif held:
            snap, size, at_mark = held.pop(arg % len(held))
            if what == "read":
                assert size == state_size(snap.to_dict())
                assert {
                    e[0]: e[2]
                    for per in snap.keyed_state.values()
                    for e in per["_op_state"]["entries"]
                } == at_mark
            del snap
    for snap, size, at_mark in held:
        assert size == state_size(snap.to_dict())
        got = {e[0]: e[2] for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]}
        assert got == at_mark
