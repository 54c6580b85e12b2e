"""Non-chained outputs: a RecordWriter per out edge, routing with the edge's ChannelSelector."""

from __future__ import annotations

import random
from typing import Any

from pyflowkit.graph.partitioner import StreamPartitioner
from pyflowkit.graph.routing import ChannelSelector
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
        n = len(partition.subpartitions)
        self.selector = ChannelSelector(partitioner, n, consumer_max_parallelism, rng)
        self.partitioner = self.selector.partitioner
        self._sizing = sizing
        self._current: list[Buffer | None] = [None] * n  # the buffer being filled
        self.records_out = 0
        self._broadcast = self.selector.is_broadcast
        self._single = self.selector.single  # one channel; keys converted still selected
        self._channel = self.selector.select_channel
        # a HASH edge's records carry the key selected for them (Buffer.keys)
        self._carries_keys = self.selector.carries_keys

    def _append(self, channel: int, element: Any, key: Any = None, keyed: bool = False) -> None:
        buf = self._current[channel]
        if buf is None:
            self.partition.pool.request()
            buf = self._current[channel] = Buffer.of_records(
                [], keys=[] if self._carries_keys else None
            )
        buf.append(element, key, keyed)
        if len(buf) >= self._sizing.capacity:
            self._current[channel] = None
            self.partition.subpartitions[channel].add(buf)

    def _append_many(
        self,
        channel: int,
        values: list[Any],
        timestamps: list[int | None] | None,
        keys: list[Any] | None = None,
    ) -> None:
        """Records (as columns, with their selected ``keys`` or None) into the channel's
        buffers, handing on every one that fills up."""
        cap = self._sizing.capacity
        buf = self._current[channel]
        pool = self.partition.pool
        sub = self.partition.subpartitions[channel]
        i, n = 0, len(values)
        while i < n:
            if buf is None:
                pool.request()
                j = i + cap
                buf = Buffer.of_records(
                    values[i:j],
                    None if timestamps is None else timestamps[i:j],
                    None if keys is None else keys[i:j],
                )
            else:
                room = cap - len(buf)
                if room <= 0:  # the capacity shrank (fast → step mode): hand it on first
                    sub.add(buf)
                    buf = None
                    continue
                j = i + room
                buf.extend_records(
                    values[i:j],
                    None if timestamps is None else timestamps[i:j],
                    None if keys is None else keys[i:j],
                )
            i = j
            if len(buf) >= cap:
                sub.add(buf)
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
        elif self._carries_keys:
            channel, key = self.selector.select_channel_and_key(value)
            self._append(channel, element, key, True)
        else:
            self._append(self._channel(value), element)

    def emit_batch(self, values: Any, timestamps: Any = None) -> None:
        """Many records: one routing pass into per-channel columns, then whole slices into buffers.

        Each record's key is selected once, looked up in the key → channel cache and carried in
        the buffer beside its record (HASH); no ``(value, timestamp)`` pair is built (buffers
        hold records as columns).
        """
        count = len(values)
        if not count:
            return
        if timestamps is not None:
            if len(timestamps) != count:
                raise ValueError(f"emit_batch: {count} values but {len(timestamps)} timestamps.")
            if timestamps.count(None) == count:
                timestamps = None
            elif type(timestamps) is not list:
                timestamps = list(timestamps)
        if type(values) is not list:
            values = list(values)
        self.records_out += count
        n = len(self._current)
        if self._broadcast or self._single:
            for ch in range(n if self._broadcast else 1):
                self._append_many(ch, values, timestamps)
            return
        if self._carries_keys:
            for ch, (vals, stamps, keys) in enumerate(
                self.selector.route_with_keys(values, timestamps)
            ):
                if vals:
                    self._append_many(ch, vals, stamps, keys)
            return
        for ch, (vals, stamps) in enumerate(self.selector.route(values, timestamps)):
            if vals:
                self._append_many(ch, vals, stamps)

    def broadcast_emit(self, element: Any) -> None:
        """A watermark (or other stream element) into every subpartition, in order."""
        for ch in range(len(self._current)):
            self._append(ch, element)

    def emit_watermark(self, timestamp: int) -> None:
        self.broadcast_emit(Watermark(timestamp))

    def flush_all(self) -> None:
        """Hand every partly filled buffer to its subpartition (Flink's output flusher)."""
        for ch, buf in enumerate(self._current):
            if buf is not None and len(buf):
                self._current[ch] = None
                self.partition.subpartitions[ch].add(buf)

    def is_available(self) -> bool:
        return self.partition.pool.is_available()
