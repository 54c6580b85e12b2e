"""Java ``hashCode()`` semantics for Python keys (Flink routes keys by the Java hash, never ``hash()``)."""

from __future__ import annotations

import math
import struct
from typing import Any

from pyflowkit.errors import InvalidTypesException
from pyflowkit.java_semantics import (
    INT_MAX_VALUE,
    INT_MIN_VALUE,
    PickledKey,
    pickled_key_hash_code,
)

_MASK = 0xFFFFFFFF
_PICKLED_KEY_TYPES = (list, dict, set)


def to_int32(value: int) -> int:
    """Wrap an integer to Java's 32-bit two's complement."""
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def string_hash(s: str) -> int:
    """``java.lang.String.hashCode``: s[0]*31^(n-1) + … over UTF-16 code units."""
    h = 0
    if s.isascii():
        for ch in s.encode("ascii"):
            h = (31 * h + ch) & _MASK
    else:
        data = s.encode("utf-16-le", "surrogatepass")  # a lone surrogate is one code unit
        for i in range(0, len(data), 2):
            h = (31 * h + (data[i] | data[i + 1] << 8)) & _MASK
    return to_int32(h)


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
