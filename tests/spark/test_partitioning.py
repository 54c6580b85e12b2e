"""Routing on Spark reproduces Flink's ship strategies and keeps partition i == subtask i."""

from __future__ import annotations

import random

import pytest

from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    CustomPartitionerWrapper,
    ForwardPartitioner,
    GlobalPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    ShufflePartitioner,
)
from pyflowkit.graph.routing import ChannelSelector, pointwise_sources
from pyflowkit.spark import partitioning as P

# Real Flink 1.11 key-group vectors (reference §1.5, maxP = 128): key -> subtask for p = 2, 3, 4.
FLINK_VECTORS = [
    (1, (1, 2, 2)),
    (2, (1, 2, 3)),
    (42, (0, 0, 0)),
    ("a", (1, 1, 2)),
    ("b", (0, 0, 0)),
    ("hello", (0, 0, 1)),
    (True, (1, 1, 2)),
]


def routed(selector: ChannelSelector, values: list) -> dict[int, list]:
    """Consumer subtask → the values ``ChannelSelector.route`` sends it, in order."""
    return {
        selector.consumers[ch]: vals for ch, (vals, _) in enumerate(selector.route(values)) if vals
    }


@pytest.mark.parametrize(("key", "subtasks"), FLINK_VECTORS)
def test_hash_routes_keys_to_flinks_subtasks(key, subtasks) -> None:
    for p, expected in zip((2, 3, 4), subtasks, strict=True):
        sel = ChannelSelector.for_subtask(KeyGroupStreamPartitioner(lambda v: v), 0, 1, p)
        assert sel.select(key) == expected


@pytest.mark.parametrize(("key", "subtasks"), [*FLINK_VECTORS, (100, (1, 1, 2))])
def test_spark_routing_uses_the_graphs_key_group_math(key, subtasks) -> None:
    """One key-group implementation: the Spark selector's per-record and batch routes, the graph's
    single-key and vectorised assignment and real Flink agree (also for a repeated, cached key)."""
    from pyflowkit.state import key_groups as KG

    for p, expected in zip((2, 3, 4), subtasks, strict=True):
        sel = ChannelSelector.for_subtask(KeyGroupStreamPartitioner(lambda v: v), 0, 1, p)
        assert KG.assign_key_to_parallel_operator(key, 128, p) == expected
        assert KG.assign_keys_to_parallel_operator([key, key], 128, p) == [expected] * 2
        assert routed(sel, [key, key]) == {expected: [key, key]}
        assert sel.select(key) == expected  # now from the selector's cache


def test_vectorised_assignment_keeps_java_types_apart() -> None:
    # Python: 1 == True == 1.0; Java: Integer 1, Boolean true (1231), Double 1.0 hash differently
    from pyflowkit.state import key_groups as KG

    keys = [1, True, 1.0, "a", 1, ("a",), True]
    known: dict = {}
    got = KG.assign_keys_to_parallel_operator(keys, 128, 4, known)
    assert got == [KG.assign_key_to_parallel_operator(k, 128, 4) for k in keys]
    assert got[:2] == [2, 2] and got[3] == 2  # §1.5: 1 -> 86, true -> 77, "a" -> 81 (p=4: 2)
    assert known == {1: 2, "a": 2}  # only str/int keys are cached


def test_one_murmur3_for_flink_and_spark() -> None:
    from pyflowkit.state import key_groups as KG

    for code in (0, 1, 42, 97, 99162322, -7, 2**31 - 1, -(2**31)):
        signed = KG.murmur3_hash_int(code, 0)
        assert KG.murmur_hash(code) == (abs(signed) if signed != -(2**31) else 0)
        assert P.spark_hash_int(code) == KG.murmur3_hash_int(code, P.SPARK_HASH_SEED)


def test_batch_route_sends_records_where_select_does() -> None:
    a = ChannelSelector.for_subtask(RebalancePartitioner(), 0, 1, 3, rng=random.Random(5))
    b = ChannelSelector.for_subtask(RebalancePartitioner(), 0, 1, 3, rng=random.Random(5))
    want: dict[int, list[int]] = {}
    for x in range(7):
        want.setdefault(b.select(x), []).append(x)
    assert routed(a, list(range(7))) == want
    fwd = ChannelSelector.for_subtask(ForwardPartitioner(), 2, 3, 3)
    assert routed(fwd, [1, 2, 3]) == {2: [1, 2, 3]}


def test_hash_uses_the_consumers_max_parallelism() -> None:
    # key 1 -> key group 86 with maxP 128 (subtask 1 of 2); with maxP 256 the group changes
    sel128 = ChannelSelector.for_subtask(KeyGroupStreamPartitioner(lambda v: v), 0, 1, 2, 128)
    sel_default = ChannelSelector.for_subtask(KeyGroupStreamPartitioner(lambda v: v), 0, 1, 2, -1)
    assert sel128.select(1) == sel_default.select(1) == 1
    from pyflowkit.state.key_groups import assign_key_to_parallel_operator

    sel256 = ChannelSelector.for_subtask(KeyGroupStreamPartitioner(lambda v: v), 0, 1, 3, 256)
    assert [sel256.select(k) for k in range(50)] == [
        assign_key_to_parallel_operator(k, 256, 3) for k in range(50)
    ]


def test_forward_keeps_the_subtask() -> None:
    for producer in range(3):
        sel = ChannelSelector.for_subtask(ForwardPartitioner(), producer, 3, 3)
        assert {sel.select(x) for x in range(10)} == {producer}
    with pytest.raises(ValueError, match="Forward partitioning does not allow change"):
        ChannelSelector.for_subtask(ForwardPartitioner(), 0, 1, 2)


def test_rebalance_is_round_robin_from_a_seeded_start() -> None:
    sel = ChannelSelector.for_subtask(RebalancePartitioner(), 0, 1, 3, rng=random.Random(7))
    start = random.Random(7).randrange(3)
    assert [sel.select(x) for x in range(7)] == [(start + 1 + i) % 3 for i in range(7)]


def test_global_and_broadcast() -> None:
    g = ChannelSelector.for_subtask(GlobalPartitioner(), 1, 2, 4)
    assert {g.select(x) for x in range(9)} == {0}
    b = ChannelSelector.for_subtask(BroadcastPartitioner(), 1, 2, 4)
    assert b.is_broadcast and b.targets == [0, 1, 2, 3]


def test_shuffle_is_seeded_and_in_range() -> None:
    a = ChannelSelector.for_subtask(ShufflePartitioner(), 0, 1, 4, rng=random.Random(3))
    b = ChannelSelector.for_subtask(ShufflePartitioner(), 0, 1, 4, rng=random.Random(3))
    xs = [a.select(i) for i in range(100)]
    assert xs == [b.select(i) for i in range(100)]
    assert set(xs) == {0, 1, 2, 3}


def test_custom_partitioner() -> None:
    sel = ChannelSelector.for_subtask(
        CustomPartitionerWrapper(lambda k, n: k % n, lambda v: v[0]), 0, 1, 3
    )
    assert [sel.select((i, "x")) for i in range(6)] == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(
    ("s", "t", "expected"),
    [
        (2, 2, {0: [0], 1: [1]}),
        (1, 3, {0: [0], 1: [0], 2: [0]}),
        (2, 4, {0: [0], 1: [0], 2: [1], 3: [1]}),
        (4, 2, {0: [0, 1], 1: [2, 3]}),
        (3, 2, {0: [0], 1: [1, 2]}),
        (2, 3, {0: [0], 1: [0], 2: [1]}),
    ],
)
def test_pointwise_wiring_matches_flink_1_11(s, t, expected) -> None:
    assert {c: list(pointwise_sources(s, t, c)) for c in range(t)} == expected


def test_rescale_round_robins_over_local_consumers() -> None:
    sel = ChannelSelector.for_subtask(
        RescalePartitioner(), 1, 2, 4
    )  # producer 1 feeds consumers 2, 3
    assert [sel.select(x) for x in range(5)] == [2, 3, 2, 3, 2]
    down = ChannelSelector.for_subtask(
        RescalePartitioner(), 3, 4, 2
    )  # 4 -> 2: producer 3 feeds consumer 1
    assert {down.select(x) for x in range(4)} == {1}


def test_spark_hash_int_matches_known_values() -> None:
    # Spark: SELECT hash(0), hash(1), hash(42) -> 933211791, -559580957, 29417773
    assert [P.spark_hash_int(v) for v in (0, 1, 42)] == [933211791, -559580957, 29417773]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16])
def test_partition_keys_cover_every_partition(n: int) -> None:
    keys = P.partition_keys(n)
    assert [P.spark_partition_of(k, n) for k in keys] == list(range(n))


@pytest.mark.spark
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_repartition_by_target_puts_subtask_i_in_partition_i(spark, n: int) -> None:
    from pyspark.sql import functions as F

    rows = [(i % n, i) for i in range(40)] if n > 1 else [(0, i) for i in range(40)]
    df = spark.createDataFrame(rows, "target int, v int")
    out = P.repartition_by_target(df, n).select("target", F.spark_partition_id().alias("pid"))
    pairs = {(r.target, r.pid) for r in out.collect()}
    assert pairs == {(t, t) for t in range(n)}
    assert P.repartition_by_target(df, n).rdd.getNumPartitions() == n
