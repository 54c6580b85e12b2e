"""Flink's routing on Spark: partition i of a stage is Flink subtask i.

Which subtask a record goes to is decided by ``pyflowkit.graph.routing`` (the one routing model of
every host); this module only makes Spark honour it: the target subtask travels as a column, and
a surrogate key whose Spark hash lands on partition ``target`` makes ``repartition(n, key)`` exact.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.state.key_groups import murmur3_hash_int

SPARK_HASH_SEED = 42  # HashPartitioning: pmod(Murmur3Hash(exprs, 42), numPartitions)


# --- Spark's HashPartitioning, so that partition i == target subtask i ------------------------


def spark_hash_int(value: int, seed: int = SPARK_HASH_SEED) -> int:
    """Spark's ``Murmur3_x86_32.hashInt`` (as ``Murmur3Hash`` on an IntegerType column), signed."""
    return murmur3_hash_int(value, seed)


def spark_partition_of(value: int, num_partitions: int) -> int:
    """``pmod(hash(value), n)``: the partition ``repartition(n, intColumn)`` sends ``value`` to."""
    return spark_hash_int(value) % num_partitions


def partition_keys(num_partitions: int) -> list[int]:
    """For each partition i, the smallest non-negative int that Spark hashes to partition i."""
    keys: list[int | None] = [None] * num_partitions
    missing, candidate = num_partitions, 0
    while missing:
        p = spark_partition_of(candidate, num_partitions)
        if keys[p] is None:
            keys[p] = candidate
            missing -= 1
        candidate += 1
    return keys  # type: ignore[return-value]


def repartition_by_target(df: Any, num_partitions: int, target_col: str = "target") -> Any:
    """Spark ``repartition(n, key)`` with the surrogate key of column ``target``: partition i gets
    exactly the rows whose target is i (an explicit partition count is never coalesced by AQE)."""
    from pyspark.sql import functions as F

    from pyflowkit.spark.plan_columns import session_column

    def surrogate_key() -> Any:
        keys = F.array(*[F.lit(k) for k in partition_keys(num_partitions)])
        return F.element_at(keys, F.col(target_col) + 1)

    key = session_column(
        df.sparkSession, ("surrogate key", num_partitions, target_col), surrogate_key
    )
    return df.repartition(num_partitions, key)
