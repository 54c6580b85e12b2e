"""The RecordWriterOutput of an edge into a pushed-down aggregation: combine, then ship.

Stands for Flink's ``ChainedReduceCombineDriver`` in front of the edge's ``RecordWriter``: the
producer's records go to a ``KeyedCombiner`` instead of per-record routing; at the end of input
the partial records are shipped exactly where ``RecordWriterOutput`` would have shipped the
records they stand for: same target subtask, same chunk sequence number, same order within the
chunk. So each consumer subtask reads its keys in the order the Python fold would have read them.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from pyflowkit.graph.adaptive_batch import records_bytes
from pyflowkit.spark.aggregation_pushdown import KeyedCombiner, Pushdown
from pyflowkit.spark.records import (
    CHUNK_RECORDS,
    END_OF_PARTITION,
    RecordWriterOutput,
    dumps,
)


class CombiningRecordWriterOutput(RecordWriterOutput):
    """A ``RecordWriterOutput`` (HASH, BATCH) whose records are combined per key before shipping.

    Records keep their output position (a running count); ``flush`` points, where the plain
    writer would cut a chunk, remember the sequence number of the records before them.
    """

    def __init__(
        self,
        edge_index: int,
        selector: Any,
        sink: Any,
        pushdown: Pushdown,
        output_tag: Any = None,
        encode: Any = None,
    ) -> None:
        super().__init__(edge_index, selector, sink, output_tag, True, encode)
        self.combiner = KeyedCombiner(pushdown, selector.partitioner.key_selector)
        self.count = 0  # records taken so far (the next record's position)
        self.ends: list[int] = []  # position after each cut chunk …
        self.seqs: list[int] = []  # … and the sequence number its records ship with
        self.passed: list[tuple[int, Any]] = []  # (position, record) not combined

    def collect(self, value: Any, timestamp: int | None = None) -> None:
        self._take([value])
        self.buffered += 1
        if self.buffered >= CHUNK_RECORDS:
            self._cut()

    def collect_batch(self, values: Sequence[Any], timestamps: Any) -> None:
        if type(values) is not list:
            values = list(values)
        start, count = 0, len(values)
        while start < count:  # cut every CHUNK_RECORDS records, as RecordWriterOutput flushes
            end = min(count, start + CHUNK_RECORDS - self.buffered)
            self._take(values if start == 0 and end == count else values[start:end])
            self.buffered += end - start
            start = end
            if self.buffered >= CHUNK_RECORDS:
                self._cut()

    def _take(self, values: list[Any]) -> None:
        add, position = self.combiner.add, self.count
        if add(values, position):
            pass
        elif self.combiner.inferred:  # a chunk of mixed/other keys passes as a whole
            self.passed.extend(enumerate(values, position))
        else:  # one by one: only the odd records pass uncombined
            for i, value in enumerate(values, position):
                if not add([value], i):
                    self.passed.append((i, value))
        self.count += len(values)

    def _cut(self) -> None:
        """Where the plain writer flushes: the records since the last cut get the current seq."""
        if not self.ends or self.ends[-1] < self.count:
            self.ends.append(self.count)
            self.seqs.append(self.sink.seq)
        self.buffered = 0

    def flush(self, watermark: int | None = None) -> None:
        self._cut()
        if watermark is not None:
            self._ship(watermark)

    def close(self) -> None:
        self._cut()
        self._ship(None)
        for target in self.selector.targets:
            self.sink.emit(self.edge_index, target, END_OF_PARTITION)

    def _ship(self, watermark: int | None) -> None:
        """Every record taken so far (partial or passed) as chunks per (target, seq), in position
        order; ``watermark`` rides on the current seq's chunk of every target."""
        taken = self.combiner.drain() + self.passed
        taken.sort(key=itemgetter(0))
        self.passed = []
        ends, seqs = self.ends, self.seqs
        # each record's key, selected once here, travels beside it (as RecordWriterOutput's
        # write_keyed): the consumer's fold takes it instead of selecting it again
        selector = self.selector
        carries = selector.carries_keys  # (one consumer: no key selected, none carried)
        select = selector.select_channel_and_key if carries else _channel_and_no_key(selector)
        consumers = selector.consumers
        chunks: dict[tuple[int, int], tuple[list[Any], list[Any]]] = {}
        for position, value in taken:
            seq = seqs[bisect_right(ends, position)]
            channel, key = select(value)
            chunk = chunks.get((consumers[channel], seq))
            if chunk is None:
                chunk = chunks[(consumers[channel], seq)] = ([], [])
            chunk[0].append(value)
            chunk[1].append(key)
        self.ends, self.seqs = [], []
        current = self.sink.seq
        if watermark is not None:
            for target in self.selector.targets:
                chunks.setdefault((target, current), ([], []))
        for (target, seq), (values, keys) in chunks.items():
            wm = watermark if seq == current else None
            if self.count_bytes:
                self.bytes_written += records_bytes(values)
            carried = keys if values and carries else None
            typed = self.encode(values) if self.encode is not None else None
            if typed is not None:
                self.sink.emit_typed(
                    self.edge_index, target, typed[0], None, wm, typed[1], seq, carried
                )
            elif carried is None:
                self.sink.emit(self.edge_index, target, dumps((values, None, wm)), seq)
            else:
                self.sink.emit(self.edge_index, target, dumps((values, None, wm, carried)), seq)


def _channel_and_no_key(selector: Any) -> Any:
    select_channel = selector.select_channel

    def select(value: Any) -> tuple[int, None]:
        return select_channel(value), None

    return select
