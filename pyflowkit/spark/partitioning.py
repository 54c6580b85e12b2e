"""Flink's routing on Spark: each producer subtask picks target subtasks exactly as Flink's
``RecordWriter`` + ``StreamPartitioner`` would, and Spark partition i becomes Flink subtask i.

Stands for Flink's ``ChannelSelectorRecordWriter`` / ``BroadcastRecordWriter`` and the POINTWISE
wiring of ``ExecutionVertex.connectPointwise`` (1.11). The target subtask travels as a column; a
surrogate key whose Spark hash lands on partition ``target`` makes ``repartition(n, key)`` exact.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from pyflowkit.graph.key_groups import (
    assign_keys_to_parallel_operator,
    compute_default_max_parallelism,
    murmur3_hash_int,
)
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES

_KEY_CACHE_LIMIT = 1 << 16
SPARK_HASH_SEED = 42  # HashPartitioning: pmod(Murmur3Hash(exprs, 42), numPartitions)


def pointwise_sources(s: int, t: int, consumer: int) -> list[int]:
    """Producer partitions consumer subtask ``consumer`` reads on a POINTWISE edge (1.11 rules)."""
    if s == t:
        return [consumer]
    if s < t:
        if t % s == 0:
            return [consumer // (t // s)]
        return [int(consumer / (t / s))]
    if s % t == 0:
        k = s // t
        return list(range(consumer * k, consumer * k + k))
    start = int(consumer * s / t)
    end = s if consumer == t - 1 else int((consumer + 1) * s / t)
    return list(range(start, end))


def pointwise_targets(s: int, t: int, producer: int) -> list[int]:
    """Consumer subtasks a producer subtask writes to on a POINTWISE edge, in channel order."""
    return [c for c in range(t) if producer in pointwise_sources(s, t, c)]


def writer_seeds(job_graph: Any, seed: int = 0) -> dict[tuple[str, int, int], float]:
    """The RNG seed of every record writer: (vertex id, subtask, out-edge position) → seed.

    Flink draws REBALANCE starts / SHUFFLE channels from a thread RNG; pyflowkit seeds them the
    way the reference driver (``pyflowkit.operators.local_driver``) does: one ``Random(seed)``
    walked over vertices (topological), subtasks, then non-chained out edges in chain order.
    """
    from pyflowkit.operators.chain import non_chained_out_edges

    rng = random.Random(seed)
    seeds = {}
    for vertex in job_graph.vertices:
        edges = non_chained_out_edges(vertex)
        for subtask in range(vertex.parallelism):
            for position in range(len(edges)):
                seeds[(vertex.id, subtask, position)] = rng.random()
    return seeds


class ChannelSelector:
    """One producer subtask's record writer for one JobEdge: value → target consumer subtask(s).

    Flink's ``RecordWriter`` with a copy of the edge's ``StreamPartitioner``, set up with the number
    of channels this writer has (all consumers for ALL_TO_ALL, the local ones for POINTWISE).
    """

    def __init__(
        self,
        partitioner: Any,
        producer: int,
        producer_parallelism: int,
        consumer_parallelism: int,
        consumer_max_parallelism: int = -1,
        rng: random.Random | None = None,
    ) -> None:
        self.ship_strategy = str(partitioner)
        self.partitioner = partitioner.copy()
        if partitioner.is_pointwise:
            if self.ship_strategy == "FORWARD" and producer_parallelism != consumer_parallelism:
                raise ValueError(
                    "Forward partitioning does not allow change of parallelism "
                    f"({producer_parallelism} -> {consumer_parallelism})."
                )
            self.channels = pointwise_targets(producer_parallelism, consumer_parallelism, producer)
        else:
            self.channels = list(range(consumer_parallelism))
        if hasattr(self.partitioner, "configure"):  # ConfigurableStreamPartitioner (HASH)
            max_p = consumer_max_parallelism
            if max_p <= 0:
                max_p = compute_default_max_parallelism(consumer_parallelism)
            self.partitioner.configure(max_p)
        self.partitioner.setup(max(1, len(self.channels)), rng or random.Random(0))
        self.is_broadcast = bool(partitioner.is_broadcast)
        self._single = self.channels[0] if len(self.channels) == 1 else None
        # HASH: key → channel index cached for str/int keys (their Java hash is their value's)
        self._key_selector = getattr(self.partitioner, "key_selector", None)
        self._hash = self.ship_strategy == "HASH" and self._key_selector is not None
        self._index_of_key: dict[Any, int] = {}
        self._identity = self.channels == list(range(len(self.channels)))  # channel i = subtask i

    @property
    def targets(self) -> list[int]:
        """Every consumer subtask this writer is connected to (watermarks go to all of them)."""
        return self.channels

    def select(self, value: Any) -> int:
        """The consumer subtask of one record (not for BROADCAST: use ``targets``)."""
        if self._single is not None and self.ship_strategy in ("FORWARD", "RESCALE"):
            return self._single
        if self._hash:
            key = self._key_selector(value)  # type: ignore[misc]
            if type(key) in SELF_IDENTIFYING_KEY_TYPES:
                index = self._index_of_key.get(key)
                if index is not None:
                    return self.channels[index]
            return self.channels[self._key_indices((key,))[0]]
        return self.channels[self.partitioner.select_channel(value)]

    def select_many(self, values: Sequence[Any]) -> list[int]:
        """The consumer subtask of each record, in order (not for BROADCAST)."""
        if self._single is not None and self.ship_strategy in ("FORWARD", "RESCALE"):
            return [self._single] * len(values)
        if self._hash:
            channels = self.channels
            indices = self._key_indices(list(map(self._key_selector, values)))  # type: ignore[arg-type]
            return indices if self._identity else [channels[i] for i in indices]
        select = self.select
        return [select(v) for v in values]

    def _key_indices(self, keys: Sequence[Any]) -> list[int]:
        if len(self._index_of_key) >= _KEY_CACHE_LIMIT:
            self._index_of_key.clear()
        return assign_keys_to_parallel_operator(
            keys, self.partitioner.max_parallelism, len(self.channels), self._index_of_key
        )


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

    keys = F.array(*[F.lit(k) for k in partition_keys(num_partitions)])
    df = df.withColumn("_pkey", F.element_at(keys, F.col(target_col) + 1))
    return df.repartition(num_partitions, F.col("_pkey")).drop("_pkey")
