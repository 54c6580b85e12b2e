"""Key groups of many new ``str`` keys at once (``bulk_key_groups``) equal Flink's per key."""

from __future__ import annotations

import random

from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner
from pyflowkit.graph.routing import ChannelSelector
from pyflowkit.state.bulk_key_groups import MIN_VECTORISED, str_key_groups
from pyflowkit.state.key_groups import assign_key_to_parallel_operator, assign_to_key_group


def _keys(n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    alphabet = "abcXYZ09 \x00\x7f"
    return ["", "a", "b", "hello"] + [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(n)
    ]


def test_vectorised_key_groups_equal_assign_to_key_group() -> None:
    keys = _keys(600)  # empty, 1..300 units (past the vectorised width): both paths
    for max_parallelism in (128, 7, 32768):
        expected = [assign_to_key_group(k, max_parallelism) for k in keys]
        assert str_key_groups(keys, max_parallelism) == expected
        short = [k for k in keys if len(k) <= 64]
        assert len(short) >= MIN_VECTORISED
        assert str_key_groups(short, max_parallelism) == [
            assign_to_key_group(k, max_parallelism) for k in short
        ]
    # the reference vectors (Flink 1.11.1): "a" → 81, "b" → 22, "hello" → 35
    assert str_key_groups(["a", "b", "hello"] * MIN_VECTORISED, 128)[:3] == [81, 22, 35]


def test_non_ascii_keys_are_hashed_over_utf16_code_units() -> None:
    keys = [f"ключ{i}" for i in range(50)] + ["😀", "\ud800x"]
    assert str_key_groups(keys, 128) == [assign_to_key_group(k, 128) for k in keys]


def test_batches_of_new_str_keys_route_as_record_by_record() -> None:
    """A HASH selector's batches of new keys (new, repeated, then cached) go where
    ``assignKeyToParallelOperator`` sends each record, in arrival order per channel."""
    for parallelism in (2, 3, 7):
        values = [(f"key-{parallelism}-{i % 1_999}", i) for i in range(5_000)]
        expected: list[list[tuple[str, int]]] = [[] for _ in range(parallelism)]
        for v in values:
            expected[assign_key_to_parallel_operator(v[0], 128, parallelism)].append(v)
        for with_timestamps in (False, True):
            selector = ChannelSelector(KeyGroupStreamPartitioner(lambda v: v[0]), parallelism, 128)
            got: list[list[tuple[str, int]]] = [[] for _ in range(parallelism)]
            got_ts: list[list[int | None]] = [[] for _ in range(parallelism)]
            for start in range(0, len(values), 250):
                chunk = values[start : start + 250]
                stamps = [v[1] for v in chunk] if with_timestamps else None
                for channel, (vs, ts) in enumerate(selector.route(chunk, stamps)):
                    got[channel].extend(vs)
                    got_ts[channel].extend(ts or [])
            assert got == expected
            if with_timestamps:
                assert got_ts == [[v[1] for v in e] for e in expected]


def test_mixed_and_unhashable_keys_keep_their_java_identity() -> None:
    selector = ChannelSelector(KeyGroupStreamPartitioner(lambda v: v), 4, 128)
    values = ["a", 1, True, 1.0, ("a",), ["a", 1], "b"] * 3
    routed = selector.route(values)
    expected: list[list[object]] = [[] for _ in range(4)]
    for v in values:
        expected[assign_key_to_parallel_operator(v, 128, 4)].append(v)
    assert [vs for vs, _ in routed] == expected


def _pickled_key_group(key: str, max_parallelism: int) -> int:
    """PyFlink 1.20's key group of an undeclared key, from its pickled bytes (the slow way):
    ``Row.of(pickle.dumps(key, 5))``'s ``hashCode`` = 62 + ``Arrays.hashCode``, then murmur."""
    import pickle

    from pyflowkit.state.key_groups import murmur_hash

    h = 1
    for b in pickle.dumps(key, protocol=5):
        h = (31 * h + (b - 256 if b > 127 else b)) & 0xFFFFFFFF
    h = (h + 62) & 0xFFFFFFFF
    return murmur_hash(h - (1 << 32) if h & 0x80000000 else h) % max_parallelism


def test_pickled_str_keys_of_1_20_hash_as_their_pickled_bytes() -> None:
    """Under 1.20 an undeclared ``str`` key is hashed from its length and ``String.hashCode``
    (``pickled_ascii_str_hash``), key by key and vectorised: equal to hashing its pickled bytes,
    for every length up to the 256 where pickle switches opcode, and past it."""
    from pyflowkit.state.java_hash import pickled_row_hash

    keys = _keys(600) + ["x" * n for n in range(250, 260)] + ["ключ", "😀"] * 13
    for max_parallelism in (128, 7, 32768):
        expected = [_pickled_key_group(k, max_parallelism) for k in keys]
        assert [assign_to_key_group(k, max_parallelism, pickled_row_hash) for k in keys] == expected
        assert str_key_groups(keys, max_parallelism, pickled_row_hash) == expected
        ascii_short = [k for k in keys if len(k) < 256 and k.isascii()]
        assert str_key_groups(ascii_short, max_parallelism, pickled_row_hash) == [
            _pickled_key_group(k, max_parallelism) for k in ascii_short
        ]


def test_pickled_int_keys_of_1_20_hash_as_their_pickled_bytes() -> None:
    """Under 1.20 an undeclared ``int`` key in Java's int range is hashed without pickling it
    (``pickled_int32_hash``), equal to hashing its pickled bytes at each opcode's edges (BININT1,
    BININT2, BININT) and past the int range (LONG1, pickled); ``bool`` keeps its own opcode."""
    from pyflowkit.state.java_hash import pickled_row_hash

    rng = random.Random(7)
    edges = [0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, -1, -128, -129, -256]
    edges += [2**31 - 1, -(2**31), 2**31, -(2**31) - 1, 2**63, -(2**70), True, False]
    keys = edges + [rng.randint(-(2**31), 2**31 - 1) for _ in range(3000)]
    keys += [rng.randint(0, 70000) for _ in range(3000)]
    for max_parallelism in (128, 7, 32768):
        assert [assign_to_key_group(k, max_parallelism, pickled_row_hash) for k in keys] == [
            _pickled_key_group(k, max_parallelism) for k in keys
        ]
