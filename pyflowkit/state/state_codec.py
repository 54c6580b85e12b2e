"""A tagged JSON encoding of state values for state files: reading one back runs no code.

Plain JSON values pass through; tuples, dicts with any keys, sets, bytes, non-finite floats,
dates and times, decimals, ``Row``, ``TimeWindow``, ``CountWindow``, ``GlobalWindow`` and
``TimestampedValue`` (an evictor's pane elements) become ``{"@": tag, ...}`` objects. A user's
own objects (classes, dataclasses, NamedTuples, enums) are written with their schema, as
Flink's ``PojoSerializer`` writes a POJO: ``module:qualified name`` and the fields by name;
reading one back rebuilds it only from a class the restoring job uses (``user_types``), with
``object.__new__`` and its fields set directly (no ``__init__``, no ``__reduce__``, no import).
A value with no schema form is pickled only when the job trusts pickled state files
(``pyflowkit.state.trust-pickled-state-files``, Flink's trust model); otherwise it is refused
with an error naming its type.
"""

from __future__ import annotations

import base64
import datetime as dt
import inspect
import json
import math
import pickle
from decimal import Decimal
from enum import Enum
from itertools import chain
from operator import itemgetter
from types import MemberDescriptorType
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.state.user_types import (
    NO_CLASSES,
    TRUST_PICKLED_STATE_FILES,
    StateClasses,
    StateClassNotAllowed,
    class_name,
    slot_names,
)

TAG = "@"
_PLAIN = frozenset((str, int, bool, type(None)))  # exact types that pass through unchanged


def encode(value: Any, where: str = "state", trust_pickled: bool = False) -> Any:
    """A JSON-ready form of ``value`` (see the module docstring for the tags)."""
    tv = type(value)
    if tv in _PLAIN:
        return value
    t = trust_pickled
    if tv is list:
        return [v if type(v) in _PLAIN else encode(v, where, t) for v in value]
    if tv is tuple:  # the exact type (a namedtuple is not a plain tuple: it takes the path below)
        return {TAG: "tuple", "v": [v if type(v) in _PLAIN else encode(v, where, t) for v in value]}
    if tv is dict:
        return {
            TAG: "dict",
            "v": [[encode(k, where, t), encode(v, where, t)] for k, v in value.items()],
        }
    if tv is float:
        return value if math.isfinite(value) else {TAG: "float", "v": repr(value)}
    if isinstance(value, Enum):
        return {TAG: "enum", "c": _named(tv, where), "n": value.name}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else {TAG: "float", "v": repr(value)}
    if isinstance(value, list):
        return [encode(v, where, t) for v in value]
    if isinstance(value, tuple):
        if isinstance(getattr(tv, "_fields", None), tuple):  # a NamedTuple: its class, by name
            return {
                TAG: "ntuple",
                "c": _named(tv, where),
                "v": [encode(v, where, t) for v in value],
            }
        return {TAG: "tuple", "v": [encode(v, where, t) for v in value]}
    if isinstance(value, dict):
        return {
            TAG: "dict",
            "v": [[encode(k, where, t), encode(v, where, t)] for k, v in value.items()],
        }
    if isinstance(value, (set, frozenset)):
        tag = "set" if isinstance(value, set) else "frozenset"
        items = [encode(v, where, t) for v in value]
        return {TAG: tag, "v": sorted(items, key=lambda e: json.dumps(e, sort_keys=True))}
    if isinstance(value, (bytes, bytearray)):
        return {TAG: "bytes", "v": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, (dt.date, dt.time)):  # datetime is a date
        return {TAG: _dt_tag(value), "v": value.isoformat()}
    if isinstance(value, dt.timedelta):
        return {TAG: "timedelta", "v": [value.days, value.seconds, value.microseconds]}
    if isinstance(value, Decimal):
        return {TAG: "decimal", "v": str(value)}
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
            "v": [encode(v, where, t) for v in value._values],
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
        return {TAG: "TimestampedValue", "v": encode(value.value, where, t), "t": value.timestamp}
    return _encode_object(value, where, t)


def _dt_tag(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return "datetime"
    return "date" if isinstance(value, dt.date) else "time"


def _encode_object(value: Any, where: str, trust_pickled: bool) -> Any:
    """A user object with its schema (class name, fields by name), or pickled if trusted."""
    tv = type(value)
    fields = _object_fields(value)
    if fields is not None and _nameable(tv) and _plain_layout(tv):
        return {
            TAG: "obj",
            "c": class_name(tv),
            "f": {name: encode(v, where, trust_pickled) for name, v in fields.items()},
        }
    if trust_pickled:
        try:
            data = pickle.dumps(value, protocol=5)
        except Exception as exc:  # noqa: BLE001 - any pickling failure names the type
            raise IllegalArgumentException(
                f"Cannot write {where} to a state file: values of type {tv.__name__} cannot be "
                f"pickled either ({exc})."
            ) from None
        return {TAG: "pickle", "v": base64.b64encode(data).decode("ascii")}
    why = (
        "is defined inside a function (define it at module level: a state file names a class by "
        "module and qualified name)"
        if not _nameable(tv)
        else "has no fields to write (no __dict__ or __slots__)"
        if fields is None
        else "extends a built-in type other than object, tuple or Enum"
    )
    raise IllegalArgumentException(
        f"Cannot write {where} to a state file: values of type {tv.__name__} have no JSON form: "
        f"the class {why}. State files hold plain data (numbers, strings, lists, tuples, dicts, "
        "sets, bytes, dates, Row, windows) and objects of module-level classes, dataclasses, "
        f"NamedTuples and enums, field by field; to pickle other values set "
        f"'{TRUST_PICKLED_STATE_FILES}: true' (only for state files you trust)."
    )


def _nameable(cls: type) -> bool:
    return "<locals>" not in cls.__qualname__ and cls.__module__ not in (None, "builtins")


def _plain_layout(cls: type) -> bool:
    """Instances are built by ``object.__new__`` (no built-in base but ``object``)."""
    return all(b.__flags__ & (1 << 9) or b is object for b in cls.__mro__)  # Py_TPFLAGS_HEAPTYPE


def _object_fields(value: Any) -> dict[str, Any] | None:
    try:
        own = object.__getattribute__(value, "__dict__")
    except AttributeError:
        own = None
    slots = slot_names(type(value))
    if own is None and not slots:
        return None
    fields = dict(own) if isinstance(own, dict) else {}
    for name in slots:
        try:
            fields[name] = object.__getattribute__(value, name)
        except AttributeError:
            continue
    return fields


def _named(cls: type, where: str) -> str:
    if not _nameable(cls):
        raise IllegalArgumentException(
            f"Cannot write {where} to a state file: class {cls.__qualname__} is defined inside a "
            "function; define it at module level (a state file names a class by module and "
            "qualified name)."
        )
    return class_name(cls)


def decode(data: Any, classes: StateClasses = NO_CLASSES) -> Any:
    """The inverse of ``encode``; unknown tags are an error (nothing is ever executed). User
    objects are rebuilt only from ``classes`` (the restoring job's, see ``user_types``)."""
    if isinstance(data, list):
        return [decode(v, classes) for v in data]
    if not isinstance(data, dict):
        return data
    tag = data.get(TAG)
    if tag == "tuple":
        return tuple(decode(v, classes) for v in data["v"])
    if tag == "dict":
        return {_hashable(decode(k, classes)): decode(v, classes) for k, v in data["v"]}
    if tag == "set":
        return {_hashable(decode(v, classes)) for v in data["v"]}
    if tag == "frozenset":
        return frozenset(_hashable(decode(v, classes)) for v in data["v"])
    if tag == "bytes":
        return base64.b64decode(data["v"])
    if tag == "float":
        return float(data["v"])
    if tag == "obj":
        return _decode_object(data, classes)
    if tag == "ntuple":
        cls = classes.resolve(data["c"])
        values = [decode(v, classes) for v in data["v"]]
        fields = getattr(cls, "_fields", None)
        if (
            not issubclass(cls, tuple)
            or not isinstance(fields, tuple)
            or len(fields) != len(values)
        ):
            raise StateClassNotAllowed(
                f"class {data['c']!r} is not a NamedTuple of {len(values)} fields in this job."
            )
        return tuple.__new__(cls, values)
    if tag == "enum":
        cls = classes.resolve(data["c"])
        members = getattr(cls, "__members__", None) if issubclass(cls, Enum) else None
        if members is None or data["n"] not in members:
            raise StateClassNotAllowed(f"enum {data['c']!r} has no member {data['n']!r}.")
        return members[data["n"]]
    if tag == "pickle":
        classes.refuse_pickle()
        return pickle.loads(base64.b64decode(data["v"]))
    if tag in _DATES:
        return _DATES[tag](data["v"])
    if tag == "timedelta":
        days, seconds, micros = data["v"]
        return dt.timedelta(days=int(days), seconds=int(seconds), microseconds=int(micros))
    if tag == "decimal":
        return Decimal(str(data["v"]))
    if tag == "Row":
        from pyflowkit.common.types import Row, RowKind

        row = Row(*[decode(v, classes) for v in data["v"]])
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
        return TimestampedValue(decode(data["v"], classes), None if t is None else int(t))
    raise IllegalArgumentException(f"Unknown tag {tag!r} in state: {data!r:.80}.")


_DATES = {
    "datetime": dt.datetime.fromisoformat,
    "date": dt.date.fromisoformat,
    "time": dt.time.fromisoformat,
}


def _decode_object(data: dict[str, Any], classes: StateClasses) -> Any:
    """``object.__new__`` of an allowed class, its fields set directly (no code of it runs)."""
    cls = classes.resolve(data["c"])
    fields = data["f"]
    if not isinstance(fields, dict) or not _plain_layout(cls) or issubclass(cls, (tuple, Enum)):
        raise StateClassNotAllowed(
            f"class {data['c']!r} cannot be rebuilt field by field (its fields must be a JSON "
            "object and the class a plain class of this job)."
        )
    obj = object.__new__(cls)
    slots = set(slot_names(cls))
    own = None
    for name, value in fields.items():
        value = decode(value, classes)
        if name in slots:
            slot = inspect.getattr_static(cls, name, None)
            if not isinstance(slot, MemberDescriptorType):
                raise StateClassNotAllowed(f"class {data['c']!r} has no slot {name!r} in this job.")
            slot.__set__(obj, value)  # the slot's member descriptor: no code of the class runs
            continue
        if own is None:
            try:
                own = object.__getattribute__(obj, "__dict__")
            except AttributeError:
                raise StateClassNotAllowed(
                    f"class {data['c']!r} has no field {name!r} in this job."
                ) from None
        own[name] = value
    return obj


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


def dumps(value: Any, where: str = "state", trust_pickled: bool = False) -> str:
    return json.dumps(encode(value, where, trust_pickled), sort_keys=True, separators=(",", ":"))


def loads(text: str | bytes, classes: StateClasses = NO_CLASSES) -> Any:
    return decode(json.loads(text), classes)


def state_size(value: Any) -> int:
    """Bytes of the encoded form (Flink's ``getStateSize``); unencodable values count by repr."""
    try:  # the length of ``dumps(value)``: key order does not change it, and the text is ASCII
        return len(_SIZE_ENCODER.encode(encode(value)))
    except IllegalArgumentException:
        return len(repr(value).encode("utf-8"))
