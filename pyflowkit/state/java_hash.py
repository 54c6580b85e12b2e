"""Java ``hashCode()`` semantics for Python keys (Flink routes keys by the Java hash, never ``hash()``)."""

from __future__ import annotations

import math
import struct
from itertools import repeat
from operator import lshift, mul, or_
from typing import Any

from pyflowkit.errors import InvalidTypesException
from pyflowkit.java_semantics import (
    INT_MAX_VALUE,
    INT_MIN_VALUE,
    PickledKey,
    declared_state_key,
    java_state_key,
    pickled_key_hash_code,
    state_key,
)

_MASK = 0xFFFFFFFF
_PICKLED_KEY_TYPES = (list, dict, set)


def to_int32(value: int) -> int:
    """Wrap an integer to Java's 32-bit two's complement."""
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


_CHUNK = 64  # code units hashed per C-level sum
# _POWERS[n]: 31^(n-1) … 31^0 (mod 2^32), the weights of an n-unit string's units
_POWERS = [[pow(31, k, 1 << 32) for k in range(n - 1, -1, -1)] for n in range(_CHUNK + 1)]


def string_hash(s: str) -> int:
    """``java.lang.String.hashCode``: s[0]*31^(n-1) + … over UTF-16 code units.

    Summed up to 64 code units at a time in C (``sum(map(mul, …))`` with the powers of 31
    mod 2^32): the value of Java's loop, which wraps modulo 2^32 too."""
    if s.isascii():
        units: Any = s.encode("ascii")
    else:  # a lone surrogate is one code unit
        data = s.encode("utf-16-le", "surrogatepass")
        units = data[0::2] if not any(data[1::2]) else _utf16_units(data)
    n = len(units)
    if n <= _CHUNK:
        h = sum(map(mul, units, _POWERS[n])) & _MASK
    else:
        h = 0
        for start in range(0, n, _CHUNK):
            chunk = units[start : start + _CHUNK]
            k = len(chunk)
            h = (h * pow(31, k, 1 << 32) + sum(map(mul, chunk, _POWERS[k]))) & _MASK
    return h - (1 << 32) if h & 0x80000000 else h


def _utf16_units(data: bytes) -> list[int]:
    """The UTF-16 code units of little-endian ``data``."""
    return list(map(or_, data[0::2], map(lshift, data[1::2], repeat(8))))


def long_hash(v: int) -> int:
    """``java.lang.Long.hashCode``: ``(int)(v ^ (v >>> 32))``."""
    v &= 0xFFFFFFFFFFFFFFFF
    return to_int32(v ^ (v >> 32))


def double_hash(v: float) -> int:
    """``java.lang.Double.hashCode`` over ``doubleToLongBits`` (NaN canonicalised)."""
    if math.isnan(v):
        bits = 0x7FF8000000000000
    else:
        bits = struct.unpack("<q", struct.pack("<d", v))[0]
    return long_hash(bits)


def java_hash_code(key: Any) -> int:
    """The Java ``hashCode()`` Flink would compute for ``key``.

    str → String, bool → Boolean (1231/1237), int → Integer inside the int range else Long,
    float → Double, None → 0, tuple → Flink ``TupleN.hashCode`` (31·h + …, seeded by f0),
    Row → ``Arrays.deepHashCode`` of its fields (Flink 1.11 ``Row.hashCode``).
    """
    if isinstance(key, str):
        return string_hash(key)
    if isinstance(key, PickledKey) or type(key) in _PICKLED_KEY_TYPES:
        return pickled_key_hash_code(key)  # PyFlink keys an undeclared key type by its pickle
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, int):
        if INT_MIN_VALUE <= key <= INT_MAX_VALUE:
            return key
        return long_hash(key)
    if isinstance(key, float):
        return double_hash(key)
    if key is None:
        return 0
    row_fields = getattr(key, "_flink_row_fields", None)
    if row_fields is not None:
        h = 1
        for field in row_fields():
            h = (31 * h + java_hash_code(field)) & _MASK
        return to_int32(h)
    if isinstance(key, tuple):
        if not key:
            return 0
        h = java_hash_code(key[0]) & _MASK
        for field in key[1:]:
            h = (31 * h + java_hash_code(field)) & _MASK
        return to_int32(h)
    java_hash = getattr(key, "java_hash_code", None)
    if callable(java_hash):
        return to_int32(java_hash())
    raise InvalidTypesException(
        f"Type {type(key).__name__} cannot be used as key: Flink needs a key with a stable "
        "hashCode() (str, int, float, bool, tuple or Row; a list, dict or set is keyed by its "
        f"pickled bytes); a {type(key).__name__} has none. Return one of those, or give it a "
        "java_hash_code() method."
    )


# --- The key PyFlink 1.20 keys a stream by (profile rule KEY_BY_ROW, FLIP-130) ---------------
# ``key_by`` emits ``Row(key, value)`` typed ``ROW([key_type or PICKLED_BYTE_ARRAY, …])`` and
# keys the Java stream by ``KeyByKeySelector``'s ``Row.of(key)``, whose ``hashCode`` is
# ``RowUtils.deepHashCodeRow``: ``31 * kind.toByteValue() + deepHashCodeArray(fields)``, a leaf
# field hashed as ``Arrays.deepHashCode(new Object[]{field})``, i.e. ``31 * (31 + h) + …``.
# For ``Row.of(k)`` (kind INSERT = 0) that is ``62 + hashCode(k)`` (verified against
# flink-dist 1.20.3: ``Row.of("a").hashCode() == 159``).


def _bytes_hash(data: bytes) -> int:
    """``java.util.Arrays.hashCode(byte[])`` over signed bytes."""
    h = 1
    for b in data:
        h = (31 * h + (b - 256 if b > 127 else b)) & _MASK
    return to_int32(h)


def _float_hash(v: float) -> int:
    """``java.lang.Float.hashCode``: ``floatToIntBits`` (NaN canonicalised)."""
    if math.isnan(v):
        return 0x7FC00000
    return struct.unpack("<i", struct.pack("<f", v))[0]


def _row_leaf(h: int) -> int:
    """A non-array field inside ``deepHashCodeArray``: ``Arrays.deepHashCode({field})``."""
    return to_int32(31 + h)


def row_deep_hash_code(fields: list[int], kind_byte: int = 0) -> int:
    """``RowUtils.deepHashCodeRow`` of a Row whose (leaf) fields hash to ``fields``."""
    h = 1
    for f in fields:
        h = (31 * h + _row_leaf(f)) & _MASK
    return to_int32(31 * kind_byte + to_int32(h))


def typed_java_hash_code(value: Any, type_info: Any) -> int:
    """The ``hashCode()`` of ``value``'s Java object as PyFlink's coder builds it for
    ``type_info`` (Long for LONG, Float for FLOAT, Tuple for TUPLE, Row for ROW, …)."""
    if value is None:
        return 0
    basic = getattr(type_info, "basic_type", None)
    name = getattr(basic, "name", None)
    if name == "LONG" and isinstance(value, int):
        return long_hash(value)
    if name == "FLOAT" and isinstance(value, int | float):
        return _float_hash(float(value))
    if name == "DOUBLE" and isinstance(value, int | float):
        return double_hash(float(value))
    if name in ("INT", "SHORT", "BYTE") and isinstance(value, int):
        return to_int32(value)
    field_types = getattr(type_info, "get_field_types", None)
    if field_types is not None:
        types = field_types()
        values = list(getattr(value, "_flink_row_fields", lambda: value)())
        hashes = [typed_java_hash_code(v, t) for v, t in zip(values, types, strict=False)]
        if type(type_info).__name__ == "RowTypeInfo":
            kind = value.get_row_kind() if hasattr(value, "get_row_kind") else None
            return row_deep_hash_code(hashes, getattr(kind, "value", 0) or 0)
        if not hashes:
            return 0
        h = hashes[0] & _MASK  # TupleN.hashCode: 31 * h + field.hashCode(), seeded by f0
        for f in hashes[1:]:
            h = (31 * h + f) & _MASK
        return to_int32(h)
    return java_hash_code(value)


def pickled_row_hash(key: Any) -> int:
    """``Row.of(key).hashCode()`` for a key of an undeclared type in PyFlink 1.20: its pickled
    bytes as ``CloudPickleCoderImpl`` writes them (protocol 5)."""
    tk = type(key)
    if tk is str and len(key) < 256 and key.isascii():
        return to_int32(62 + pickled_ascii_str_hash(string_hash(key) & _MASK, len(key)))
    if tk is int and -0x80000000 <= key <= 0x7FFFFFFF:
        return to_int32(62 + pickled_int32_hash(key))
    import pickle

    from pyflowkit.java_semantics import _plain

    return to_int32(62 + _bytes_hash(pickle.dumps(_plain(key), protocol=5)))


# An ASCII ``str`` of length L < 256 pickles (protocol 5) as PROTO 5, FRAME (L + 4, 8 bytes
# little-endian), SHORT_BINUNICODE L, its L bytes, MEMOIZE, STOP: its ``Arrays.hashCode`` is
# ``head(L) · 31^(L+2) + String.hashCode · 31^2 + tail`` (mod 2^32), the middle being Java's
# ``String.hashCode`` (an ASCII byte is its UTF-16 code unit). Checked against pickle itself.
_TAIL = (31 * -108 + 0x2E) & _MASK  # MEMOIZE (0x94, signed -108), STOP ('.')


def _pickled_str_head(length: int) -> int:
    head = b"\x80\x05\x95" + (length + 4).to_bytes(8, "little") + b"\x8c" + bytes([length])
    return _bytes_hash(head) & _MASK


#: (head(L) · 31^(L+2)) mod 2^32 for L < 256
PICKLED_STR_HEAD = [_pickled_str_head(n) * pow(31, n + 2, 1 << 32) & _MASK for n in range(256)]


def pickled_ascii_str_hash(unsigned_string_hash: int, length: int) -> int:
    """``Arrays.hashCode(pickle.dumps(s, 5))`` (unsigned) of an ASCII ``s`` of ``length`` < 256
    whose ``String.hashCode`` is ``unsigned_string_hash`` (mod 2^32)."""
    return (PICKLED_STR_HEAD[length] + unsigned_string_hash * 961 + _TAIL) & _MASK


# An int pickles (protocol 5) as PROTO 5, then BININT1 (0 ≤ k < 256, no frame), or FRAME and
# BININT2 (k < 65536) or BININT (any other 32-bit int, little-endian), then STOP: its
# ``Arrays.hashCode`` is the head's hash times 31^(n+1) plus the n argument bytes (signed, as
# Java's ``byte``) weighted by powers of 31, plus STOP ('.'). Checked against pickle itself.
_FRAME = b"\x80\x05\x95"
_INT_HEAD1 = _bytes_hash(b"\x80\x05K") * 31**2 & _MASK
_INT_HEAD2 = _bytes_hash(_FRAME + (4).to_bytes(8, "little") + b"M") * 31**3 & _MASK
_INT_HEAD4 = _bytes_hash(_FRAME + (6).to_bytes(8, "little") + b"J") * 31**5 & _MASK


def pickled_int32_hash(key: int) -> int:
    """``Arrays.hashCode(pickle.dumps(key, 5))`` (unsigned) of an ``int`` in Java's int range,
    without pickling it."""
    if 0 <= key < 0x100:
        return (_INT_HEAD1 + (key - 256 if key > 127 else key) * 31 + 0x2E) & _MASK
    u = key & _MASK
    b0, b1 = u & 0xFF, (u >> 8) & 0xFF
    s0, s1 = (b0 - 256 if b0 > 127 else b0), (b1 - 256 if b1 > 127 else b1)
    if 0 <= key < 0x10000:
        return (_INT_HEAD2 + s0 * 961 + s1 * 31 + 0x2E) & _MASK
    b2, b3 = (u >> 16) & 0xFF, u >> 24
    s2, s3 = (b2 - 256 if b2 > 127 else b2), (b3 - 256 if b3 > 127 else b3)
    return (_INT_HEAD4 + s0 * 923521 + s1 * 29791 + s2 * 961 + s3 * 31 + 0x2E) & _MASK


def key_hash_function(keys_by_row: bool, key_type: Any) -> Any:
    """The ``hashCode`` the key groups of a keyed stream are computed from.

    1.11 (Java keyBy): the key's own ``hashCode``. 1.20 (PyFlink key_by): ``Row.of(key)``'s,
    the key being its declared ``key_type``'s Java value or, undeclared, its pickled bytes
    (``cloudpickle.dumps``: pickle protocol 5, what PyFlink's ``CloudPickleCoderImpl`` writes for
    a ``PICKLED_BYTES`` field of the operator's output).
    """
    if not keys_by_row:
        return java_hash_code
    if key_type is None or type(key_type).__name__ == "PickledBytesTypeInfo":
        return pickled_row_hash

    def typed_row_hash(key: Any) -> int:
        return to_int32(62 + typed_java_hash_code(key, key_type))

    return typed_row_hash


def state_key_function(keys_by_row: bool, key_type: Any) -> Any:
    """How the keyed state tables tell keys apart (``equals`` of the key as Flink holds it).

    1.11 (Java keyBy): Java's ``equals`` of the key's Java value (``java_state_key``: ``1``,
    ``True`` and ``1.0`` are three keys, a ``str`` subclass is its String). 1.20 (PyFlink
    key_by): an undeclared key is its pickled bytes (``state_key``: a ``str`` subclass is apart
    too); a declared ``key_type``'s coder makes Python-equal keys one value (``True`` as INT is
    ``1``), so they are held as they are, save ``-0.0`` and NaN (``declared_state_key``).
    """
    if not keys_by_row:
        return java_state_key
    if key_type is None or type(key_type).__name__ == "PickledBytesTypeInfo":
        return state_key
    return declared_state_key
