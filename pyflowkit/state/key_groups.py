"""Key groups: Flink's ``KeyGroupRangeAssignment`` and ``MathUtils.murmurHash``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES
from pyflowkit.state.java_hash import java_hash_code, to_int32

DEFAULT_LOWER_BOUND_MAX_PARALLELISM = 1 << 7
UPPER_BOUND_MAX_PARALLELISM = 1 << 15
_M = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def key_batch_selector(selector: Callable[[Any], Any]) -> Callable[[Sequence[Any]], list[Any]]:
    """The keys of many records at once, as ``selector`` gives them one by one: the selector's
    own batch form ``select_keys`` where it has one (a ``key_by`` with a declared ``key_type``
    converts the keys a column at a time), else one call per record."""
    select_keys = getattr(selector, "select_keys", None)
    if select_keys is not None:
        return select_keys
    return lambda values: list(map(selector, values))


def murmur3_hash_int(value: int, seed: int = 0) -> int:
    """Murmur3_x86_32 of one 4-byte int, signed: the mixing of Flink's ``MathUtils.murmurHash``
    (seed 0) and of Spark's ``Murmur3_x86_32.hashInt`` (``HashPartitioning`` uses seed 42)."""
    k1 = (value & _M) * 0xCC9E2D51 & _M
    k1 = _rotl(k1, 15)
    k1 = k1 * 0x1B873593 & _M
    h1 = _rotl((seed & _M) ^ k1, 13)
    h1 = (h1 * 5 + 0xE6546B64) & _M
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _M
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _M
    h1 ^= h1 >> 16
    return to_int32(h1)


def murmur_hash(code: int) -> int:
    """``MathUtils.murmurHash(int)``: one murmur3 round plus finalisation, made non-negative
    (``murmur3_hash_int(code)`` with seed 0, inlined: it runs for every new key)."""
    k1 = (code & _M) * 0xCC9E2D51 & _M
    k1 = ((k1 << 15) | (k1 >> 17)) & _M
    k1 = k1 * 0x1B873593 & _M
    h1 = ((k1 << 13) | (k1 >> 19)) & _M
    h1 = (h1 * 5 + 0xE6546B64) & _M
    h1 ^= 4
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _M
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _M
    h1 ^= h1 >> 16
    if h1 < 0x80000000:
        return h1
    return 0 if h1 == 0x80000000 else (1 << 32) - h1  # -signed; Integer.MIN_VALUE → 0


def assign_to_key_group(
    key: Any, max_parallelism: int, hash_code: Callable[[Any], int] = java_hash_code
) -> int:
    """``KeyGroupRangeAssignment.assignToKeyGroup``: murmur(hashCode) % maxParallelism.

    ``hash_code`` is the key's ``hashCode()`` (the profile's ``key_by`` rule: see
    ``java_hash.key_hash_function``)."""
    return murmur_hash(hash_code(key)) % max_parallelism


SHARED_LIMIT = 1 << 18  # keys a shared memo holds before it starts over
_SHARED: dict[tuple[Callable[[Any], int], int, type], dict[Any, int]] = {}


def shared_key_groups(
    hash_code: Callable[[Any], int], max_parallelism: int, key_type: type
) -> dict[Any, int] | None:
    """The process-wide memo of ``assign_to_key_group`` under a module-level hashCode rule
    (``java_hash_code``, ``pickled_row_hash``) for keys of exactly ``key_type``, ``str`` or
    ``int`` (their hashCode is a function of their value; one memo per type, so a lookup of
    ``True`` or ``1.0`` never finds ``1``); None for another rule or type. A ``key_by``'s
    partitioner fills it as it routes a record, and the keyed operator behind the hash edge
    reads the key group there: Flink computes ``assignToKeyGroup`` on both sides of the edge
    from the same key, with the same result."""
    memo = _SHARED.get((hash_code, max_parallelism, key_type))
    if memo is None:
        from pyflowkit.state.java_hash import pickled_row_hash

        if hash_code is not java_hash_code and hash_code is not pickled_row_hash:
            return None
        if key_type is not str and key_type is not int:
            return None
        memo = _SHARED[(hash_code, max_parallelism, key_type)] = {}
    return memo


def memo_key_group(
    memo: dict[Any, int], key: str | int, max_parallelism: int, hash_code: Callable[[Any], int]
) -> int:
    """``assign_to_key_group`` of an exact ``str`` or ``int`` key through ``memo``
    (``shared_key_groups``)."""
    kg = memo.get(key)
    if kg is None:
        if len(memo) >= SHARED_LIMIT:
            memo.clear()
        kg = memo[key] = murmur_hash(hash_code(key)) % max_parallelism
    return kg


def compute_operator_index_for_key_group(
    max_parallelism: int, parallelism: int, key_group: int
) -> int:
    """``computeOperatorIndexForKeyGroup``: which subtask owns a key group."""
    return key_group * parallelism // max_parallelism


def assign_key_to_parallel_operator(
    key: Any,
    max_parallelism: int,
    parallelism: int,
    hash_code: Callable[[Any], int] = java_hash_code,
) -> int:
    """``assignKeyToParallelOperator``: the subtask index a key is routed to."""
    return compute_operator_index_for_key_group(
        max_parallelism, parallelism, assign_to_key_group(key, max_parallelism, hash_code)
    )


def assign_keys_to_parallel_operator(
    keys: Iterable[Any], max_parallelism: int, parallelism: int, known: dict[Any, int] | None = None
) -> list[int]:
    """``assignKeyToParallelOperator`` for many keys at once: each distinct ``str``/``int`` key is
    hashed once (other keys every time: Python's ``1 == True == 1.0`` differ in Java); ``known``
    (key → subtask, for these parallelisms) carries the cache across calls."""
    if known is None:
        known = {}
    out: list[int] = []
    append = out.append
    for key in keys:
        if type(key) in SELF_IDENTIFYING_KEY_TYPES:
            index = known.get(key)
            if index is None:
                index = known[key] = assign_key_to_parallel_operator(
                    key, max_parallelism, parallelism
                )
            append(index)
        else:
            append(assign_key_to_parallel_operator(key, max_parallelism, parallelism))
    return out


@dataclass(frozen=True)
class KeyGroupRange:
    """Flink's ``KeyGroupRange``: an inclusive range of key groups owned by one subtask."""

    start_key_group: int
    end_key_group: int

    def __contains__(self, key_group: int) -> bool:
        return self.start_key_group <= key_group <= self.end_key_group

    def __iter__(self):
        return iter(range(self.start_key_group, self.end_key_group + 1))

    def __len__(self) -> int:
        return max(0, self.end_key_group - self.start_key_group + 1)

    def __str__(self) -> str:
        return f"KeyGroupRange{{startKeyGroup={self.start_key_group}, endKeyGroup={self.end_key_group}}}"


def compute_key_group_range_for_operator_index(
    max_parallelism: int, parallelism: int, operator_index: int
) -> KeyGroupRange:
    """``computeKeyGroupRangeForOperatorIndex``: the key groups subtask ``operator_index`` owns."""
    check_parallelism_preconditions(parallelism)
    check_parallelism_preconditions(max_parallelism)
    if max_parallelism < parallelism:
        raise IllegalArgumentException("Maximum parallelism must not be smaller than parallelism.")
    start = (operator_index * max_parallelism + parallelism - 1) // parallelism
    end = ((operator_index + 1) * max_parallelism - 1) // parallelism
    return KeyGroupRange(start, end)


def round_up_to_power_of_two(x: int) -> int:
    """``MathUtils.roundUpToPowerOfTwo``."""
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def compute_default_max_parallelism(operator_parallelism: int) -> int:
    """``computeDefaultMaxParallelism``: min(max(roundUp(p + p/2), 128), 32768)."""
    check_parallelism_preconditions(operator_parallelism)
    return min(
        max(
            round_up_to_power_of_two(operator_parallelism + operator_parallelism // 2),
            DEFAULT_LOWER_BOUND_MAX_PARALLELISM,
        ),
        UPPER_BOUND_MAX_PARALLELISM,
    )


def check_parallelism_preconditions(parallelism: int) -> None:
    """``checkParallelismPreconditions``: 0 < parallelism <= 32768."""
    if not 0 < parallelism <= UPPER_BOUND_MAX_PARALLELISM:
        raise IllegalArgumentException(f"Operator parallelism not within bounds: {parallelism}")
