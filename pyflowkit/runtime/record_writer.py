"""Non-chained outputs: a RecordWriter per out edge, routing with the edge's partitioner."""

from __future__ import annotations

import random
from itertools import compress, repeat
from typing import Any

from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner, StreamPartitioner
from pyflowkit.runtime.network import Buffer, ResultPartition, Watermark

_COMPRESS_MAX_CHANNELS = 16  # up to this many channels, one C pass per channel beats bucketing
_KEY_CACHE_LIMIT = 1 << 16  # key → channel entries kept before the cache starts over


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
        """Many records: one pass for their channels, then each channel's records in one go.

        Keys are selected once per record (``map``) and looked up in the key → channel cache;
        each channel's records are picked out with ``compress`` (C loops, no per-record Python).
        """
        count = len(values)
        if not count:
            return
        self.records_out += count
        if timestamps is None:
            elements = list(zip(values, repeat(None), strict=False))
        else:
            elements = list(zip(values, timestamps, strict=True))
        n = len(self._current)
        if self._broadcast:
            for ch in range(n):
                self._append_many(ch, elements)
            return
        if self._single:
            self._append_many(0, elements)
            return
        channels = self._channels(values)
        if n > _COMPRESS_MAX_CHANNELS:
            buckets: list[list[Any]] = [[] for _ in range(n)]
            for ch, el in zip(channels, elements, strict=True):
                buckets[ch].append(el)
            for ch, bucket in enumerate(buckets):
                if bucket:
                    self._append_many(ch, bucket)
            return
        for ch in range(n):
            bucket = list(compress(elements, map(ch.__eq__, channels)))
            if bucket:
                self._append_many(ch, bucket)

    def _channels(self, values: Any) -> list[int]:
        """The channel of every value (key-group routing through the key cache)."""
        p = self.partitioner
        cache = self._key_cache
        if cache is None:
            return list(map(p.select_channel, values))
        try:
            keys = list(map(p.key_selector, values))  # type: ignore[attr-defined]
            channels = list(map(cache.get, keys))
        except TypeError:  # unhashable keys: no cache
            return list(map(p.select_channel, values))
        if None in channels:
            if len(cache) > _KEY_CACHE_LIMIT:
                cache.clear()
            for i, ch in enumerate(channels):
                if ch is None:
                    key = keys[i]
                    ch = cache.get(key)
                    if ch is None:
                        ch = cache[key] = p.select_channel(values[i])
                    channels[i] = ch
        return channels

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
