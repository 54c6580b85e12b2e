"""KeyGroupRangeAssignment against the reference §1.5 vectors (real Flink 1.11.1 output)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.state.java_hash import java_hash_code
from pyflowkit.state.key_groups import (
    assign_key_to_parallel_operator,
    assign_to_key_group,
    compute_default_max_parallelism,
    compute_key_group_range_for_operator_index,
    murmur3_hash_int,
    murmur_hash,
)


@pytest.mark.parametrize(
    ("key", "hash_code", "key_group", "p2", "p3", "p4"),
    [
        (1, 1, 86, 1, 2, 2),
        (2, 2, 127, 1, 2, 3),
        (42, 42, 29, 0, 0, 0),
        ("a", 97, 81, 1, 1, 2),
        ("b", 98, 22, 0, 0, 0),
        ("hello", 99162322, 35, 0, 0, 1),
        (True, 1231, 77, 1, 1, 2),
        (("a",), 97, 81, 1, 1, 2),
    ],
)
def test_reference_vectors(key, hash_code, key_group, p2, p3, p4) -> None:
    assert java_hash_code(key) == hash_code
    assert assign_to_key_group(key, 128) == key_group
    assert [assign_key_to_parallel_operator(key, 128, p) for p in (2, 3, 4)] == [p2, p3, p4]


def test_murmur_of_long_100_hash_code() -> None:
    assert murmur_hash(100) % 128 == 64  # 100L: Long.hashCode(100) == 100


def test_key_group_ranges() -> None:
    ranges = [compute_key_group_range_for_operator_index(128, 3, i) for i in range(3)]
    assert [(r.start_key_group, r.end_key_group) for r in ranges] == [(0, 42), (43, 85), (86, 127)]


@pytest.mark.parametrize(
    ("p", "m"), [(1, 128), (4, 128), (85, 128), (86, 256), (100, 256), (1000, 2048), (30000, 32768)]
)
def test_default_max_parallelism(p: int, m: int) -> None:
    assert compute_default_max_parallelism(p) == m


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: compute_default_max_parallelism(0), "Operator parallelism not within bounds: 0"),
        (
            lambda: compute_key_group_range_for_operator_index(40000, 2, 0),
            "Operator parallelism not within bounds: 40000",
        ),
        (
            lambda: compute_key_group_range_for_operator_index(2, 4, 0),
            "Maximum parallelism must not be smaller than parallelism.",
        ),
    ],
)
def test_parallelism_preconditions_use_flinks_messages(call, message: str) -> None:
    from pyflowkit.errors import IllegalArgumentException

    with pytest.raises(IllegalArgumentException) as e:
        call()
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("key", "hash_code"),
    [
        ("\ud800", 0xD800),  # a lone surrogate is one UTF-16 code unit, as a Java char
        ("a\udc00", 31 * 97 + 0xDC00),
        ("\U0001f600", 31 * 0xD83D + 0xDE00),  # an astral char: its surrogate pair
        ("\ud83d\ude00", 31 * 0xD83D + 0xDE00),  # the same two code units, written as a pair
    ],
)
def test_string_hash_over_utf16_code_units_with_surrogates(key: str, hash_code: int) -> None:
    """``String.hashCode`` of strings with surrogates (a Python str may hold a lone one, which
    has no UTF-8 form): key groups can be assigned to such keys as Flink would."""
    assert java_hash_code(key) == hash_code
    assert 0 <= assign_to_key_group(key, 128) < 128


@given(st.integers(-(2**40), 2**40))
def test_murmur_hash_is_the_non_negative_murmur3_round_with_seed_0(code: int) -> None:
    """``MathUtils.murmurHash``: ``murmur3_hash_int`` (seed 0) made non-negative, and
    Integer.MIN_VALUE → 0 (the inlined form agrees with the general one)."""
    signed = murmur3_hash_int(code)
    expected = 0 if signed == -(2**31) else abs(signed)
    assert murmur_hash(code) == expected
