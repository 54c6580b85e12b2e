"""Copy-on-write snapshots: a snapshot is a version mark; what it serialises later is the state
as of the mark, whatever the operator did in between (Flink's ``CopyOnWriteStateTable``)."""

from __future__ import annotations

import copy
import gc
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.datastream.state import (
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    ValueStateDescriptor,
)
from pyflowkit.java_semantics import plain_key, state_key
from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange

KEYS = st.sampled_from(["a", "b", "c", 1, True, 1.0, (2, "x")])
NAMESPACES = st.sampled_from([None, "w1", "w2"])


def backend() -> HeapKeyedStateBackend:
    return HeapKeyedStateBackend(128, KeyGroupRange(0, 127))


def reference(b: HeapKeyedStateBackend) -> dict[int, dict[str, dict]]:
    """The state right now as a snapshot shows it, deep-copied (the eager way)."""
    out: dict[int, dict[str, dict[str, Any]]] = {}
    for name, table in b.tables.items():
        for kg, ns, key, value in table.entries():
            if table.kind == "map":
                value = [[k, v] for k, v in value.items()]
            per = out.setdefault(kg, {}).setdefault(name, {"kind": table.kind, "entries": []})
            per["entries"].append(copy.deepcopy([plain_key(key), ns, value]))
    return {kg: out[kg] for kg in sorted(out)}


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("value"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("value_list"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("mutate"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("list"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("map"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("reduce"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("clear"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("grouped"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("snapshot"), KEYS, NAMESPACES, st.integers(0, 9)),
        st.tuples(st.just("materialize"), KEYS, NAMESPACES, st.integers(0, 9)),
    ),
    max_size=60,
)


def apply(b: HeapKeyedStateBackend, op: str, key: Any, ns: Any, n: int) -> None:
    value = b.get_partitioned_state(ValueStateDescriptor("v"), ns)
    lists = b.get_partitioned_state(ListStateDescriptor("l"), ns)
    maps = b.get_partitioned_state(MapStateDescriptor("m"), ns)
    reducing = b.get_partitioned_state(ReducingStateDescriptor("r", lambda x, y: x + y), ns)
    b.set_current_key(key)
    if op == "value":
        value.update(n)
    elif op == "value_list":
        value.update([n])
    elif op == "mutate":  # a user mutating a state object in place without update()
        current = value.value()
        if isinstance(current, list):
            current.append(n)
        m = maps.get("k")
        if isinstance(m, list):
            m.append(n)
    elif op == "list":
        lists.add(n)
    elif op == "map":
        maps.put(n % 3, n)
        if n % 2:
            maps.put("k", [n])
    elif op == "reduce":
        reducing.add(n)
    elif op == "clear":
        for s in (value, lists, maps, reducing):
            s.clear()
    elif op == "grouped":
        kg = b.checked_key_group(key)
        held = state_key(key)  # the grouped fold takes keys as the state tables hold them
        reducing.add_grouped([(held, kg, ns, [n, n + 1])])
        lists.add_grouped([(held, kg, ns, [n])])


@given(OPS)
def test_every_snapshot_serialises_the_state_as_of_its_mark(ops: list) -> None:
    b = backend()
    pending: list[tuple[Any, Any]] = []  # (snapshot, reference at its mark)
    for op, key, ns, n in ops:
        if op == "snapshot":
            pending.append((b.begin_snapshot(), reference(b)))
        elif op == "materialize" and pending:
            snap, expected = pending.pop(n % len(pending))
            assert snap.materialize() == expected
        else:
            apply(b, op, key, ns, n)
    for snap, expected in pending:
        assert snap.materialize() == expected
    assert b.snapshot() == reference(b)


def test_mark_copies_nothing_and_first_write_gives_the_snapshot_a_copy() -> None:
    b = backend()
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    for k in range(1000):
        b.set_current_key(k)
        state.update([k])
    table = b.tables["v"]
    b.set_current_key(5)
    kg = b.current_key_group
    before_ns = table.key_groups[kg]
    before = before_ns[None]
    snap = b.begin_snapshot()
    view = snap.frozen_tables()[0][1]
    assert table.key_groups[kg] is before_ns and view[kg] is before_ns  # the mark copied nothing
    state.value().append("after")  # the snapshot gets its copy on first access, then mutate
    assert table.key_groups[kg][None] is before and before[5] == [5, "after"]  # live map kept
    assert view[kg] is before_ns and table.key_groups[kg] is not before_ns
    assert before_ns[None] is not before and before_ns[None][5] == [5]  # the view's own copy
    materialised = snap.materialize()
    assert [5, None, [5]] in materialised[kg]["v"]["entries"]
    again = table.key_groups[kg]
    state.update(["x"])  # released: writes go in place again
    assert table.key_groups[kg] is again and again[None] is before


def test_overlapping_snapshots_and_a_dropped_one_release_their_tables() -> None:
    b = backend()
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    b.set_current_key("a")
    state.update(1)
    first = b.begin_snapshot()
    state.update(2)
    second = b.begin_snapshot()
    state.update(3)
    entries = lambda snap: [e for per in snap.values() for e in per["v"]["entries"]]  # noqa: E731
    assert entries(second.materialize()) == [["a", None, 2]]
    table = b.tables["v"]
    assert table._owned is not None  # the first snapshot still holds its maps
    assert entries(first.materialize()) == [["a", None, 1]]
    assert table._owned is None
    dropped = b.begin_snapshot()
    assert table._owned is not None
    del dropped
    gc.collect()
    assert table._owned is None  # collected without being serialised: released


def test_keyed_reduce_cached_maps_never_write_into_a_snapshot() -> None:
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    factory = OperatorFactory("StreamGroupedReduce", params={"function": lambda a, b: a + b})
    op, out = harness(factory.create(), key=lambda v: "k" if v < 100 else 7)
    op.process_batch([1, 2, 100], None)
    snap = op.snapshot_state(1, 0)
    op.process_batch([10, 20, 200], None)
    entries = sorted(
        (e for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]), key=str
    )
    assert entries == [["k", None, 3], [7, None, 100]]
    now = op.keyed_state_backend.snapshot()
    assert sorted((e for per in now.values() for e in per["_op_state"]["entries"]), key=str) == [
        ["k", None, 33],
        [7, None, 300],
    ]


def test_keyed_reduce_re_points_every_cached_key_after_each_snapshot() -> None:
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    factory = OperatorFactory("StreamGroupedReduce", params={"function": lambda a, b: a + b})
    keys = [f"w{i}" for i in range(300)] + list(range(300))  # str and int caches, many key groups
    op, _ = harness(factory.create(), key=lambda v: keys[v % len(keys)])
    expected: dict[Any, int] = {}
    snaps = []
    for round_ in range(4):
        batch = [i * 7 % 1000 + round_ for i in range(900)]
        op.process_batch(batch, None)
        for v in batch:
            k = keys[v % len(keys)]
            expected[k] = expected.get(k, 0) + v
        snaps.append((op.snapshot_state(round_, 0), dict(expected)))
    for snap, at_mark in snaps:  # each snapshot read after later batches wrote on
        got = {e[0]: e[2] for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]}
        assert got == at_mark
    live = op.keyed_state_backend.snapshot()
    assert {e[0]: e[2] for per in live.values() for e in per["_op_state"]["entries"]} == expected


def test_namespace_maps_copies_each_frozen_key_group_once_for_the_snapshot() -> None:
    b = backend()
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    for k in range(50):
        b.set_current_key(k)
        state.update([k])
    table = b.tables["v"]
    kgs = sorted(table.key_groups)
    before = {kg: table.key_groups[kg][None] for kg in kgs}
    snap = b.begin_snapshot()
    view = snap.frozen_tables()[0][1]
    empty = min(set(range(128)) - set(kgs))  # a key group without state yet
    maps = table.namespace_maps([*kgs, empty], None)
    assert all(m is before[kg] for kg, m in zip(kgs, maps, strict=False))  # the live maps kept
    assert all(view[kg][None] is not before[kg] and view[kg][None] == before[kg] for kg in kgs)
    assert empty not in view and maps[-1] == {} and table.key_groups[empty][None] is maps[-1]
    copies = {kg: view[kg][None] for kg in kgs}
    assert all(x is y for x, y in zip(table.namespace_maps(kgs, None), maps, strict=False))
    assert all(view[kg][None] is copies[kg] for kg in kgs)  # owned now: not copied again
    maps[0][next(iter(maps[0]))].append("after")  # values were deep-copied: the mark holds
    materialised = snap.materialize()
    assert all(len(e[2]) == 1 for per in materialised.values() for e in per["v"]["entries"])


def test_namespace_maps_copies_every_namespace_of_a_key_group_to_its_own_place() -> None:
    """Key groups copied together keep each namespace's map under its namespace; a mutable
    value anywhere among them is deep-copied, immutable ones are shared."""
    b = backend()
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    for k in range(40):
        b.set_current_key(k)
        for ns in (None, "w1", "w2")[: 1 + k % 3]:
            state.set_current_namespace(ns)
            state.update((k, str(ns)) if k != 7 else [k, ns])  # one list value among tuples
    table = b.tables["v"]
    kgs = sorted(table.key_groups)
    live = {kg: dict(table.key_groups[kg]) for kg in kgs}
    snap = b.begin_snapshot()
    table.namespace_maps(kgs, None)
    view = snap.frozen_tables()[0][1]
    for kg in kgs:
        assert table.key_groups[kg] == view[kg] and list(view[kg]) == list(live[kg])
        for ns, m in table.key_groups[kg].items():
            assert m is live[kg][ns] and view[kg][ns] is not m
            for key, value in m.items():
                shared = value is view[kg][ns][key]
                assert shared == (type(value) is tuple), (kg, ns, key)
    b.set_current_key(7)
    state.set_current_namespace(None)
    state.value().append("after")
    frozen = snap.materialize()
    assert [7, None, [7, None]] in [e for per in frozen.values() for e in per["v"]["entries"]]


def test_a_key_group_shared_by_several_snapshots_is_copied_once_for_all_of_them() -> None:
    b = backend()
    state = b.get_partitioned_state(ValueStateDescriptor("v"))
    b.set_current_key("a")
    state.update(["a"])
    first = b.begin_snapshot()
    second = b.begin_snapshot()  # nothing accessed in between: both share the maps
    views = [s.frozen_tables()[0][1] for s in (first, second)]
    kg = b.current_key_group
    assert views[0][kg] is views[1][kg] is b.tables["v"].key_groups[kg]
    state.value().append("b")  # one copy, handed to both views
    live = b.tables["v"].key_groups[kg]
    assert views[0][kg] is views[1][kg] is not live and views[0][kg][None]["a"] == ["a"]
    third = b.begin_snapshot()
    state.value().append("c")
    view = third.frozen_tables()[0][1]
    assert view[kg] is live is not b.tables["v"].key_groups[kg]
    entries = lambda snap: [e for per in snap.values() for e in per["v"]["entries"]]  # noqa: E731
    assert entries(third.materialize()) == [["a", None, ["a", "b"]]]
    assert entries(first.materialize()) == entries(second.materialize()) == [["a", None, ["a"]]]
    assert b.dump() == {"v": {"a": ["a", "b", "c"]}}


class Counter:
    """A mutable accumulator a user's reduce updates in place."""

    def __init__(self, word: str, n: int) -> None:
        self.word, self.n, self.seen = word, n, [n]

    def __deepcopy__(self, memo: dict) -> Counter:
        c = Counter(self.word, self.n)
        c.seen = list(self.seen)
        return c


def add_in_place(acc: Any, value: Any) -> Any:
    """A reduce that mutates its accumulator (a list or an object) and returns it."""
    if isinstance(acc, list):
        acc[1] += value[1]
        acc.append(value[1])
        return acc
    acc.n += value.n
    acc.seen.append(value.n)
    return acc


def plain(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    return (value.word, value.n, list(value.seen))


ROUNDS = st.lists(
    st.lists(st.tuples(st.sampled_from(["a", "b", "w7", "w9"]), st.integers(1, 5))),
    min_size=1,
    max_size=6,
)


def model(expected: dict[Any, Any], key: str, n: int, objects: bool) -> None:
    """What ``add_in_place`` leaves as a key's state, in plain form."""
    acc = expected.get(key)
    if objects:
        expected[key] = (key, n, [n]) if acc is None else (key, acc[1] + n, [*acc[2], n])
    else:
        expected[key] = [key, n] if acc is None else [key, acc[1] + n, *acc[2:], n]


def state_of(snapshot: dict) -> dict[Any, Any]:
    return {e[0]: plain(e[2]) for per in snapshot.values() for e in per["_op_state"]["entries"]}


@given(ROUNDS, st.booleans(), st.integers(0, 3))
def test_keyed_reduce_mutating_its_accumulator_in_place_keeps_every_checkpoint_exact(
    rounds: list, objects: bool, keep: int
) -> None:
    """Batches through a reduce that mutates its state in place, a snapshot after each, the
    oldest materialised (released) on the way: each snapshot holds the state as of its mark."""
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    factory = OperatorFactory("StreamGroupedReduce", params={"function": add_in_place})
    op, _ = harness(factory.create(), key=lambda v: v[0] if isinstance(v, list) else v.word)
    expected: dict[Any, Any] = {}
    pending: list[tuple[Any, dict]] = []
    for i, batch in enumerate(rounds):
        op.process_batch([Counter(k, n) if objects else [k, n] for k, n in batch], None)
        for k, n in batch:
            model(expected, k, n, objects)
        pending.append((op.snapshot_state(i, 0), copy.deepcopy(expected)))
        if len(pending) > keep:
            snap, at_mark = pending.pop(0)
            assert state_of(snap.keyed_state) == at_mark
    for snap, at_mark in pending:
        assert state_of(snap.keyed_state) == at_mark
    assert state_of(op.keyed_state_backend.snapshot()) == expected


def test_keyed_reduce_keeps_its_cached_maps_across_snapshots() -> None:
    """The snapshot takes the copies: the maps the operator caches stay the live ones."""
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    factory = OperatorFactory("StreamGroupedReduce", params={"function": lambda a, b: a + b})
    keys = [f"w{i}" for i in range(100)] + list(range(100))
    op, _ = harness(factory.create(), key=lambda v: keys[v % len(keys)])
    op.process_batch(list(range(200)), None)
    cached = dict(op._kg_maps)
    table = op.keyed_state_backend.tables["_op_state"]
    for round_ in range(3):
        snap = op.snapshot_state(round_, 0)
        op.process_batch(list(range(200)), None)
        assert op._kg_maps == cached and all(m is cached[kg] for kg, m in op._kg_maps.items())
        assert all(table.key_groups[kg][None] is m for kg, m in cached.items())
        got = {e[0]: e[2] for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]}
        assert got == {k: (round_ + 1) * i for i, k in enumerate(keys)}


ATOM = st.one_of(st.integers(), st.text(max_size=3), st.none(), st.booleans(), st.floats())
VALUE = st.one_of(
    ATOM,
    st.tuples(ATOM, ATOM),
    st.tuples(ATOM, ATOM, ATOM),
    st.lists(ATOM, max_size=2),
    st.tuples(ATOM, st.lists(ATOM, max_size=2)),
    st.tuples(ATOM, st.builds(lambda n: Counter("c", n), st.integers())),
)


@given(st.lists(st.dictionaries(st.integers(0, 20), VALUE, max_size=6), max_size=5))
def test_copied_maps_share_only_deeply_immutable_values(maps: list) -> None:
    """``_copy_maps``: the same entries; a value is shared only if it is an atom or a tuple of
    atoms, anything holding a list or an object is a deep copy."""
    from pyflowkit.state.heap_keyed_state_backend import _copy_maps

    for m in maps:  # big enough to be checked value by value against the last copy
        m.update({100 + j: (j, "pad") for j in range(40)})
    verified: dict = {}
    copies = _copy_maps(maps, verified)
    _assert_deep_where_mutable(maps, copies)
    # copied again after writes (a value replaced, one added, a list mutated in place): the
    # values seen before are not checked again, and the copies still share only immutable ones
    for i, m in enumerate(maps):
        for key, value in list(m.items())[:2]:
            m[key] = [value] if i % 2 else (key, "x")
        m[99] = (i, "new")
        for value in m.values():
            if type(value) is list:
                value.append(i)
    _assert_deep_where_mutable(maps, _copy_maps(maps, verified))


def _assert_deep_where_mutable(maps: list, copies: list) -> None:
    from pyflowkit.state.heap_keyed_state_backend import _ATOMS

    assert len(copies) == len(maps)
    for m, c in zip(maps, copies, strict=True):
        assert c is not m and list(c) == list(m)
        for key, value in m.items():
            immutable = type(value) in _ATOMS or (
                type(value) is tuple and all(type(x) in _ATOMS for x in value)
            )
            if not immutable:
                assert c[key] is not value
                assert all(
                    x is not y for x, y in zip(c[key], value, strict=True) if type(y) is list
                )


def test_keyed_reduce_snapshots_copy_nothing_and_keep_each_snapshot_at_its_mark() -> None:
    """The keyed reduce's snapshots are undo views: a mark copies no map (the live maps stay
    the table's), each write after it logs the key's value at the mark once, and every
    snapshot reads as the state at its mark."""
    from pyflowkit.graph.transformations import OperatorFactory
    from tests.operators.test_operators import harness

    factory = OperatorFactory("StreamGroupedReduce", params={"function": lambda a, b: a + b})
    keys = [f"w{i}" for i in range(3000)] + list(range(3000))
    op, _ = harness(factory.create(), key=lambda v: keys[v % len(keys)])
    table = op._state.table
    expected: dict[Any, int] = {}
    snaps = []
    for round_ in range(6):
        batch = list(range(6000)) if round_ == 0 else [round_ * 37 + i * 11 for i in range(50)]
        live = {kg: by_ns[None] for kg, by_ns in table.key_groups.items()}
        op.process_batch(batch, None)
        for v in batch:
            k = keys[v % len(keys)]
            expected[k] = expected.get(k, 0) + v
        if round_:
            assert all(table.key_groups[kg][None] is m for kg, m in live.items())  # not copied
            assert len(table.undo) == len({keys[v % len(keys)] for v in batch})
        snaps.append((op.snapshot_state(round_, 0), dict(expected)))
    assert table.undo_mode and not table.mutable_seen
    for snap, at_mark in snaps:
        got = {e[0]: e[2] for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]}
        assert got == at_mark


def test_immutability_check_of_many_tuples_splits_columns_by_index() -> None:
    """Above ``_ZIP_MAX`` tuples the columns are taken by index (one pass each): the same
    answer as the zip for atoms, a list in any column, and tuples of several lengths."""
    from pyflowkit.state.heap_keyed_state_backend import _ZIP_MAX, _immutable

    n = _ZIP_MAX + 10
    rows: list[Any] = [(f"w{i}", i, None) for i in range(n)]
    assert _immutable(rows) and _immutable([*rows, 3, "x", None])
    assert not _immutable([*rows[:-1], ("w", [1], None)])
    assert not _immutable([*rows, ("w", 1, [2])])
    assert _immutable([*rows, ("w", 1)]) and not _immutable([*rows, ("w", 1, 2, [3])])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.tuples(st.sampled_from(["a", "b", "w7"]), st.integers(1, 5)))),
    st.booleans(),
    st.booleans(),
)
def test_first_mark_checks_only_what_the_writer_did_not_check(
    batches: list, periodic: bool, mutable: bool
) -> None:
    """With periodic checkpoints the keyed reduce checks the values it stores while no snapshot
    is held, so the first mark checks none of them (Flink's heap backend copies per entry on
    write, not the whole map at a snapshot); without, the first mark checks every value. A
    mutable value written before the first mark still sends the table copy-on-write, and every
    snapshot holds the state as of its mark."""
    from pyflowkit.graph.transformations import OperatorFactory
    from pyflowkit.state import heap_keyed_state_backend as h
    from tests.operators.test_operators import harness

    reduce = add_in_place if mutable else (lambda a, b: (a[0], a[1] + b[1]))
    factory = OperatorFactory("StreamGroupedReduce", params={"function": reduce})
    op, _ = harness(factory.create(), key=lambda v: v[0])
    op.keyed_state_backend.periodic_snapshots = periodic
    table = op._state.table
    expected: dict[Any, Any] = {}
    for batch in batches:
        op.process_batch([[k, n] if mutable else (k, n) for k, n in batch], None)
        for k, n in batch:
            if mutable:
                model(expected, k, n, False)
            else:
                expected[k] = (k, expected.get(k, (k, 0))[1] + n)
    checked: list[int] = []
    original = h._immutable, h.COPY_ON_WRITE_BELOW
    h._immutable = lambda values: checked.append(len(list(values))) or original[0](values)  # type: ignore[assignment]
    h.COPY_ON_WRITE_BELOW = 0  # undo logs however small the table (as a large one keeps them)
    try:
        snap = op.snapshot_state(1, 0)
    finally:
        h._immutable, h.COPY_ON_WRITE_BELOW = original
    written = sum(map(len, batches))
    assert table.undo_mode is not (mutable and written > 0)
    if not mutable and written:
        assert sum(checked) == (0 if periodic else len(expected))
    op.process_batch([[k, 1] if mutable else (k, 1) for k in expected], None)
    got = {
        e[0]: list(e[2]) for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]
    }
    assert got == {k: list(v) for k, v in expected.items()}


def test_a_table_copies_on_write_while_small_and_logs_undo_once_large() -> None:
    """``StateTable.choose_snapshot_kind``: the keyed reduce's table goes copy-on-write at a mark
    while it holds fewer than ``COPY_ON_WRITE_BELOW`` entries, back to undo logs at a mark once
    it holds ``UNDO_LOG_FROM`` or more, and keeps its way in between; snapshots held across
    each switch still read as the state at their marks."""
    from pyflowkit.graph.transformations import OperatorFactory
    from pyflowkit.state import heap_keyed_state_backend as h
    from tests.operators.test_operators import harness

    factory = OperatorFactory(
        "StreamGroupedReduce", params={"function": lambda a, b: None if b[1] < 0 else b}
    )
    op, _ = harness(factory.create(), key=lambda v: v[0])
    table = op._state.table
    held = []
    ways = []
    small, large = h.COPY_ON_WRITE_BELOW // 2, h.UNDO_LOG_FROM + 100
    middle = (h.COPY_ON_WRITE_BELOW + h.UNDO_LOG_FROM) // 2
    # sizes at each mark: small, grows past the line, in between, shrinks below, grows again
    before = 0
    for i, n_keys in enumerate([small, small, large, large, middle, small, middle, large]):
        batch = [(k, i) for k in range(n_keys)] + [(k, -1) for k in range(n_keys, before)]
        before = n_keys
        op.process_batch(batch, None)
        expected = {k: (k, i) for k in range(n_keys)}
        held.append((op.snapshot_state(i, 0), expected))
        ways.append("undo" if table.undo_mode else "copy")
    assert ways == ["copy", "copy", "undo", "undo", "undo", "copy", "copy", "undo"]
    for snap, at_mark in held:
        got = {e[0]: e[2] for per in snap.keyed_state.values() for e in per["_op_state"]["entries"]}
        assert got == at_mark
