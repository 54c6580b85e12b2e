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
