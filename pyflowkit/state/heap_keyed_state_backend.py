"""The heap keyed state backend: state held per key group (Flink's ``HeapKeyedStateBackend``).

Holding state per key group lets a snapshot be cut by key-group range and restored on a different
parallelism (Flink's ``StateTable`` with one map per key group).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Hashable, Iterable, Iterator
from itertools import chain, compress, repeat
from operator import is_, is_not, itemgetter
from typing import Any

from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.java_semantics import (
    SELF_IDENTIFYING_KEY_TYPES,
    TypedKey,
    key_identity,
    pickled_key,
    plain_key,
    state_key,
)
from pyflowkit.state.heap_states import STATE_CLASSES
from pyflowkit.state.java_hash import java_hash_code
from pyflowkit.state.key_groups import (
    KeyGroupRange,
    assign_to_key_group,
    memo_key_group,
    shared_key_groups,
)
from pyflowkit.state.keyed_values import KeyedValues
from pyflowkit.state.time import VOID_NAMESPACE

_KEY_GROUP_CACHE_LIMIT = 1 << 16
_VERIFIED_LIMIT = 1 << 16  # live maps whose last copy a table remembers
_SMALL_MAP = 32  # entries per map below which _copy_maps checks every value
_ZIP_MAX = 768  # tuples above which _tuples_of_atoms splits columns by index, not by zip
_ATOMS = frozenset((str, int, float, bool, bytes, type(None)))
# A logging writer's table is snapshotted by copy-on-write below this many entries and by undo
# logs from ``UNDO_LOG_FROM`` entries on (between them it keeps its way): see
# ``StateTable.choose_snapshot_kind``. Swept with callgrind (a keyed reduce at p=2, a checkpoint
# every ~800 records): per checkpoint copy-on-write cost 7.2 / 9.8 / 15.7 / 21.5 M instructions
# at 500 / 1,000 / 2,000 / 5,000 entries per table, undo logs 9.3 / 9.1 / 9.1 / 9.2 M: they cross
# near 880. The band is narrow: a growing table's first marks find it small (copy-on-write), so
# it has to cross ``UNDO_LOG_FROM`` to get undo logs
COPY_ON_WRITE_BELOW = 768
UNDO_LOG_FROM = 896


def snapshot_copy(value: Any) -> Any:
    """A copy that shares nothing mutable with ``value``: immutable atoms (and tuples of them)
    are returned as they are, a list of them is copied shallowly, anything else is deep-copied
    (Flink copies state on snapshot)."""
    tv = type(value)
    if tv in _ATOMS:
        return value
    if (tv is tuple or tv is list) and _ATOMS.issuperset(map(type, value)):
        return value if tv is tuple else value.copy()
    return copy.deepcopy(value)


def _copy_map(by_key: dict[Any, Any]) -> dict[Any, Any]:
    """``by_key`` copied for writing: the same keys, mutable values deep-copied."""
    if _immutable(by_key.values()):
        return by_key.copy()
    new = by_key.copy()
    atoms = _ATOMS
    for key, value in by_key.items():
        tv = type(value)
        if tv not in atoms and not (tv is tuple and atoms.issuperset(map(type, value))):
            new[key] = copy.deepcopy(value)
    return new


def _immutable(values: Iterable[Any]) -> bool:
    """True if every value is an immutable atom or a tuple of atoms (checked a type at a time,
    in C); False means some value may need a deep copy."""
    values = list(values)
    types = list(map(type, values))
    tuples = types.count(tuple)  # counted by identity: cheaper than a set of types
    if tuples == len(types):
        return _tuples_of_atoms(values)
    if not tuples:
        return _ATOMS.issuperset(types)
    if not _ATOMS.issuperset(set(types) - {tuple}):  # (None among tuples: an absent value)
        return False
    return _tuples_of_atoms(list(compress(values, map(is_, types, repeat(tuple)))))


def _tuples_of_atoms(values: list[tuple[Any, ...]]) -> bool:
    """True if every member of the tuples ``values`` is an atom: a column at a time when all
    have one length (record-like tuples, split by one strict zip), else all members together."""
    n = len(values)
    if n > _ZIP_MAX:  # zip's n iterators cost more than a pass per column
        width = len(values[0])
        if sum(map(len, values)) != width * n or not width:
            return _ATOMS.issuperset(map(type, chain.from_iterable(values)))
        try:  # every tuple reaches the last column: with the sum, each has exactly ``width``
            columns = [list(map(itemgetter(i), values)) for i in range(width)]
        except IndexError:
            return _ATOMS.issuperset(map(type, chain.from_iterable(values)))
    else:
        try:
            columns = list(zip(*values, strict=True))
        except ValueError:  # tuples of several lengths
            return _ATOMS.issuperset(map(type, chain.from_iterable(values)))
    for column in columns:
        types = list(map(type, column))
        first = types[0]
        if first not in _ATOMS or (types.count(first) != n and not _ATOMS.issuperset(types)):
            return False
    return True


def _copy_maps(
    maps: list[dict[Any, Any]], verified: dict[int, dict[Any, Any]] | None = None
) -> list[dict[Any, Any]]:
    """``_copy_map`` of each map; the values of all of them checked together first.

    ``verified`` maps a live map's id to its last copy whose values were all immutable: values
    that are the very objects of that copy need no check (an entry is checked only when it was
    written since: Flink's ``CopyOnWriteStateMap`` copies per entry too). The check is sound
    whatever the copy's keys are: an object found immutable stays so."""
    if verified is None:
        verified = {}
    elif len(verified) > _VERIFIED_LIMIT:
        verified.clear()
    if sum(map(len, maps)) < _SMALL_MAP * len(maps):  # small maps: all checked at once
        unchecked = list(chain.from_iterable(map(dict.values, maps)))
    else:
        unchecked = list(
            chain.from_iterable(map(_unverified, maps, map(verified.get, map(id, maps))))
        )
    if _immutable(unchecked):
        copies = list(map(dict.copy, maps))
        verified.update(zip(map(id, maps), copies, strict=True))
        return copies
    for m in maps:
        verified.pop(id(m), None)
    return list(map(_copy_map, maps))


def _unverified(live: dict[Any, Any], last: dict[Any, Any] | None) -> list[Any]:
    """The values of ``live`` that are not the very objects at the same places in ``last``
    (compared in C, by identity): those written since ``last`` was copied, usually."""
    values = list(live.values())
    if last is None:
        return values
    old = list(last.values())
    changed = list(compress(values, map(is_not, values, old)))
    if len(values) > len(old):
        changed.extend(values[len(old) :])
    return changed


class FrozenView(dict):  # type: ignore[type-arg]
    """A snapshot's view of one table (key group → namespace → key → value) and its version.

    A copy-on-write view shares the table's namespace dicts as of the mark. An undo view
    (``StateTable.log_writes``) holds nothing until ``resolve``: the table's maps now, with the
    values the undo logs kept for the keys written since the mark. ``changes``: the keys
    written between the previous mark and this one, their key groups, their values at the
    previous mark and at this one (None: absent), or None when not known."""

    __slots__ = ("version", "changes", "_table")
    version: int
    changes: tuple[list[Any], list[int], list[Any], list[Any]] | None
    _table: StateTable | None

    def resolve(self) -> None:
        """Fill an undo view with its maps as of its mark (once; a copy-on-write view is)."""
        table = getattr(self, "_table", None)
        if table is not None:
            self._table = None
            self.update(table.resolve(self.version))


def _frozen_view(
    version: int,
    shared: dict[int, Any],
    table: StateTable | None,
    changes: tuple[list[Any], list[int], list[Any], list[Any]] | None,
) -> FrozenView:
    view = FrozenView(shared)
    view.version, view._table, view.changes = version, table, changes
    return view


class StateTable:
    """Flink's ``CopyOnWriteStateTable``: key group → namespace → key → value for one state.

    A snapshot is a version mark (``freeze``). Two ways to keep what it serialises as of the
    mark while the operator writes on:

    * **Undo logs** (the keyed reduce, ``log_writes``): Flink's ``CopyOnWriteStateMap`` copies
      an entry only when it is written after a snapshot; here the writer records, on a key's
      first write after the mark, its value at the mark (``undo.setdefault(key, old)``, None for
      absent) in the interval's undo log. A view is the maps now with the logged values put
      back (``resolve``): the mark copies nothing, a write costs one dict operation, and the
      asynchronous part sizes a checkpoint from the previous one and the last interval's log,
      O(entries written). Sound while every value at a mark is immutable (atoms, tuples of
      atoms: checked at the mark for the keys written since), every key is an exact ``str`` or
      ``int`` (equal keys of other types, 1, 1.0 and True, share an entry under the first
      one's key object) and every write is logged; anything else resolves the views held and
      goes copy-on-write for good. Small tables go copy-on-write at a mark and back to undo
      logs when they grow (``choose_snapshot_kind``).
    * **Copy on write** (every other state): the view shares the key groups' namespace dicts
      and maps. On a key group's first access after the mark the table hands the shared
      namespace dict over to the views, with a copy of each map in it (mutable values
      deep-copied), and keeps the live maps in a namespace dict of its own: a view never changes
      while it is serialised, and the live maps stay the same objects, so an operator holding
      them only has to access them through the table once after each snapshot. Once every
      snapshot is released the table writes in place again. Every access to values goes
      through ``get``, ``put``, ``namespace_map(s)`` or ``remove``, which do the check.

    What the incremental sizing (``frozen_state_size``) relies on: while ``cow_epoch`` stays
    the same, a copy-on-write view's maps never change, so a key group whose namespace dict is
    the same object in two views has the same entries in both.
    """

    def __init__(self, name: str, kind: str) -> None:
        self.name = name
        self.kind = kind
        self.key_groups: dict[int, dict[Any, dict[Any, Any]]] = {}
        self._owned: set[int] | None = None  # key groups no view shares since the last freeze
        self._retained: set[int] = set()  # versions of snapshots not released yet
        self._version = 0
        # bumped whenever writes go in place again: maps frozen before may have changed since
        self.cow_epoch = 0
        # id of a live map → its last copy for the views, every value immutable (_copy_maps)
        self._verified: dict[int, dict[Any, Any]] = {}
        # set once a copy for the views deep-copied a value
        self.mutable_seen = False
        # ---- undo logs (log_writes) ----
        self.undo_mode = False
        # a writer logs its writes (log_writes) and nothing refused undo logs since: each mark
        # may choose between them and copy-on-write (choose_snapshot_kind)
        self._may_log = False
        # the current interval's undo log (key → value at the last mark, None for absent), or
        # None while no snapshot is held: the writer records into it
        self.undo: dict[Any, Any] | None = None
        self._undo_logs: dict[int, dict[Any, Any]] = {}  # version → the log started at its mark
        self._undo_views: dict[int, FrozenView] = {}  # version → its view, not resolved yet
        self._undo_checked = False  # every value was immutable at the last mark, writes logged
        # every value not in the current undo log is immutable: the writer checked what it
        # stored while no log was kept (``note_written``), so a mark checks only the log's keys
        self._written_checked = False
        self.key_groups_of: Callable[[list[Any]], list[int]] | None = None

    # ---- snapshots ----
    def freeze(self) -> tuple[int, FrozenView]:
        """A snapshot's version mark: (version, its view: key group → its maps as of now)."""
        self._version += 1
        version = self._version
        if self._may_log:
            self.choose_snapshot_kind()
        self._retained.add(version)
        if self.undo_mode:
            view = self._freeze_undo(version)
            if view is not None:
                return version, view
        self._owned = set()
        return version, _frozen_view(version, self.key_groups, None, None)

    def choose_snapshot_kind(self) -> None:
        """Keep the next snapshot by undo logs or by copy-on-write, whichever costs this table
        less (the rule, in one place; only for a table whose writer logs its writes).

        Flink's ``CopyOnWriteStateMap`` copies an entry when it is first written after a
        snapshot, so a snapshot costs what is written, whatever the state's size. Here undo
        logs cost a dict operation per record written while a snapshot is held (a job keeps
        its last checkpoints inspectable, so that is nearly always), and copy-on-write costs a
        copy of each key group written (its whole maps, in C) at the first write after a mark.
        A small table (under ``COPY_ON_WRITE_BELOW`` entries, e.g. a word count's few hundred
        keys per subtask) is copied for less than its writes would be logged, so it goes
        copy-on-write; from ``UNDO_LOG_FROM`` entries on copies cost more than logs (the undo
        logs' cost per checkpoint hardly depends on the table's size, the copies' grows with
        it), so it goes back to undo logs. In between it keeps its way, so a table at the line
        does not switch at every mark.

        Going copy-on-write resolves the undo views held (each gets its own maps, once); going
        back to undo logs checks every value once (the writer did not while copying on write)
        and keeps the copy-on-write views held protected (their key groups are still handed
        over on first access)."""
        entries = sum(map(len, chain.from_iterable(map(dict.values, self.key_groups.values()))))
        if self.undo_mode:
            if entries < COPY_ON_WRITE_BELOW:
                self._leave_undo()
                self._undo_checked = self._written_checked = False
        elif entries >= UNDO_LOG_FROM and not self.mutable_seen:
            self.undo_mode = True
            self._undo_checked = self._written_checked = False

    def _freeze_undo(self, version: int) -> FrozenView | None:
        """The undo view of ``version``, or None after going copy-on-write (a mutable value)."""
        since = self.undo
        changes = None
        if since is not None and self._undo_checked:  # the keys written since the last mark
            keys = list(since)
            kgs, values = self._logged_values(keys)
            changes = (keys, kgs, list(since.values()), values)
        elif self._written_checked:  # no log kept since: the writer checked what it stored
            values = [] if since is None else self._logged_values(list(since))[1]
        else:  # writes were not logged nor checked: every value
            values = self._all_values()
        if not _immutable(values):
            self.mutable_seen = True
            self._may_log = False
            self._leave_undo()
            return None
        self._undo_checked = self._written_checked = True
        self.undo = self._undo_logs[version] = {}
        view = self._undo_views[version] = _frozen_view(version, {}, self, changes)
        return view

    def _logged_values(self, keys: list[Any]) -> tuple[list[int], list[Any]]:
        """The key groups of logged ``keys`` and their void-namespace values now (their maps
        exist: void maps are never dropped), in C."""
        kgs = self.key_groups_of(keys)  # type: ignore[misc]
        by_ns = list(map(self.key_groups.__getitem__, kgs))
        return kgs, list(map(dict.get, list(map(itemgetter(VOID_NAMESPACE), by_ns)), keys))

    def _all_values(self) -> list[Any]:
        return list(
            chain.from_iterable(
                map(dict.values, chain.from_iterable(map(dict.values, self.key_groups.values())))
            )
        )

    def note_written(self, values: list[Any] | None) -> None:
        """The undo logs' writer stored ``values`` while no log was kept (``undo`` is None),
        checked here a type at a time, so that the next mark checks only what it logs (Flink's
        heap backend copies per entry on write, not the whole map at a snapshot); None: values
        stored unchecked, the next mark checks every value."""
        if self._written_checked and (values is None or not _immutable(values)):
            self._written_checked = False

    def log_writes(self, key_groups_of: Callable[[list[Any]], list[int]]) -> None:
        """Keep this table's snapshots by undo logs: the caller (the one writer) records each
        key's value before its write in ``undo`` while that is not None (``undo.setdefault``),
        writes only the void-namespace maps it got from ``namespace_maps(…, logged=True)`` or
        ``logged_namespace_map``, and calls ``note_mixed_key`` for a key that is not an exact
        ``str`` or ``int``. ``key_groups_of`` gives the key groups of logged keys."""
        if not self.undo_mode and not self._retained and not self.mutable_seen:
            self.undo_mode = self._may_log = True
            self.key_groups_of = key_groups_of
            self._undo_checked = False
            self._written_checked = _immutable(self._all_values())  # usually empty: O(1)

    def note_mixed_key(self) -> None:
        """A key other than an exact ``str`` or ``int`` is about to be written: undo logs
        cannot tell equal keys of other types apart, so the table goes copy-on-write."""
        self._may_log = False
        if self.undo_mode:
            self._leave_undo()

    def _unlogged(self) -> None:
        """An access the undo logs do not see: with snapshots held, resolve their views and go
        copy-on-write for good; else the next mark checks every value."""
        if self._retained:
            self._may_log = False
            self._leave_undo()
        else:
            self._undo_checked = self._written_checked = False

    def _leave_undo(self) -> None:
        """Resolve every undo view held (each its own maps now) and go copy-on-write: no undo
        view shares the live maps; copy-on-write views held from before undo logs (if any)
        still get their key groups handed over on first access."""
        for view in list(self._undo_views.values()):
            view.resolve()
        self._undo_views.clear()
        self._undo_logs.clear()
        self.undo = None
        self.undo_mode = False
        self.cow_epoch += 1

    def undo_logs_from(self, version: int) -> list[dict[Any, Any]]:
        """The undo logs started at ``version``'s mark or later, oldest first."""
        return [log for v, log in sorted(self._undo_logs.items()) if v >= version]

    def values_at(
        self, version: int, keys: list[Any], key_groups: list[int] | None = None
    ) -> list[Any]:
        """The void-namespace values of ``keys`` as of the undo mark ``version`` (None for
        absent): the first undo log from that mark on holding the key, else the map now."""
        if key_groups is None:
            key_groups = self.key_groups_of(keys)  # type: ignore[misc]
        logs = self.undo_logs_from(version)
        tables = self.key_groups
        out: list[Any] = []
        for key, kg in zip(keys, key_groups, strict=True):
            for log in logs:
                if key in log:
                    out.append(log[key])
                    break
            else:
                by_ns = tables.get(kg)
                m = None if by_ns is None else by_ns.get(VOID_NAMESPACE)
                out.append(None if m is None else m.get(key))
        return out

    def has_entries_at(self, version: int, key_group: int) -> bool:
        """True if the void namespace of ``key_group`` held an entry at the undo mark
        ``version`` (its keys now and those written since, looked up as of the mark)."""
        by_ns = self.key_groups.get(key_group)
        keys = list(by_ns.get(VOID_NAMESPACE, ())) if by_ns else []
        for log in self.undo_logs_from(version):
            keys.extend(log)
        keys = list(dict.fromkeys(keys))
        in_kg = list(compress(keys, map(key_group.__eq__, self.key_groups_of(keys))))  # type: ignore[misc]
        return any(v is not None for v in self.values_at(version, in_kg))

    def resolve(self, version: int) -> dict[int, dict[Any, dict[Any, Any]]]:
        """Key group → namespace → key → value as of the undo mark ``version`` (new maps): the
        maps now, then each undo log from the newest back to that mark's put back."""
        out = {
            kg: {ns: m.copy() for ns, m in by_ns.items()} for kg, by_ns in self.key_groups.items()
        }
        for v in sorted(self._undo_logs, reverse=True):
            if v < version:
                break
            log = self._undo_logs[v]
            keys = list(log)
            for key, kg in zip(keys, self.key_groups_of(keys), strict=True):  # type: ignore[misc]
                by_ns = out.get(kg)
                if by_ns is None:
                    by_ns = out[kg] = {}
                m = by_ns.get(VOID_NAMESPACE)
                if m is None:
                    m = by_ns[VOID_NAMESPACE] = {}
                old = log[key]
                if old is None:
                    m.pop(key, None)
                else:
                    m[key] = old
        return out

    def release(self, version: int) -> None:
        """The snapshot of ``version`` is serialised: it no longer needs its maps kept."""
        self._retained.discard(version)
        self._undo_views.pop(version, None)
        if self._undo_logs:
            if self._retained:  # a log is needed by the marks held up to its own
                oldest = min(self._retained)
                for v in [v for v in self._undo_logs if v < oldest]:
                    del self._undo_logs[v]
            else:  # no log from here on: the writer checks what it stores (note_written)
                since = self.undo
                if since and self._written_checked:  # the values logged since the last mark
                    self._written_checked = _immutable(self._logged_values(list(since))[1])
                self._undo_logs.clear()
                self.undo = None
                self._undo_checked = False
        if not self._retained and self._owned is not None:
            self._owned = None
            self.cow_epoch += 1

    def _own(self, key_group: int) -> dict[Any, dict[Any, Any]] | None:
        """The key group's namespace dict, to write: the views got their copies first."""
        self._owned.add(key_group)  # type: ignore[union-attr]
        by_ns = self.key_groups.get(key_group)
        if by_ns is not None:
            self._unshare([key_group], [by_ns])
            by_ns = self.key_groups[key_group]
        return by_ns

    def _unshare(
        self,
        key_groups: list[int],
        by_ns_list: list[dict[Any, dict[Any, Any]]],
        namespace: Any = VOID_NAMESPACE,
    ) -> list[dict[Any, Any]] | None:
        """Hand the namespace dicts of ``key_groups`` (``by_ns_list``, shared with views) over
        to the views with a copy of every map in them (mutable values deep-copied); the table
        keeps the live maps in new namespace dicts. Returns the live maps of ``namespace``
        when that is each key group's only namespace, else None."""
        self.key_groups.update(zip(key_groups, map(dict.copy, by_ns_list), strict=True))
        if list(map(len, by_ns_list)).count(1) == len(by_ns_list):
            try:  # one namespace per key group, usually ``namespace``: in C
                maps = list(map(itemgetter(namespace), by_ns_list))
            except KeyError:
                pass
            else:
                copies = _copy_maps(maps, self._verified)
                if maps and id(maps[0]) not in self._verified:  # values were deep-copied
                    self.mutable_seen = True
                list(map(dict.__setitem__, by_ns_list, repeat(namespace), copies))
                return maps
        maps = list(chain.from_iterable(map(dict.values, by_ns_list)))
        copies = iter(_copy_maps(maps, self._verified))
        if maps and id(maps[0]) not in self._verified:
            self.mutable_seen = True
        for by_ns in by_ns_list:  # the same keys: only the values change
            by_ns.update(zip(list(by_ns), copies, strict=False))
        return None

    # ---- access ----
    def get(self, key_group: int, namespace: Any, key: Any) -> Any:
        if self.undo_mode:  # the caller may change the value in place
            self._unlogged()
        owned = self._owned
        if owned is None or key_group in owned:
            by_ns = self.key_groups.get(key_group)
        else:
            by_ns = self._own(key_group)
        if by_ns is None:
            return None
        by_key = by_ns.get(namespace)
        return None if by_key is None else by_key.get(key)

    def put(self, key_group: int, namespace: Any, key: Any, value: Any) -> None:
        self.namespace_map(key_group, namespace)[key] = value

    def namespace_map(self, key_group: int, namespace: Any) -> dict[Any, Any]:
        """The key → value map of one key group and namespace (created if missing), to read
        and write in place.

        The void namespace's map is never dropped, so an operator may keep a reference to it
        until the backend's ``snapshot_version`` changes (then fetch it again).
        """
        if self.undo_mode:  # the caller's writes are not logged
            self._unlogged()
        return self.logged_namespace_map(key_group, namespace)

    def namespace_map_for_batch(self) -> Callable[[int, Any], dict[Any, Any]]:
        """``namespace_map`` for a loop that takes no snapshot: the undo check done once for
        the loop (only a mark starts undo logs again, and none comes while it runs)."""
        if self.undo_mode:
            self._unlogged()
        return self.logged_namespace_map

    def logged_namespace_map(self, key_group: int, namespace: Any) -> dict[Any, Any]:
        """``namespace_map`` for the undo logs' writer (``log_writes``), who logs every key it
        writes there."""
        owned = self._owned
        if owned is None or key_group in owned:
            by_ns = self.key_groups.get(key_group)
        else:
            by_ns = self._own(key_group)
        if by_ns is None:
            by_ns = self.key_groups[key_group] = {}
        by_key = by_ns.get(namespace)
        if by_key is None:
            by_key = by_ns[namespace] = {}
        return by_key

    def namespace_maps(
        self, key_groups: Iterable[int], namespace: Any, logged: bool = False
    ) -> list[dict[Any, Any]]:
        """``namespace_map`` of each key group, in one pass (for operators holding maps across
        a snapshot: the same maps again); the frozen ones are copied for their views together.
        ``logged``: the caller logs every key it writes in them (``log_writes``)."""
        if not logged and self.undo_mode:
            self._unlogged()
        tables = self.key_groups
        owned = self._owned
        key_groups = list(key_groups)
        if owned is not None:
            frozen = tables.keys() & key_groups
            if owned:
                frozen -= owned
            owned.update(key_groups)
            if len(frozen) == len(key_groups):  # all of them (the usual case after a mark)
                maps = self._unshare(
                    key_groups, list(map(tables.__getitem__, key_groups)), namespace
                )
                if maps is not None:
                    return maps
            elif frozen:
                kgs = list(frozen)
                self._unshare(kgs, list(map(tables.__getitem__, kgs)), namespace)
        by_ns_list = list(map(tables.get, key_groups))
        if None not in by_ns_list:  # every key group present: its map usually too (in C)
            try:
                return list(map(itemgetter(namespace), by_ns_list))
            except KeyError:
                pass
        maps: list[dict[Any, Any]] = []
        for kg in key_groups:
            by_ns = tables.get(kg)
            if by_ns is None:
                by_ns = tables[kg] = {}
            by_key = by_ns.get(namespace)
            if by_key is None:
                by_key = by_ns[namespace] = {}
            maps.append(by_key)
        return maps

    def remove(self, key_group: int, namespace: Any, key: Any) -> Any:
        if self.undo_mode:
            self._unlogged()
        owned = self._owned
        if owned is None or key_group in owned:
            by_ns = self.key_groups.get(key_group)
        else:
            by_ns = self._own(key_group)
        if by_ns is None:
            return None
        by_key = by_ns.get(namespace)
        if by_key is None:
            return None
        value = by_key.pop(key, None)
        if not by_key and namespace is not VOID_NAMESPACE:  # window namespaces come and go
            del by_ns[namespace]
            if not by_ns:
                del self.key_groups[key_group]
        return value

    def keys(self, namespace: Any) -> Iterator[Any]:
        for by_ns in list(self.key_groups.values()):
            by_key = by_ns.get(namespace)
            if by_key:
                yield from list(by_key)

    def entries(self) -> Iterator[tuple[int, Any, Any, Any]]:
        """Every (key group, namespace, key, value), key groups ascending (read only)."""
        for kg in sorted(self.key_groups):
            for ns, by_key in self.key_groups[kg].items():
                for key, value in by_key.items():
                    yield kg, ns, key, value

    def size(self) -> int:
        return sum(len(m) for by_ns in self.key_groups.values() for m in by_ns.values())


class KeyedStateSnapshot:
    """A keyed-state snapshot between its synchronous and asynchronous parts.

    Flink's ``HeapSnapshotStrategy``: the synchronous part froze every table
    (``StateTable.freeze``, a version mark); ``frozen_tables`` reads the frozen maps (the
    asynchronous part sizes them); ``materialize`` turns them into plain data (key group →
    state name → ``{"kind", "entries"}``) when the snapshot is first read, and releases them.
    A snapshot dropped unmaterialised releases its tables when collected.
    """

    def __init__(self, frozen: list[tuple[StateTable, int, FrozenView]]) -> None:
        self._frozen: list[tuple[StateTable, int, FrozenView]] | None = frozen
        self._release = weakref.finalize(self, _release_all, [(t, v) for t, v, _ in frozen])
        self._result: dict[int, dict[str, dict[str, Any]]] | None = None

    def frozen_tables(self) -> list[tuple[StateTable, FrozenView]] | None:
        """(table, key group → namespace → key → value as of the mark), to read only (Flink's
        ``CopyOnWriteStateTableSnapshot``; an undo view reads as a dict once ``resolve``d);
        None once materialised."""
        if self._frozen is None:
            return None
        return [(table, key_groups) for table, _, key_groups in self._frozen]

    def materialize(self, key_groups: Iterable[int] | None = None) -> dict[int, dict[str, dict]]:
        """The snapshot as plain data (copied; only ``key_groups`` when given)."""
        if self._result is None:
            self._result = _materialize(self._frozen or [])
            self._frozen = None
            self._release()
        if key_groups is None:
            return self._result
        wanted = set(key_groups)
        return {kg: v for kg, v in self._result.items() if kg in wanted}


def _release_all(versions: list[tuple[StateTable, int]]) -> None:
    for table, version in versions:
        table.release(version)


def _materialize(
    frozen: list[tuple[StateTable, int, FrozenView]],
) -> dict[int, dict[str, dict[str, Any]]]:
    out: dict[int, dict[str, dict[str, Any]]] = {}
    copy_ = snapshot_copy
    atoms = _ATOMS
    plain = plain_key  # the state tables' TypedKey keys are snapshot as the keys they hold
    for table, _, key_groups in frozen:
        key_groups.resolve()
        name, kind = table.name, table.kind
        for kg in sorted(key_groups):
            entries: list[list[Any]] = []
            for ns, by_key in key_groups[kg].items():
                ns = copy_(ns)
                if kind == "map":
                    entries.extend(
                        [copy_(plain(k)), ns, [[copy_(mk), copy_(mv)] for mk, mv in v.items()]]
                        for k, v in by_key.items()
                    )
                else:  # atoms as they are, without a call (most keys and many values)
                    entries.extend(
                        [
                            k if type(k) in atoms else copy_(plain(k)),
                            ns,
                            v if type(v) in atoms else copy_(v),
                        ]
                        for k, v in by_key.items()
                    )
            if entries:
                out.setdefault(kg, {})[name] = {"kind": kind, "entries": entries}
    return {kg: out[kg] for kg in sorted(out)}


class HeapKeyedStateBackend:
    """Flink's ``HeapKeyedStateBackend``: the current key, its key group, and the state tables.

    ``set_current_key`` computes the key group with Flink's ``KeyGroupRangeAssignment`` (Java
    ``hashCode`` + murmur) and checks it belongs to this subtask's ``key_group_range``.
    """

    def __init__(self, max_parallelism: int, key_group_range: KeyGroupRange) -> None:
        self.max_parallelism = max_parallelism
        self.key_group_range = key_group_range
        self.current_key: Any = None  # as the key selector returned it (getCurrentKey)
        # the current key as the state tables hold it (java_semantics.state_key)
        self.current_state_key: Any = None
        self.current_key_group: int = -1
        self.tables: dict[str, StateTable] = {}
        self._states: dict[str, Any] = {}
        self._kg_cache: dict[Any, int] = {}
        # the key's hashCode for key groups: the profile's key_by rule (java_hash.key_hash_function)
        self.key_hash: Callable[[Any], int] = java_hash_code
        # how the state tables tell keys apart: the profile's rule (java_hash.state_key_function)
        self.state_key: Callable[[Any], Any] = state_key
        # raises for a key that does not fit the declared key type; run once per new key
        self.key_check: Callable[[Any], None] | None = None
        # bumped by every snapshot: maps taken from StateTable.namespace_map must be re-fetched
        self.snapshot_version = 0
        # periodic checkpoints are on: an undo logs' writer checks the values it stores while
        # no snapshot is held, so the first mark need not check every value
        self.periodic_snapshots = False

    # ---- key context ----
    def key_group_lookup(self) -> Callable[[Hashable], int | None]:
        """The key-group cache as a lookup for batch loops: ``key_identity(key)`` → the key's
        checked key group, or None when not cached yet (then call ``checked_key_group``).

        The function stays valid for the backend's life (the cache is cleared in place).
        """
        return self._kg_cache.get

    def key_group_of(self, key: Any) -> int:
        """``KeyGroupRangeAssignment.assignToKeyGroup`` (not checked against this subtask)."""
        kg = self._kg_cache.get(key_identity(key))
        if kg is not None:
            return kg
        tk = type(key)
        memo = (
            shared_key_groups(self.key_hash, self.max_parallelism, tk)
            if tk is str or tk is int
            else None
        )
        if memo is not None:
            return memo_key_group(memo, key, self.max_parallelism, self.key_hash)
        return assign_to_key_group(key, self.max_parallelism, self.key_hash)

    def key_groups_of(self, keys: list[Any]) -> list[int]:
        """``key_group_of`` of each key; ``str`` keys read in C from the shared memo
        (``key_groups.shared_key_groups``), where the key_by's partitioner usually left them."""
        memo = shared_key_groups(self.key_hash, self.max_parallelism, str)
        if memo is None:
            return list(map(self.key_group_of, keys))
        kgs = list(map(memo.get, keys))  # the memo holds str keys only: others find None
        if None in kgs:
            kg_of = self.key_group_of
            kgs = [kg_of(k) if kg is None else kg for kg, k in zip(kgs, keys, strict=True)]
        return kgs  # type: ignore[return-value]

    def checked_key_group(self, key: Any) -> int:
        """The key's key group, which must belong to this subtask's range (cached per key)."""
        ck = key_identity(key)
        kg = self._kg_cache.get(ck)
        if kg is not None:
            return kg
        if self.key_check is not None:
            self.key_check(key)
        tk = type(key)
        memo = (
            shared_key_groups(self.key_hash, self.max_parallelism, tk)
            if tk is str or tk is int
            else None
        )
        if memo is not None:  # usually left there by the key_by's partitioner
            kg = memo_key_group(memo, key, self.max_parallelism, self.key_hash)
        else:
            kg = assign_to_key_group(key, self.max_parallelism, self.key_hash)
        if kg not in self.key_group_range:
            raise IllegalArgumentException(
                f"Key group {kg} is not in {self.key_group_range}. Unless you're directly using "
                "low level state access APIs, this is most likely caused by non-deterministic "
                "shuffle key (hashCode and equals implementation)."
            )
        if len(self._kg_cache) >= _KEY_GROUP_CACHE_LIMIT:
            self._kg_cache.clear()
        self._kg_cache[ck] = kg
        return kg

    def set_current_key(self, key: Any) -> None:
        """``setCurrentKey``: later state accesses read/write this key's entries."""
        kg = self._kg_cache.get(key) if type(key) in SELF_IDENTIFYING_KEY_TYPES else None
        if kg is None:
            self._set_other_key(key)
            return
        self.current_key = self.current_state_key = key
        self.current_key_group = kg

    def _set_other_key(self, key: Any) -> None:
        """``set_current_key`` of a key not cached yet or not a ``str``/``int``: a list key is
        keyed by its pickle, as in PyFlink; ``1``, ``True`` and ``1.0`` stay three keys."""
        if type(key) is TypedKey:
            key = key.key
        elif type(key).__hash__ is None:
            key = pickled_key(key)
        self.current_key_group = self.checked_key_group(key)
        self.current_key = key
        self.current_state_key = self.state_key(key)

    def get_current_key(self) -> Any:
        return self.current_key

    # ---- state registration ----
    def get_partitioned_state(self, descriptor: Any, namespace: Any = VOID_NAMESPACE) -> Any:
        """``getPartitionedState``: the state object for a descriptor, set to ``namespace``."""
        state = self.get_or_create_keyed_state(descriptor)
        state.set_current_namespace(namespace)
        return state

    def get_or_create_keyed_state(self, descriptor: Any) -> Any:
        """``getOrCreateKeyedState``: one state object per descriptor name; kinds must agree."""
        name = descriptor.name
        state = self._states.get(name)
        if state is not None:
            if state.table.kind != descriptor.kind:
                raise IllegalStateException(
                    f"State '{name}' was registered as {state.table.kind} state and cannot be "
                    f"accessed as {descriptor.kind} state."
                )
            return state
        cls = STATE_CLASSES.get(descriptor.kind)
        if cls is None:
            raise IllegalArgumentException(f"Unknown state kind {descriptor.kind!r} of '{name}'.")
        table = self.tables.get(name)
        if table is None:
            table = self.tables[name] = StateTable(name, descriptor.kind)
        elif table.kind != descriptor.kind:
            raise IllegalStateException(
                f"Restored state '{name}' is {table.kind} state and cannot be accessed as "
                f"{descriptor.kind} state."
            )
        state = cls(self, table, descriptor)
        self._states[name] = state
        return state

    def get_keys(self, state_name: str, namespace: Any = VOID_NAMESPACE) -> Iterator[Any]:
        """``getKeys``: keys that have an entry in a state under a namespace."""
        table = self.tables.get(state_name)
        return iter(()) if table is None else map(plain_key, table.keys(namespace))

    def apply_to_all_keys(self, namespace: Any, descriptor: Any, function: Any) -> None:
        """``applyToAllKeys``: call ``function(key, state)`` with the key context set."""
        state = self.get_partitioned_state(descriptor, namespace)
        for key in list(self.get_keys(descriptor.name, namespace)):
            self.set_current_key(key)
            function(key, state)

    def num_entries(self) -> int:
        return sum(t.size() for t in self.tables.values())

    # ---- snapshot / restore ----
    def begin_snapshot(self) -> KeyedStateSnapshot:
        """The synchronous part of a snapshot: a version mark on every table (no copying)."""
        self.snapshot_version += 1
        return KeyedStateSnapshot([(t, *t.freeze()) for t in self.tables.values()])

    def snapshot(self, key_groups: Iterable[int] | None = None) -> dict[int, dict[str, dict]]:
        """Key group → state name → {"kind", "entries": [[key, namespace, value], …]}, copied."""
        return self.begin_snapshot().materialize(key_groups)

    def restore(self, keyed_state: dict[int, dict[str, dict]]) -> None:
        """Load the key groups of this subtask's range (others are ignored, as on rescale)."""
        for kg, states in keyed_state.items():
            kg = int(kg)
            if kg not in self.key_group_range:
                continue
            for name, st in states.items():
                kind = st["kind"]
                table = self.tables.get(name)
                if table is None:
                    table = self.tables[name] = StateTable(name, kind)
                for key, ns, value in copy.deepcopy(st["entries"]):
                    key = self.state_key(_restore_key(key))
                    ns = _restore_key(ns)
                    if kind == "map":
                        value = {_restore_key(k): v for k, v in value}
                    table.put(kg, ns, key, value)

    def dump(self) -> dict[str, KeyedValues]:
        """State name → {key: value} for the void namespace (for inspection): the keys as the
        key selector returned them, told apart as the tables tell them (``KeyedValues``)."""
        out: dict[str, KeyedValues] = {}
        for name, table in self.tables.items():
            for _kg, ns, key, value in table.entries():
                if ns is VOID_NAMESPACE:
                    values = out.get(name)
                    if values is None:
                        values = out[name] = KeyedValues(rule=self.state_key)
                    values[key] = value
        return out


def _restore_key(key: Any) -> Any:
    """JSON turns tuple keys into lists; make them hashable again."""
    if isinstance(key, list):
        return tuple(_restore_key(k) for k in key)
    return key
