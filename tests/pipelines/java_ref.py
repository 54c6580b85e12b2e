"""An independent plain-Python reference for Flink's key routing (reference §1.5).

Java ``hashCode`` for the key types the catalog uses (String, Integer/Long, Boolean, Tuple) and
``KeyGroupRangeAssignment`` (murmur mix, key group, operator index). Written from the fact sheet,
not from ``pyflowkit.graph``, so the suites can check the runtimes against it.

Two versions route keys differently (the profile's KEY_BY_ROW rule, FLIP-130): Flink 1.11's Java
``keyBy`` hashes the key itself; PyFlink 1.20's ``key_by`` emits ``Row(key, value)`` and keys the
Java stream by ``KeyByKeySelector``'s ``Row.of(key)``, whose ``RowUtils.deepHashCodeRow`` is
``31 * kind + deepHashCodeArray(fields)`` with a leaf field hashed as ``Arrays.deepHashCode(
new Object[]{field})``: ``62 + hashCode(key)`` for ``Row.of(key)`` (``Row.of("a").hashCode()`` is
159 in flink-dist 1.20.3). Keys of a declared ``key_type`` only (every catalog ``key_by`` declares
one); undeclared keys are pickled bytes in PyFlink.
"""

from __future__ import annotations

from typing import Any

MASK = 0xFFFFFFFF


def _i32(v: int) -> int:
    v &= MASK
    return v - (1 << 32) if v & 0x80000000 else v


def java_hash(key: Any) -> int:
    """``Object.hashCode`` of the Java value a Python key stands for."""
    if isinstance(key, bool):
        return 1231 if key else 1237
    if isinstance(key, int):
        if -(2**31) <= key < 2**31:
            return key  # Integer.hashCode
        return _i32(key ^ ((key & 0xFFFFFFFFFFFFFFFF) >> 32))  # Long.hashCode
    if isinstance(key, str):
        units = key.encode("utf-16-be")  # String.hashCode runs over UTF-16 code units
        h = 0
        for i in range(0, len(units), 2):
            h = (31 * h + (units[i] << 8 | units[i + 1])) & MASK
        return _i32(h)
    if isinstance(key, tuple):
        h = 0  # Flink's TupleN.hashCode: 31 * h + field hash, starting from the first field
        for field in key:
            h = _i32(31 * h + java_hash(field))
        return h
    raise TypeError(f"no Java hashCode reference for {key!r}")


def _rotl(x: int, n: int) -> int:
    x &= MASK
    return ((x << n) | (x >> (32 - n))) & MASK


def murmur_hash(code: int) -> int:
    """``MathUtils.murmurHash(int)``."""
    code = (code * 0xCC9E2D51) & MASK
    code = _rotl(code, 15)
    code = (code * 0x1B873593) & MASK
    code = _rotl(code, 13)
    code = (code * 5 + 0xE6546B64) & MASK
    code ^= 4
    code ^= code >> 16
    code = (code * 0x85EBCA6B) & MASK
    code ^= code >> 13
    code = (code * 0xC2B2AE35) & MASK
    code ^= code >> 16
    signed = _i32(code)
    if signed >= 0:
        return signed
    return -signed if signed != -(2**31) else 0


V1_11, V1_20 = "1.11", "1.20"


def row_of_key_hash(key: Any) -> int:
    """``Row.of(key).hashCode()`` (kind INSERT) of a declared key: ``62 + key.hashCode()``."""
    return _i32(62 + java_hash(key))


def routing_hash(key: Any, version: str = V1_11) -> int:
    """The ``hashCode`` a keyed stream's key groups come from under ``version``."""
    if version == V1_11:
        return java_hash(key)
    if version == V1_20:
        return row_of_key_hash(key)
    raise ValueError(f"no key routing reference for Flink {version!r}")


def key_group(key: Any, max_parallelism: int = 128, version: str = V1_11) -> int:
    return murmur_hash(routing_hash(key, version)) % max_parallelism


def subtask_of(key: Any, parallelism: int, max_parallelism: int = 128, version: str = V1_11) -> int:
    """The 0-based operator index a key is routed to (``assignKeyToParallelOperator``)."""
    return key_group(key, max_parallelism, version) * parallelism // max_parallelism
