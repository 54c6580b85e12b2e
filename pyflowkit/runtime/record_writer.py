"""Non-chained outputs: a RecordWriter per out edge, routing with the edge's partitioner."""

from __future__ import annotations

import random
from typing import Any

from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner, StreamPartitioner
from pyflowkit.runtime.network import Buffer, ResultPartition, Watermark


class RecordWriter:
    """Flink's ``RecordWriter`` (``ChannelSelectorRecordWriter``/``BroadcastRecordWriter``).

    Each subpartition has one buffer being filled; a full buffer is handed to the subpartition.
    ``sizing.capacity`` is the number of records per buffer (it differs in step and fast mode).
    """

    def __init__(
        self,
        partition: ResultPartition,
        partitioner: StreamPartitioner,
        consumer_max_parallelism: int,
        rng: random.Random,
        sizing: Any,
    ) -> None:
        self.partition = partition
        self.partitioner = partitioner.copy()
        n = len(partition.subpartitions)
        self.partitioner.setup(n, rng)
        if hasattr(self.partitioner, "configure"):
            self.partitioner.configure(consumer_max_parallelism)
        self._sizing = sizing
        self._current: list[list[Any] | None] = [None] * n
        self.records_out = 0
        self._broadcast = self.partitioner.is_broadcast
        self._single = n == 1
        self._key_cache: dict[Any, int] | None = (
            {} if isinstance(self.partitioner, KeyGroupStreamPartitioner) else None
        )

    def _channel(self, value: Any) -> int:
        cache = self._key_cache
        if cache is not None:
            p = self.partitioner
            key = p.key_selector(value)  # type: ignore[attr-defined]
            try:
                return cache[key]
            except KeyError:
                ch = cache[key] = p.select_channel(value)
                return ch
            except TypeError:  # unhashable key
                return p.select_channel(value)
        return self.partitioner.select_channel(value)

    def _append(self, channel: int, element: Any) -> None:
        buf = self._current[channel]
        if buf is None:
            self.partition.pool.request()
            buf = self._current[channel] = []
        buf.append(element)
        if len(buf) >= self._sizing.capacity:
            self._current[channel] = None
            self.partition.subpartitions[channel].add(Buffer(buf))

    def _append_many(self, channel: int, elements: list[Any]) -> None:
        cap = self._sizing.capacity
        buf = self._current[channel]
        pool = self.partition.pool
        sub = self.partition.subpartitions[channel]
        i, n = 0, len(elements)
        while i < n:
            if buf is None:
                pool.request()
                buf = []
            room = cap - len(buf)
            buf.extend(elements[i : i + room])
            i += room
            if len(buf) >= cap:
                sub.add(Buffer(buf))
                buf = None
        self._current[channel] = buf

    def emit(self, value: Any, timestamp: int | None) -> None:
        self.records_out += 1
        element = (value, timestamp)
        if self._broadcast:
            for ch in range(len(self._current)):
                self._append(ch, element)
        elif self._single:
            self._append(0, element)
        else:
            self._append(self._channel(value), element)

    def emit_batch(self, values: Any, timestamps: Any = None) -> None:
        """Many records: route them all, then fill buffers channel by channel."""
        if timestamps is None:
            elements = [(v, None) for v in values]
        else:
            elements = list(zip(values, timestamps, strict=True))
        self.records_out += len(elements)
        n = len(self._current)
        if self._broadcast:
            for ch in range(n):
                self._append_many(ch, elements)
            return
        if self._single:
            self._append_many(0, elements)
            return
        buckets: list[list[Any]] = [[] for _ in range(n)]
        p = self.partitioner
        cache = self._key_cache
        try:
            if cache is not None:
                select_key = p.key_selector  # type: ignore[attr-defined]
                get = cache.get
                for el in elements:
                    k = select_key(el[0])
                    ch = get(k)
                    if ch is None:
                        ch = cache[k] = p.select_channel(el[0])
                    buckets[ch].append(el)
            else:
                select = p.select_channel
                for el in elements:
                    buckets[select(el[0])].append(el)
        except TypeError:  # unhashable keys: route one by one
            buckets = [[] for _ in range(n)]
            for el in elements:
                buckets[p.select_channel(el[0])].append(el)
        for ch, bucket in enumerate(buckets):
            if bucket:
                self._append_many(ch, bucket)

    def broadcast_emit(self, element: Any) -> None:
        """A watermark (or other stream element) into every subpartition, in order."""
        for ch in range(len(self._current)):
            self._append(ch, element)

    def emit_watermark(self, timestamp: int) -> None:
        self.broadcast_emit(Watermark(timestamp))

    def flush_all(self) -> None:
        """Hand every partly filled buffer to its subpartition (Flink's output flusher)."""
        for ch, buf in enumerate(self._current):
            if buf:
                self._current[ch] = None
                self.partition.subpartitions[ch].add(Buffer(buf))

    def is_available(self) -> bool:
        return self.partition.pool.is_available()
