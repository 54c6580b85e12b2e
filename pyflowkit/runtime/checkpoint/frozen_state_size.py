"""The exact state size of an operator snapshot whose keyed state is still frozen (not
materialised): the length ``state_codec.state_size`` gives the snapshot's plain form.

Flink's ``StateObject.getStateSize`` of what ``HeapSnapshotStrategy`` writes. Keys and values are
measured a type at a time in C (strings by their joined length, escapes counted on the joined
text; ints, bools, None and finite floats by their ``%s`` forms, which are as long as their JSON
forms; tuples and lists a column at a time, plus brackets, commas and tags); the structure around
the entries (key groups, state names, tags) is counted arithmetically. Values the codec tags
other than tuples (dicts outside map state, sets, bytes, ``Row``, windows, non-finite floats, …)
take the materialising path instead (``state_codec.snapshot_size``), which gives the same number.
"""

from __future__ import annotations

import json
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache
from itertools import chain, compress, repeat
from json.encoder import encode_basestring_ascii
from operator import gt, is_, is_not, itemgetter
from typing import Any
from weakref import WeakKeyDictionary

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.state import state_codec
from pyflowkit.state.snapshot import OperatorSnapshot

# allow_nan=False: a non-finite float (which the codec tags) raises, and the slow path takes over
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False, allow_nan=False)
_TUPLE_TAG = len('{"@":"tuple","v":}')  # what the codec adds around a tuple's JSON array
_EMPTY_DICT = len('{"@":"dict","v":[]}')  # the codec's form of an empty dict
_MAX_DEPTH = 8

FrozenTables = Iterable[tuple[Any, dict[int, dict[Any, dict[Any, Any]]]]]  # (StateTable, view)


def operator_snapshot_size(snapshot: OperatorSnapshot) -> int:
    """``state_codec.snapshot_size(snapshot.to_dict())``, without materialising frozen keyed
    state when its keys and values allow (the snapshot stays frozen)."""
    pending = snapshot.pending_keyed_state
    if pending is None:
        if snapshot.is_empty:  # a stateless operator's snapshot, every checkpoint alike
            return _empty_size()
        if not (snapshot.keyed_state or snapshot.timers):  # a source's reader position
            size = _list_states_size(snapshot.operator_state)
            if size is not None:
                return size
        return state_codec.snapshot_size(snapshot.to_dict())
    tables = pending.frozen_tables()
    if tables is not None:
        keyed = keyed_state_size(tables)
        if keyed is not None:
            if not (snapshot.operator_state or snapshot.timers):
                return _empty_size() - _EMPTY_DICT + keyed
            rest = {
                "keyed_state": {},
                "operator_state": snapshot.operator_state,
                "timers": {str(kg): v for kg, v in snapshot.timers.items()},
            }
            try:
                return len(_ENCODER.encode(state_codec.encode(rest))) - _EMPTY_DICT + keyed
            except (IllegalArgumentException, ValueError):
                pass  # the codec's own rules (repr fallback, errors) decide below
    return state_codec.snapshot_size(snapshot.to_dict())


@lru_cache(maxsize=1)
def _empty_size() -> int:
    """The size of an empty snapshot (no keyed state, operator state or timers)."""
    return state_codec.snapshot_size(OperatorSnapshot().to_dict())


def _list_states_size(states: dict[str, Any]) -> int | None:
    """The size of a snapshot holding only operator list states (``{name: {"mode", "entries"}}``,
    a source's reader position): the wrapping of their names and modes, measured once per shape
    by the codec, plus the entries measured a type at a time (a list's JSON array: its items and
    the commas between them); None when an entry needs the general path."""
    shape = []
    chars = 0
    for name, st in states.items():
        if type(st) is not dict or len(st) != 2:
            return None
        mode, entries = st.get("mode"), st.get("entries")
        if type(name) is not str or type(mode) is not str or type(entries) is not list:
            return None
        if entries:
            items = _items_chars(entries)
            if items is None:
                return None
            chars += items + len(entries) - 1
        shape.append((name, mode))
    return _list_states_wrapping(tuple(shape)) + chars


@lru_cache(maxsize=64)
def _list_states_wrapping(shape: tuple[tuple[str, str], ...]) -> int:
    """The size of a snapshot of operator list states named ``shape`` with no entries."""
    states = {name: {"mode": mode, "entries": []} for name, mode in shape}
    return state_codec.snapshot_size(OperatorSnapshot(operator_state=states).to_dict())


def keyed_state_size(tables: FrozenTables) -> int | None:
    """The codec's encoded length of the materialised keyed state (key groups as strings:
    ``{kg: {name: {"kind", "entries": [[key, namespace, value], …]}}}``), or None when a key,
    namespace or value needs the general path."""
    parts: list[tuple[int, Collection[int]]] = []
    for table, key_groups in tables:
        part = _table_chars(table, key_groups)
        if part is None:
            return None
        parts.append(part)
    if len(parts) == 1:
        chars, with_entries = parts[0]
        n_states = len(with_entries)  # (key group, state) pairs with entries
    else:
        chars = sum(part[0] for part in parts)
        with_entries = set().union(*(part[1] for part in parts))
        n_states = sum(len(part[1]) for part in parts)
    # per key group: '["kg",' + the tagged dict of its states + ']'; then the outer tagged dict
    n_kgs = len(with_entries)
    if n_kgs:
        kg_digits = _ints_chars(tuple(with_entries))  # None only past 4,300 digits
        chars += (5 + _EMPTY_DICT - 1) * n_kgs + (kg_digits or 0)
    return chars + n_states + _EMPTY_DICT + max(0, n_kgs - 1)


# per table: (copy-on-write epoch, the frozen view sized last, its characters, its key groups
# with entries); a key group whose maps are the same objects in the next view is unchanged
_LAST_SIZED: WeakKeyDictionary[Any, tuple[int, dict[int, Any], int, Collection[int]]] = (
    WeakKeyDictionary()
)


def _table_chars(table: Any, key_groups: Any) -> tuple[int, Collection[int]] | None:
    """One table's characters in every key group (its entries and what wraps them there) and
    the key groups where it has entries; the key groups' own wrapping is left to the caller.

    An undo view (``StateTable.log_writes``) whose table was sized at the previous version is
    sized from that count and the previous interval's undo log, O(entries written) as Flink's
    ``CopyOnWriteStateMap`` snapshots are. A copy-on-write view measures only the key groups
    changed since the table's last sizing, when at most half changed and the table copied on
    write all along (so the maps frozen then are untouched) and the key groups are not small
    or few of them changed (else measuring them all, a type at a time, costs less than telling
    their changes apart, a group at a time). Anything else is measured whole."""
    name, kind, epoch = table.name, table.kind, table.cow_epoch
    last = _LAST_SIZED.get(table)
    part = None
    changes = getattr(key_groups, "changes", None)
    if (
        changes is not None
        and last is not None
        and last[0] == epoch
        and kind == "value"
        and getattr(last[1], "version", None) == key_groups.version - 1
    ):
        part = _undo_chars(table, name, kind, last, key_groups.version, changes)
    if part is None:
        resolve = getattr(key_groups, "resolve", None)
        if resolve is not None:
            resolve()
        if (
            last is not None
            and last[0] == epoch
            and (not _small(key_groups) or _few_changed(last[1], key_groups))
        ):
            part = _changed_chars(name, kind, last, key_groups)
    if part is None:
        full = _entries_chars(name, kind, key_groups)
        if full is None:
            return None
        part = full
    _LAST_SIZED[table] = (epoch, key_groups, *part)
    return part


_SMALL_GROUP = 32  # entries per key group below which a table is measured whole
_FEW_CHANGED = 8  # … unless at most one key group in this many changed since the last sizing


def _few_changed(old_view: dict[int, Any], view: dict[int, Any]) -> bool:
    """True if at most one in ``_FEW_CHANGED`` key groups of ``view`` holds other maps than
    ``old_view`` (compared by identity, in C): telling those few apart costs less than
    measuring small key groups whole."""
    changed = sum(map(is_not, map(old_view.get, view), view.values()))
    return changed * _FEW_CHANGED <= len(view)


def _small(key_groups: dict[int, Any]) -> bool:
    """True if the key groups hold fewer than ``_SMALL_GROUP`` entries each on average
    (counted in C when each holds the void namespace only)."""
    by_ns_list = list(key_groups.values())
    maps = _void_maps(by_ns_list)
    if maps is None:
        maps = list(chain.from_iterable(map(dict.values, by_ns_list)))
    return sum(map(len, maps)) < _SMALL_GROUP * len(by_ns_list)


def _changed_chars(
    name: str,
    kind: str,
    last: tuple[int, dict[int, Any], int, Collection[int]],
    view: dict[int, Any],
) -> tuple[int, Collection[int]] | None:
    """``_table_chars`` from the last sizing and the entries changed since, or None when more
    than half the key groups changed shape (measuring them all is then cheaper).

    A key group copied on write since holds new maps; when their keys begin with the old maps'
    keys (the very objects, in order: nothing was removed), only the entries whose values are
    not the very objects of before, and the entries added after them, are measured, old and new
    (Flink's heap backend and RocksDB's incremental checkpoints touch only what changed too).
    Other key groups changed are measured whole."""
    around = _state_chars(name, kind)
    if around is None:
        return None
    _, old_view, old_chars, old_with = last
    whole = list(old_view.keys() - view.keys())  # gone
    old_parts: dict[int, dict[Any, dict[Any, Any]]] = {}
    new_parts: dict[int, dict[Any, dict[Any, Any]]] = {}
    for kg in compress(view, map(is_not, map(old_view.get, view), view.values())):
        old = old_view.get(kg)
        if old is None or not _entry_changes(old, view[kg], kg, old_parts, new_parts):
            whole.append(kg)
    if len(whole) > len(view) // 2:
        return None
    chars = old_chars
    with_entries = set(old_with)
    if whole:
        now = _entries_chars(name, kind, {kg: view[kg] for kg in whole if kg in view})
        before = _entries_chars(name, kind, {kg: old_view[kg] for kg in whole if kg in old_view})
        if now is None or before is None:
            return None
        chars += now[0] - before[0]
        with_entries.difference_update(whole)
        with_entries.update(now[1])
    if new_parts:
        now = _entries_chars(name, kind, new_parts)
        before = _entries_chars(name, kind, old_parts)
        if now is None or before is None:
            return None
        # the entries alone (each part's wrapping taken off); a key group that had none before
        # gets its wrapping now (entries are only added or replaced here)
        chars += now[0] - around * len(now[1]) - before[0] + around * len(before[1])
        for kg in now[1]:
            if kg not in with_entries:
                with_entries.add(kg)
                chars += around
    return chars, with_entries


def _undo_chars(
    table: Any,
    name: str,
    kind: str,
    last: tuple[int, Any, int, Collection[int]],
    version: int,
    changes: tuple[list[Any], list[int], list[Any], list[Any]],
) -> tuple[int, Collection[int]] | None:
    """``_table_chars`` of the undo view of ``version`` from the last sizing (the previous
    version's) and ``changes`` (``FrozenView.changes``: the keys written in between, their key
    groups, values then and now, None for absent): their old entries out, their new ones in,
    O(entries written) as Flink's ``CopyOnWriteStateMap`` snapshots are; a key group that
    gained its first entry or lost its last gets or loses its wrapping. Undo logs hold the
    void namespace only (any other write leaves them)."""
    around = _state_chars(name, kind)
    if around is None:
        return None
    _, _, chars, old_with = last
    keys, kgs, olds, news = changes
    had = list(map(is_not, olds, repeat(None)))
    has = list(map(is_not, news, repeat(None)))
    came = list(map(gt, has, had))  # absent then, present now
    went = list(map(gt, had, has))  # present then, absent now
    # values out and in; keys and the entries' brackets only where an entry came or went
    values = _delta_chars(list(compress(olds, had)), list(compress(news, has)))
    if values is None:
        return None
    chars += values
    if True in came or True in went:
        entries = _delta_chars(list(compress(keys, went)), list(compress(keys, came)))
        if entries is None:
            return None
        chars += entries + (came.count(True) - went.count(True)) * (5 + _VOID_CHARS)
    with_entries = set(old_with)
    with_new = set(compress(kgs, has))
    for kg in with_new - with_entries:  # a key group's first entry
        with_entries.add(kg)
        chars += around
    if True in went:
        for kg in set(compress(kgs, went)) - with_new:
            if kg in with_entries and not table.has_entries_at(version, kg):
                with_entries.discard(kg)
                chars -= around
    return chars, with_entries


def _delta_chars(before: list[Any], now: list[Any]) -> int | None:
    """The encoded length of ``now`` minus that of ``before`` (None: no fast path)."""
    then_chars = _items_chars(before)
    now_chars = _items_chars(now)
    if then_chars is None or now_chars is None:
        return None
    return now_chars - then_chars


def _entry_changes(
    old: dict[Any, dict[Any, Any]],
    new: dict[Any, dict[Any, Any]],
    kg: int,
    old_parts: dict[int, dict[Any, dict[Any, Any]]],
    new_parts: dict[int, dict[Any, dict[Any, Any]]],
) -> bool:
    """Add the entries of key group ``kg`` changed from ``old`` to ``new`` (namespace → key →
    value) to the parts; False (nothing added) unless ``new`` has the namespaces of ``old`` and
    each of its maps begins with the old map's keys (compared in C, by identity)."""
    if len(old) != len(new) or not all(map(is_, old, new)):
        return False
    olds: dict[Any, dict[Any, Any]] = {}
    news: dict[Any, dict[Any, Any]] = {}
    for (ns, old_map), new_map in zip(old.items(), new.values()):  # noqa: B905 (equal lengths)
        n = len(old_map)
        if len(new_map) < n or not all(map(is_, old_map, new_map)):
            return False
        if old_map is new_map:
            continue
        keys = list(new_map)
        changed = list(compress(keys, map(is_not, old_map.values(), new_map.values())))
        if changed:
            olds[ns] = dict(zip(changed, map(old_map.__getitem__, changed), strict=True))
        changed.extend(keys[n:])
        if changed:
            news[ns] = dict(zip(changed, map(new_map.__getitem__, changed), strict=True))
    if olds:
        old_parts[kg] = olds
    if news:
        new_parts[kg] = news
    return True


def _entries_chars(
    name: str, kind: str, key_groups: dict[int, Any]
) -> tuple[int, list[int]] | None:
    """A table's characters in ``key_groups`` (additive over key groups) and the key groups
    where it has entries; None if something needs the general path."""
    around = _state_chars(name, kind)
    if around is None:
        return None
    by_ns_list = list(key_groups.values())
    maps = _void_maps(by_ns_list)
    if maps is not None:  # the void namespace only
        n_per_kg = list(map(len, maps))
        chars = sum(n_per_kg) * (5 + _VOID_CHARS)
    else:
        maps, n_per_kg, ns_chars = _by_namespace(by_ns_list)
        if ns_chars is None:
            return None
        chars = 5 * sum(n_per_kg) + ns_chars
    with_entries = list(compress(key_groups, n_per_kg))
    # per key group: '[name,' + the state's dict + ']' around an entries list of 1 + 5n
    chars += len(with_entries) * around
    keys = list(chain.from_iterable(maps))
    if kind == "map":
        user_maps = list(chain.from_iterable(map(dict.values, maps)))
        if set(map(type, user_maps)) - {dict}:
            return None
        # each user map is a list of [user key, user value] pairs: '[]' when empty
        sizes = list(map(len, user_maps))
        chars += len(sizes) + 4 * sum(sizes) + sizes.count(0)
        keys.extend(chain.from_iterable(user_maps))
        values = list(chain.from_iterable(map(dict.values, user_maps)))
    else:
        values = list(chain.from_iterable(map(dict.values, maps)))
    for items in (keys, values):
        item_chars = _items_chars(items)
        if item_chars is None:
            return None
        chars += item_chars
    return chars, with_entries


_VOID_CHARS = len("null")  # VOID_NAMESPACE (None) encoded


def _void_maps(by_ns_list: list[dict[Any, dict[Any, Any]]]) -> list[dict[Any, Any]] | None:
    """Each key group's void-namespace map when that is its only map (in C), else None."""
    if sum(map(len, by_ns_list)) != len(by_ns_list):
        return None
    try:  # every key group has the void namespace's map, and (by the count) no other
        return list(map(itemgetter(None), by_ns_list))
    except KeyError:
        return None


@lru_cache(maxsize=256)
def _state_chars(name: str, kind: str) -> int | None:
    """What one state adds around its entries in one key group: ``[name,`` + the tagged dict
    ``{"kind", "entries"}`` + ``]`` and the entries list's 1 (2 brackets, one comma fewer)."""
    if type(name) is not str:
        return None
    try:
        st = len(_ENCODER.encode(state_codec.encode({"kind": kind, "entries": []}))) - 2
        return 3 + len(_ENCODER.encode(name)) + st + 1
    except (IllegalArgumentException, ValueError, TypeError):
        return None


def _by_namespace(
    by_ns_list: list[dict[Any, dict[Any, Any]]],
) -> tuple[list[dict[Any, Any]], list[int], int | None]:
    """The key → value maps, entries per key group and the namespaces' encoded length over
    all entries (None if a namespace has no JSON form)."""
    maps: list[dict[Any, Any]] = []
    n_per_kg: list[int] = []
    ns_total = 0
    ns_chars: dict[tuple[type, Any], int] = {}
    for by_ns in by_ns_list:
        n_kg = 0
        for ns, by_key in by_ns.items():
            n = len(by_key)
            if not n:
                continue
            ns_key = (type(ns), ns)  # 1, True and 1.0 are equal keys but encode apart
            ns_len = ns_chars.get(ns_key)
            if ns_len is None:
                ns_len = _encoded_length(ns)
                if ns_len is None:
                    return maps, n_per_kg, None
                ns_chars[ns_key] = ns_len
            n_kg += n
            ns_total += n * ns_len
            maps.append(by_key)
        n_per_kg.append(n_kg)
    return maps, n_per_kg, ns_total


def _items_chars(values: Sequence[Any], depth: int = 0) -> int | None:
    """The codec's encoded lengths of ``values`` (a list or tuple), summed, a type at a time
    in C; None if a value is not a native JSON atom (finite floats), a tuple or a list of those."""
    n = len(values)
    if not n:
        return 0
    try:  # strings (the codec passes str subclasses through as strings): no type pass
        joined = "".join(values)
    except TypeError:
        pass
    else:
        return _str_chars(n, joined)
    types = list(map(type, values))
    first = types[0]
    if types.count(first) == n:  # one exact type (counted by identity, in C)
        return _chars_of_kind(first, values, depth)
    kinds = set(types)
    if kinds <= _ATOMS:  # ints, bools, None and floats mixed: their '%s' forms, in one go
        return _atoms_chars(values, float in kinds)
    total = 0
    for kind in kinds:
        chars = _chars_of_kind(kind, list(compress(values, map(is_, types, repeat(kind)))), depth)
        if chars is None:
            return None
        total += chars
    return total


_ATOMS = frozenset((int, bool, type(None), float))
# the ASCII characters JSON writes escaped (control characters, DEL, '"' and '\')
_ESCAPED_ASCII = bytes(range(32)) + b'\x7f"\\'


def _str_chars(n: int, joined: str) -> int:
    """The encoded length of ``n`` strings whose concatenation is ``joined`` (escapes are per
    character, so the joined text has them all)."""
    last = _LAST_JOINED[0]  # read once: a (text, escapes) pair
    if joined == last[0]:  # the same text as last time (a state's keys, or its values' names)
        return len(joined) + last[1] + 2 * n
    escapes = 0
    if not joined.isascii():  # (a flag of the string: no scan)
        escapes = len(encode_basestring_ascii(joined)) - 2 - len(joined)
    else:
        raw = joined.encode("ascii")
        if not (raw.isalnum() or len(raw.translate(None, _ESCAPED_ASCII)) == len(raw)):
            escapes = len(encode_basestring_ascii(joined)) - 2 - len(joined)
    _LAST_JOINED[0] = (joined, escapes)
    return len(joined) + escapes + 2 * n


# the text measured last and the characters its escapes add (the keys' text and their values'
# first members are often the same: a word count's)
_LAST_JOINED: list[tuple[str, int]] = [("", 0)]


def _atoms_chars(values: Sequence[Any], floats: bool) -> int | None:
    """The encoded length of ints, bools, None and finite floats (exact types): ``%s`` writes
    each as long as JSON does (``True``/``true``, ``None``/``null``, floats by their repr)."""
    try:  # formatted back to back in C
        text = ("%s" * len(values)) % (values if type(values) is tuple else tuple(values))
    except ValueError:  # more digits than int→str allows: the codec path raises it
        return None
    if floats and ("inf" in text or "nan" in text):  # non-finite floats: the codec tags them
        return None
    return len(text)


def _ints_chars(values: Sequence[int]) -> int | None:
    """The encoded length of ints (exact type): counted on their bytes when all are below
    256 (in C), else by how many reach each power of ten (bisecting them sorted)."""
    try:
        small = bytes(values)
    except ValueError:  # one is negative or above 255
        return _sorted_ints_chars(sorted(values))
    return (
        len(small)
        + len(small.translate(None, _ONE_DIGIT))
        + len(small.translate(None, _TWO_DIGITS))
    )


def _sorted_ints_chars(ordered: list[int]) -> int | None:
    """The decimal length of ascending ints: one digit each, one more for each power of ten
    a magnitude reaches, one for each minus sign; None past the int → str digit limit."""
    n = len(ordered)
    low, high = ordered[0], ordered[-1]
    limit = sys.get_int_max_str_digits()
    if limit and max(high, -low) >= _power_of_ten(limit):  # the codec's int → str raises
        return None
    chars = n
    power = 10
    while power <= high:
        chars += n - bisect_left(ordered, power)
        power *= 10
    if low < 0:
        chars += bisect_left(ordered, 0)  # the signs
        power = -10
        while power >= low:
            chars += bisect_right(ordered, power)
            power *= 10
    return chars


@lru_cache(maxsize=2)
def _power_of_ten(exponent: int) -> int:
    return 10**exponent


_ONE_DIGIT = bytes(range(10))  # the bytes of ints below 10: deleted, the rest have 2+ digits
_TWO_DIGITS = bytes(range(100))  # … below 100: the rest have 3


def _chars_of_kind(kind: type, values: Sequence[Any], depth: int) -> int | None:
    """``_items_chars`` of values that all have the exact type ``kind``."""
    if kind is int:
        return _ints_chars(values)
    if kind is str:
        return _str_chars(len(values), "".join(values))
    if kind is float:
        return _atoms_chars(values, True)
    if kind is bool:
        true = values.count(True)
        return 4 * true + 5 * (len(values) - true)
    if kind is type(None):
        return 4 * len(values)
    if kind is tuple or kind is list:
        return _sequences_chars(values, depth, kind is tuple)
    return None


def _sequences_chars(values: Sequence[Any], depth: int, tagged: bool) -> int | None:
    """``_items_chars`` of lists or tuples: '[' + members + ']' (m + 1 characters, '[]' 2),
    plus the codec's tag around each tuple; members measured a column at a time when every
    sequence has the same length (record-like tuples), else all together."""
    if depth >= _MAX_DEPTH:
        return None
    n = len(values)
    width = len(values[0])
    columns = _columns(values, width)
    if columns is not None:
        inner = 0
        for column in columns:
            chars = _items_chars(column, depth + 1)
            if chars is None:
                return None
            inner += chars
        chars = inner + n * (width + 1) + (n if width == 0 else 0)
    else:
        lengths = list(map(len, values))
        inner = _items_chars(list(chain.from_iterable(values)), depth + 1)
        if inner is None:
            return None
        chars = inner + sum(lengths) + n + lengths.count(0)
    return chars + _TUPLE_TAG * n if tagged else chars


_ZIP_MAX = 768  # above this many sequences zip's iterators cost more than a pass per column


def _columns(values: Sequence[Any], width: int) -> list[Sequence[Any]] | None:
    """The members of ``values`` (lists or tuples) a column at a time, or None unless every
    one has ``width`` members."""
    if len(values) <= _ZIP_MAX:
        try:
            return list(zip(*values, strict=True))  # all columns in one pass
        except ValueError:
            return None
    if sum(map(len, values)) != width * len(values):
        return None
    if not width:
        return []
    try:  # every sequence reaches the last column: with the sum, each has exactly ``width``
        last = list(map(itemgetter(width - 1), values))
    except IndexError:
        return None
    return [*(list(map(itemgetter(i), values)) for i in range(width - 1)), last]


def _encoded_length(value: Any) -> int | None:
    """The codec's encoded length of one value, or None if it has no JSON form."""
    try:
        return len(_ENCODER.encode(state_codec.encode(value)))
    except (IllegalArgumentException, ValueError):
        return None
