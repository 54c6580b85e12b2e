"""Key groups of many new ``str`` keys at once: ``KeyGroupRangeAssignment.assignToKeyGroup``
vectorised.

Not a Flink class: Flink hashes each key as it routes it (``String.hashCode`` then
``MathUtils.murmurHash``, modulo the max parallelism). A stream of ever new keys pays that per
record; here the keys a batch has not seen before are hashed together with numpy in unsigned
32-bit arithmetic, which wraps exactly as Java's ``int`` does: ``String.hashCode`` as one
product of the (right-aligned, zero-padded) code units with the powers of 31, then the murmur
round and finalisation. ASCII keys only (a code unit is a byte); anything else, or a batch too
small to repay numpy's call overhead, is hashed key by key (``key_groups.murmur_hash`` over
``java_hash.string_hash``) with the same result. Under PyFlink 1.20's rule (``pickled_row_hash``:
``Row.of(pickled bytes)``) the pickled bytes' hash is an affine function of ``String.hashCode``
per key length (``java_hash.pickled_ascii_str_hash``), applied to the whole column.
"""

from __future__ import annotations

from itertools import repeat
from typing import Any

from pyflowkit.state.java_hash import (
    PICKLED_STR_HEAD,
    java_hash_code,
    pickled_row_hash,
    string_hash,
)
from pyflowkit.state.key_groups import murmur_hash

MIN_VECTORISED = 24  # distinct new keys from which numpy pays off
MAX_VECTORISED_LENGTH = 256  # longer keys: key by key (the padded matrix grows with the longest)

_np: Any = None  # numpy, imported on first use (``import pyflowkit`` stays light)
_powers: Any = None  # _powers[L]: 31^(L-1) … 31^0 mod 2^32 as uint64
_heads: Any = None  # PICKLED_STR_HEAD as uint64
# MEMOIZE, STOP after the pickled string, then Row.of's 62 (java_hash.pickled_row_hash)
_PICKLED_TAIL = (31 * -108 + 0x2E + 62) & 0xFFFFFFFF


def _numpy() -> Any:
    global _np, _powers, _heads
    if _np is None:
        import numpy

        _heads = numpy.array(PICKLED_STR_HEAD, dtype=numpy.uint64)
        weights = [pow(31, k, 1 << 32) for k in range(MAX_VECTORISED_LENGTH)]
        _powers = [
            numpy.array(weights[:length][::-1], dtype=numpy.uint64)
            for length in range(MAX_VECTORISED_LENGTH + 1)
        ]
        _np = numpy
    return _np


def str_key_groups(
    keys: list[str], max_parallelism: int, hash_code: Any = java_hash_code
) -> list[int]:
    """``assignToKeyGroup`` under ``hash_code`` (Java's ``String.hashCode``, or PyFlink 1.20's
    ``pickled_row_hash``) for each of ``keys`` (exact ``str``s), in order."""
    pickled = hash_code is pickled_row_hash
    if len(keys) >= MIN_VECTORISED:
        vectorised = _vectorised(keys, max_parallelism, pickled)
        if vectorised is not None:
            return vectorised
    if pickled:
        return [murmur_hash(pickled_row_hash(k)) % max_parallelism for k in keys]
    return [murmur_hash(string_hash(k)) % max_parallelism for k in keys]


def _vectorised(keys: list[str], max_parallelism: int, pickled: bool) -> list[int] | None:
    """The numpy path, or None where it does not apply (non-ASCII or very long keys)."""
    joined = "".join(keys)
    if not joined.isascii():
        return None
    width = max(map(len, keys))
    if width > MAX_VECTORISED_LENGTH or (pickled and width >= MAX_VECTORISED_LENGTH):
        return None  # a pickled str of 256 bytes or more is BINUNICODE: key by key
    np = _numpy()
    n = len(keys)
    if width == 0 and not pickled:
        return [0] * n  # "".hashCode() == 0, murmurHash(0) == 0
    padded = "".join(map(str.rjust, keys, repeat(width), repeat("\0"))).encode("ascii")
    units = np.frombuffer(padded, dtype=np.uint8).reshape(n, width).astype(np.uint64)
    # Σ unit·31^k < 2^7 · 2^32 · 256 < 2^64: exact in uint64, then Java's int wrap (mod 2^32)
    h64 = (units @ _powers[width]) & np.uint64(0xFFFFFFFF)
    if pickled:  # Row.of(pickle.dumps(key, 5)).hashCode(), per key length
        lengths = np.fromiter(map(len, keys), dtype=np.intp, count=n)
        h64 = (_heads[lengths] + h64 * np.uint64(961) + np.uint64(_PICKLED_TAIL)) & np.uint64(
            0xFFFFFFFF
        )
    h = h64.astype(np.uint32)
    u32 = np.uint32
    k1 = h * u32(0xCC9E2D51)
    k1 = (k1 << u32(15)) | (k1 >> u32(17))
    k1 = k1 * u32(0x1B873593)
    h1 = (k1 << u32(13)) | (k1 >> u32(19))
    h1 = h1 * u32(5) + u32(0xE6546B64)
    h1 ^= u32(4)
    h1 ^= h1 >> u32(16)
    h1 = h1 * u32(0x85EBCA6B)
    h1 ^= h1 >> u32(13)
    h1 = h1 * u32(0xC2B2AE35)
    h1 ^= h1 >> u32(16)
    # MathUtils.murmurHash: non-negative (-code for a negative int, Integer.MIN_VALUE → 0)
    signed = h1.view(np.int32).astype(np.int64)
    code = np.abs(signed)
    code[code == 0x80000000] = 0
    return (code % max_parallelism).tolist()


def bulk_applies(hash_code: Any) -> bool:
    """Whether ``str_key_groups`` computes this ``hashCode`` rule (Java's own keys, 1.11, or
    PyFlink 1.20's ``Row.of`` of the pickled key)."""
    return hash_code is java_hash_code or hash_code is pickled_row_hash
