"""A tagged JSON encoding of state values for savepoints: reading one back runs no code.

Plain JSON values pass through; tuples, dicts with any keys, sets, bytes, non-finite floats,
``Row``, ``TimeWindow``, ``CountWindow``, ``GlobalWindow`` and ``TimestampedValue`` (an evictor's
pane elements) become ``{"@": tag, ...}`` objects.
Anything else is refused with an error naming the type (no pickle, ever).
"""

from __future__ import annotations

import base64
import json
import math
from itertools import chain
from operator import itemgetter
from typing import Any

from pyflowkit.errors import IllegalArgumentException

TAG = "@"
_PLAIN = frozenset((str, int, bool, type(None)))  # exact types that pass through unchanged


def encode(value: Any, where: str = "state") -> Any:
    """A JSON-ready form of ``value`` (see the module docstring for the tags)."""
    tv = type(value)
    if tv in _PLAIN:
        return value
    if tv is list:
        return [v if type(v) in _PLAIN else encode(v, where) for v in value]
    if tv is tuple:  # the exact type (a namedtuple is not a plain tuple: it takes the path below)
        return {TAG: "tuple", "v": [v if type(v) in _PLAIN else encode(v, where) for v in value]}
    if tv is dict:
        return {TAG: "dict", "v": [[encode(k, where), encode(v, where)] for k, v in value.items()]}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {TAG: "float", "v": repr(value)}
    if isinstance(value, list):
        return [encode(v, where) for v in value]
    if isinstance(value, tuple):
        return {TAG: "tuple", "v": [encode(v, where) for v in value]}
    if isinstance(value, dict):
        return {TAG: "dict", "v": [[encode(k, where), encode(v, where)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        tag = "set" if isinstance(value, set) else "frozenset"
        items = [encode(v, where) for v in value]
        return {TAG: tag, "v": sorted(items, key=lambda e: json.dumps(e, sort_keys=True))}
    if isinstance(value, (bytes, bytearray)):
        return {TAG: "bytes", "v": base64.b64encode(bytes(value)).decode("ascii")}
    kind = type(value).__name__
    from pyflowkit.common.types import Row
    from pyflowkit.datastream.window import (
        CountWindow,
        GlobalWindow,
        TimestampedValue,
        TimeWindow,
    )

    if isinstance(value, Row):
        fields = value._fields
        return {
            TAG: "Row",
            "v": [encode(v, where) for v in value._values],
            "f": None if fields is None else list(fields),
            "k": value._row_kind.name,
        }
    if isinstance(value, TimeWindow):
        return {TAG: "TimeWindow", "s": value.start, "e": value.end}
    if isinstance(value, CountWindow):
        return {TAG: "CountWindow", "id": value.id}
    if isinstance(value, GlobalWindow):
        return {TAG: "GlobalWindow"}
    if isinstance(value, TimestampedValue):
        return {TAG: "TimestampedValue", "v": encode(value.value, where), "t": value.timestamp}
    raise IllegalArgumentException(
        f"Cannot write {where} to a savepoint: values of type {kind} have no JSON form. "
        "Savepoints hold plain data (numbers, strings, lists, tuples, dicts, sets, bytes, Row, "
        "windows, timestamped values); keep state in those types."
    )


def decode(data: Any) -> Any:
    """The inverse of ``encode``; unknown tags are an error (nothing is ever executed)."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    tag = data.get(TAG)
    if tag == "tuple":
        return tuple(decode(v) for v in data["v"])
    if tag == "dict":
        return {_hashable(decode(k)): decode(v) for k, v in data["v"]}
    if tag == "set":
        return {_hashable(decode(v)) for v in data["v"]}
    if tag == "frozenset":
        return frozenset(_hashable(decode(v)) for v in data["v"])
    if tag == "bytes":
        return base64.b64decode(data["v"])
    if tag == "float":
        return float(data["v"])
    if tag == "Row":
        from pyflowkit.common.types import Row, RowKind

        row = Row(*[decode(v) for v in data["v"]])
        if data.get("f") is not None:
            row._fields = list(data["f"])
        row._row_kind = RowKind[data.get("k", "INSERT")]
        return row
    if tag == "TimeWindow":
        from pyflowkit.datastream.window import TimeWindow

        return TimeWindow(int(data["s"]), int(data["e"]))
    if tag == "CountWindow":
        from pyflowkit.datastream.window import CountWindow

        return CountWindow(int(data["id"]))
    if tag == "GlobalWindow":
        from pyflowkit.datastream.window import GlobalWindow

        return GlobalWindow.get()
    if tag == "TimestampedValue":
        from pyflowkit.datastream.window import TimestampedValue

        t = data.get("t")
        return TimestampedValue(decode(data["v"]), None if t is None else int(t))
    raise IllegalArgumentException(f"Unknown tag {tag!r} in savepoint state: {data!r:.80}.")


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


_SIZE_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)
_TUPLE_TAG_CHARS = len('{"@":"tuple","v":}')  # what the tag adds around a tuple's JSON array
_DICT_TAG_CHARS = len('{"@":"dict","v":[]}') - len("{}")  # … around a dict (plus 2 per item)
_ENTRY_COLUMNS = tuple(itemgetter(i) for i in range(3))


def snapshot_size(snapshot: dict[str, Any]) -> int:
    """``state_size`` of an operator snapshot's plain form (``OperatorSnapshot.to_dict()``).

    The keyed state's length is computed by the C JSON encoder over the plain structure when
    every key, namespace and value is a plain atom, a finite float or a tuple of those: each
    tuple's and dict's tag adds a fixed number of characters to the plain JSON (a dict's also two
    per item); anything else takes ``state_size``.
    """
    keyed = snapshot.get("keyed_state")
    if not keyed:
        return state_size(snapshot)
    tuples = _plain_tuple_count(keyed)
    if tuples is None:
        return state_size(snapshot)
    # the tagged length of the snapshot with an empty keyed state, minus that empty dict's
    rest = state_size({**snapshot, "keyed_state": {}}) - len('{"@":"dict","v":[]}')
    dicts = [keyed, *keyed.values(), *(st for per_kg in keyed.values() for st in per_kg.values())]
    tags = sum(_DICT_TAG_CHARS + 2 * len(d) for d in dicts) + _TUPLE_TAG_CHARS * tuples
    return rest + len(_SIZE_ENCODER.encode(keyed)) + tags


def _plain_tuple_count(keyed: dict[str, Any]) -> int | None:
    """How many tuples the keyed state's entries hold, or None if anything else needs a tag."""
    tuples = 0
    if type(keyed) is not dict:
        return None
    for kg, per_kg in keyed.items():
        if type(kg) is not str or type(per_kg) is not dict:
            return None
        for name, st in per_kg.items():
            if type(name) is not str or type(st) is not dict or set(st) != {"kind", "entries"}:
                return None
            if type(st["kind"]) is not str or st["kind"] == "map":
                return None
            if type(st["entries"]) is not list:
                return None
            entries = st["entries"]
            if not all(type(e) is list and len(e) == 3 for e in entries):
                return None
            for column in _ENTRY_COLUMNS:
                items = list(map(column, entries))
                kinds = set(map(type, items))
                if kinds <= _PLAIN:
                    continue
                if tuple in kinds:
                    inner = [x for x in items if type(x) is tuple]
                    tuples += len(inner)
                    inner_kinds = set(map(type, chain.from_iterable(inner)))
                    if not inner_kinds <= _PLAIN_OR_FLOAT:
                        return None
                    if float in inner_kinds and not _finite(chain.from_iterable(inner)):
                        return None
                if not kinds <= _PLAIN_OR_FLOAT | {tuple}:
                    return None
                if float in kinds and not _finite(items):
                    return None
    return tuples


_PLAIN_OR_FLOAT = _PLAIN | {float}


def _finite(values: Any) -> bool:
    return all(math.isfinite(v) for v in values if type(v) is float)


def dumps(value: Any, where: str = "state") -> str:
    return json.dumps(encode(value, where), sort_keys=True, separators=(",", ":"))


def loads(text: str) -> Any:
    return decode(json.loads(text))


def state_size(value: Any) -> int:
    """Bytes of the encoded form (Flink's ``getStateSize``); unencodable values count by repr."""
    try:  # the length of ``dumps(value)``: key order does not change it, and the text is ASCII
        return len(_SIZE_ENCODER.encode(encode(value)))
    except IllegalArgumentException:
        return len(repr(value).encode("utf-8"))
