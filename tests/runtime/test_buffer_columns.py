"""Network buffers hold records as columns until a watermark joins them; the element form agrees."""

from __future__ import annotations

import random

import pytest

from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
)
from pyflowkit.runtime.network import Buffer, ResultPartition, Watermark
from pyflowkit.runtime.record_writer import RecordWriter


class Sizing:
    capacity = 4


def writer(partitioner: object, n: int = 2) -> RecordWriter:
    part = ResultPartition(("ds", 0, "attempt"), n, 1000)
    return RecordWriter(part, partitioner, 128, random.Random(0), Sizing())  # type: ignore[arg-type]


def queued(w: RecordWriter) -> list[list[Buffer]]:
    w.flush_all()
    return [list(sp.queue) for sp in w.partition.subpartitions]


def test_records_only_buffer_is_columns_and_its_elements_are_pairs() -> None:
    b = Buffer.of_records(["a", "b"])
    assert b.values == ["a", "b"] and b.timestamps is None and len(b) == 2
    assert b.elements == [("a", None), ("b", None)] and list(b) == b.elements
    b.append(("c", 7))  # the first timestamp back-fills None for the earlier records
    assert b.timestamps == [None, None, 7]
    b.extend_records(["d"], None)
    assert b.elements == [("a", None), ("b", None), ("c", 7), ("d", None)]


def test_a_watermark_turns_the_buffer_into_elements_in_order() -> None:
    b = Buffer.of_records([1, 2], [10, None])
    b.append(Watermark(5))
    b.extend_records([3], [11])
    assert b.values is None and b.timestamps is None
    assert b.elements == [(1, 10), (2, None), Watermark(5), (3, 11)] and len(b) == 4


def test_event_and_element_buffers_keep_their_old_form() -> None:
    assert Buffer(event="EOP").elements == [] and Buffer(event="EOP").is_event
    els = [(1, None), Watermark(3)]
    assert Buffer(els).elements is els and Buffer(els).values is None
    with pytest.raises(ValueError, match="pair up"):
        Buffer.of_records([1, 2], [None])
    with pytest.raises(ValueError, match="columns, elements or one event"):
        Buffer([(1, None)], values=[1])


def test_writer_fills_columnar_buffers_to_capacity_across_batches() -> None:
    w = writer(BroadcastPartitioner(), 1)
    w.emit_batch(["a", "b", "c"], None)
    w.emit_batch(("d", "e"), [1, 2])  # a tuple batch with timestamps
    w.emit("f", None)
    [bufs] = queued(w)
    assert [b.values for b in bufs] == [["a", "b", "c", "d"], ["e", "f"]]
    assert [b.timestamps for b in bufs] == [[None, None, None, 1], [2, None]]
    assert w.records_out == 6


def test_writer_mixes_watermarks_into_element_buffers_at_the_same_boundaries() -> None:
    w = writer(BroadcastPartitioner(), 2)
    w.emit_batch([1, 2], None)
    w.emit_watermark(9)
    w.emit_batch([3, 4, 5], [30, 40, 50])
    for bufs in queued(w):
        assert [b.elements for b in bufs] == [
            [(1, None), (2, None), Watermark(9), (3, 30)],
            [(4, 40), (5, 50)],
        ]
        assert bufs[0].values is None and bufs[1].values == [4, 5]


def test_all_none_timestamps_travel_as_none_and_buffers_do_not_share_lists() -> None:
    w = writer(KeyGroupStreamPartitioner(lambda v: v % 3), 2)
    values = list(range(10))
    w.emit_batch(values, [None] * 10)
    values.append(99)  # the caller's list may change afterwards
    bufs = [b for ch in queued(w) for b in ch]
    assert all(b.timestamps is None for b in bufs)
    assert sorted(v for b in bufs for v in b.values) == list(range(10))
    assert len({id(b.values) for b in bufs}) == len(bufs)


def test_capacity_shrinking_between_batches_hands_the_full_buffer_on_first() -> None:
    sizing = Sizing()
    part = ResultPartition(("ds", 0, "attempt"), 1, 1000)
    w = RecordWriter(part, BroadcastPartitioner(), 128, random.Random(0), sizing)
    sizing.capacity = 8
    w.emit_batch(list(range(6)), None)
    sizing.capacity = 2  # fast → step mode
    w.emit_batch([6, 7, 8], None)
    w.flush_all()
    assert [b.values for b in part.subpartitions[0].queue] == [[0, 1, 2, 3, 4, 5], [6, 7], [8]]


def test_routing_after_a_str_batch_keeps_python_equal_keys_apart() -> None:
    keys = [1, True, 1.0, "1", (1, "a"), (True, "a"), 7, "b", True]
    w = writer(KeyGroupStreamPartitioner(lambda v: v[0]), 7)
    w.emit_batch([("a", 0)], None)  # ends on a str key: the next batch takes the str loop
    w.emit_batch([(k, i) for i, k in enumerate(keys)], None)
    ref = KeyGroupStreamPartitioner(lambda v: v[0])
    ref.setup(7, random.Random(0))
    ref.configure(128)
    got = {v: ch for ch, bufs in enumerate(queued(w)) for b in bufs for v in b.values}
    assert len(got) == len(keys) + 1
    assert all(ch == ref.select_channel(v) for v, ch in got.items())
    assert [ref.select_channel((k, 0)) for k in (1, True, 1.0)] == [4, 4, 3]  # 1.0 goes apart
    assert all(type(k) is str for k in w.selector._str_key_cache)


@pytest.mark.parametrize("cls", [RebalancePartitioner, RescalePartitioner])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_round_robin_batches_land_where_per_record_round_robin_sends_them(
    cls: type, n: int
) -> None:
    one, many = writer(cls(), n), writer(cls(), n)
    data = list(range(23))
    stamps = [100 + i for i in data]
    for v, ts in zip(data, stamps, strict=True):
        one.emit(v, ts)
    for a, b in [(0, 1), (1, 6), (6, 6), (6, 17), (17, 23)]:
        many.emit_batch(data[a:b], stamps[a:b])
    assert many.partitioner.next_channel_to_send_to == one.partitioner.next_channel_to_send_to
    got = [[el for b in bufs for el in b.elements] for bufs in queued(many)]
    assert got == [[el for b in bufs for el in b.elements] for bufs in queued(one)]
    assert sorted(len(ch) for ch in got)[-1] - sorted(len(ch) for ch in got)[0] <= 1
