"""The exact state size of an operator snapshot whose keyed state is still frozen (not
materialised): the length ``state_codec.state_size`` gives the snapshot's plain form.

Flink's ``StateObject.getStateSize`` of what ``HeapSnapshotStrategy`` writes. Every key and value
of every state goes through the C JSON encoder once, as one flat list; the structure around the
entries (key groups, state names, brackets, tags) is counted arithmetically. Values the codec
tags other than tuples (dicts outside map state, sets, bytes, ``Row``, windows, …) take the
materialising path instead (``state_codec.snapshot_size``), which gives the same number.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import chain, compress, repeat
from operator import is_
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint import state_codec
from pyflowkit.state.snapshot import OperatorSnapshot

# allow_nan=False: a non-finite float (which the codec tags) raises, and the slow path takes over
_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False, allow_nan=False)
_NATIVE = frozenset((str, int, bool, type(None), float))  # encoded alike by the codec and C
_NESTED = _NATIVE | {tuple, list}
_TUPLE_TAG = len('{"@":"tuple","v":}')  # what the codec adds around a tuple's JSON array
_EMPTY_DICT = len('{"@":"dict","v":[]}')  # the codec's form of an empty dict
_MAX_DEPTH = 8

FrozenTables = Iterable[tuple[str, str, dict[int, dict[Any, dict[Any, Any]]]]]


def operator_snapshot_size(snapshot: OperatorSnapshot) -> int:
    """``state_codec.snapshot_size(snapshot.to_dict())``, without materialising frozen keyed
    state when its keys and values allow (the snapshot stays frozen)."""
    pending = snapshot.pending_keyed_state
    tables = None if pending is None else pending.frozen_tables()
    if tables is not None:
        keyed = keyed_state_size(tables)
        if keyed is not None:
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


def keyed_state_size(tables: FrozenTables) -> int | None:
    """The codec's encoded length of the materialised keyed state (key groups as strings:
    ``{kg: {name: {"kind", "entries": [[key, namespace, value], …]}}}``), or None when a key,
    namespace or value needs the general path."""
    items: list[Any] = []  # every key and value (map state: user keys and values), flat
    chars = 0  # everything around them
    states_per_kg: dict[int, int] = {}
    for name, kind, key_groups in tables:
        if type(name) is not str:
            return None
        try:
            name_chars = len(_ENCODER.encode(name))
            st_chars = len(_ENCODER.encode(state_codec.encode({"kind": kind, "entries": []}))) - 2
        except (IllegalArgumentException, ValueError, TypeError):
            return None
        is_map = kind == "map"
        ns_chars: dict[tuple[type, Any], int] = {}
        for kg, by_ns in key_groups.items():
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
                        return None
                    ns_chars[ns_key] = ns_len
                n_kg += n
                chars += n * ns_len
                items.extend(by_key)
                if is_map:
                    user_maps = list(by_key.values())
                    if set(map(type, user_maps)) != {dict}:
                        return None
                    # each user map is a list of [user key, user value] pairs: '[]' when empty
                    sizes = list(map(len, user_maps))
                    chars += len(sizes) + 4 * sum(sizes) + sizes.count(0)
                    items.extend(chain.from_iterable(user_maps))
                    items.extend(chain.from_iterable(map(dict.values, user_maps)))
                else:
                    items.extend(by_key.values())
            if n_kg:
                # '[name,' + st + ']' with the entries list: 1 + 5 per entry + their parts
                chars += 3 + name_chars + st_chars + 1 + 5 * n_kg
                states_per_kg[kg] = states_per_kg.get(kg, 0) + 1
    for kg, n_states in states_per_kg.items():
        # '["kg",' + tagged dict of the key group's states + ']'
        chars += 5 + len(str(kg)) + _EMPTY_DICT + n_states - 1
    chars += _EMPTY_DICT + max(0, len(states_per_kg) - 1)
    if not items:
        return chars
    tags = _tuple_tags(items, 0)
    if tags is None:
        return None
    try:
        encoded = len(_ENCODER.encode(items))
    except (ValueError, TypeError):
        return None
    # the flat list's own brackets and commas are not part of the entries
    return chars + encoded - (len(items) + 1) + _TUPLE_TAG * tags


def _encoded_length(value: Any) -> int | None:
    """The codec's encoded length of one value, or None if it has no JSON form."""
    try:
        return len(_ENCODER.encode(state_codec.encode(value)))
    except (IllegalArgumentException, ValueError):
        return None


def _tuple_tags(values: list[Any], depth: int) -> int | None:
    """How many tuples ``values`` hold at any depth, or None if a value is not a native JSON
    atom, a tuple or a list of those (the C encoder would not write the codec's form)."""
    types = list(map(type, values))
    kinds = set(types)
    if kinds <= _NATIVE:
        return 0
    if depth >= _MAX_DEPTH or not kinds <= _NESTED:
        return None
    tags = 0
    for kind in (tuple, list):
        if kind in kinds:
            members = list(chain.from_iterable(compress(values, map(is_, types, repeat(kind)))))
            inner = _tuple_tags(members, depth + 1)
            if inner is None:
                return None
            tags += inner + (types.count(tuple) if kind is tuple else 0)
    return tags
