"""RecordWriter routing: the batch path lands every record where the partitioner sends it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner, RebalancePartitioner
from pyflowkit.runtime.network import ResultPartition
from pyflowkit.runtime.record_writer import RecordWriter


class Sizing:
    capacity = 3


def writer(partitioner: Any, n: int = 3) -> RecordWriter:
    part = ResultPartition(("ds", 0, "attempt"), n, 1000)
    return RecordWriter(part, partitioner, 128, random.Random(0), Sizing())


def per_channel(w: RecordWriter) -> list[list[Any]]:
    w.flush_all()
    return [[el for b in sp.queue for el in b.elements] for sp in w.partition.subpartitions]


def first(t: tuple) -> Any:
    return t[0]


VALUES = [(k, i) for i, k in enumerate([1, True, 1.0, "a", (1, "x"), 7, True, "a", 2, 1])]


@pytest.mark.parametrize("stamped", [False, True])
def test_batch_routing_equals_per_record_routing(stamped: bool) -> None:
    stamps = list(range(len(VALUES))) if stamped else None
    one, many = writer(KeyGroupStreamPartitioner(first)), writer(KeyGroupStreamPartitioner(first))
    for i, v in enumerate(VALUES):
        one.emit(v, None if stamps is None else stamps[i])
    many.emit_batch(VALUES[:4], None if stamps is None else stamps[:4])
    many.emit_batch(VALUES[4:], None if stamps is None else stamps[4:])
    assert per_channel(many) == per_channel(one)
    assert many.records_out == one.records_out == len(VALUES)
    # each record went where the partitioner alone sends it (1, True and 1.0 apart, as in Java)
    fresh = KeyGroupStreamPartitioner(first)
    fresh.setup(3, random.Random(0))
    fresh.configure(128)
    for ch, elements in enumerate(per_channel(many)):
        assert all(fresh.select_channel(v) == ch for v, _ in elements)


class UnhashableKey:
    """A key with a Java hashCode but no Python hash (the cache cannot hold it)."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, n: int) -> None:
        self.n = n

    def java_hash_code(self) -> int:
        return self.n


def test_batch_routing_of_unhashable_keys_and_round_robin() -> None:
    w = writer(KeyGroupStreamPartitioner(UnhashableKey), 2)
    w.emit_batch(list(range(8)), None)
    got = per_channel(w)
    ref = KeyGroupStreamPartitioner(UnhashableKey)
    ref.setup(2, random.Random(0))
    ref.configure(128)
    assert got == [[(v, None) for v in range(8) if ref.select_channel(v) == ch] for ch in (0, 1)]
    assert all(got)
    rr = writer(RebalancePartitioner(), 2)
    rr.emit_batch(list(range(6)), None)
    assert sorted(len(ch) for ch in per_channel(rr)) == [3, 3]


def test_batch_with_mismatched_timestamps_is_refused_before_anything_is_sent() -> None:
    w = writer(KeyGroupStreamPartitioner(first))
    with pytest.raises(ValueError, match="emit_batch: 2 values but 1 timestamps"):
        w.emit_batch([("a", 1), ("b", 2)], [5])
    assert w.records_out == 0 and per_channel(w) == [[], [], []]
