"""Non-chained outputs: a RecordWriter per out edge, routing with the edge's partitioner."""

from __future__ import annotations

import random
from typing import Any

from pyflowkit.graph.partitioner import (
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    StreamPartitioner,
)
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES, key_identity
from pyflowkit.runtime.network import Buffer, ResultPartition, Watermark

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
        self._current: list[Buffer | None] = [None] * n  # the buffer being filled
        self.records_out = 0
        self._broadcast = self.partitioner.is_broadcast
        self._single = n == 1
        self._key_cache: dict[Any, int] | None = (
            {} if isinstance(self.partitioner, KeyGroupStreamPartitioner) else None
        )
        self._str_key_cache: dict[str, int] = {}  # exact str keys only (see _route)
        self._str_keys = False  # the last routed batch ended on a str key
        # REBALANCE/RESCALE (exactly these classes): a batch is cut into strided slices
        self._round_robin = type(self.partitioner) in (RebalancePartitioner, RescalePartitioner)

    def _channel(self, value: Any) -> int:
        cache = self._key_cache
        if cache is not None:
            p = self.partitioner
            key = key_identity(p.key_selector(value))  # type: ignore[attr-defined]
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
            buf = self._current[channel] = Buffer.of_records([])
        buf.append(element)
        if len(buf) >= self._sizing.capacity:
            self._current[channel] = None
            self.partition.subpartitions[channel].add(buf)

    def _append_many(
        self, channel: int, values: list[Any], timestamps: list[int | None] | None
    ) -> None:
        """Records (as columns) into the channel's buffers, handing on every one that fills up."""
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
                    values[i:j], None if timestamps is None else timestamps[i:j]
                )
            else:
                room = cap - len(buf)
                if room <= 0:  # the capacity shrank (fast → step mode): hand it on first
                    sub.add(buf)
                    buf = None
                    continue
                j = i + room
                buf.extend_records(values[i:j], None if timestamps is None else timestamps[i:j])
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
        else:
            self._append(self._channel(value), element)

    def emit_batch(self, values: Any, timestamps: Any = None) -> None:
        """Many records: one routing pass into per-channel columns, then whole slices into buffers.

        Each record's key is selected once and looked up in the key → channel cache; no
        ``(value, timestamp)`` pair is built (buffers hold records as columns).
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
        if self._round_robin:
            routed = self._round_robin_slices(values, timestamps, n)
        else:
            try:
                routed = self._route(values, timestamps, n, True)
            except TypeError:  # unhashable keys: route one by one, without the cache
                routed = self._route(values, timestamps, n, False)
        for ch, (vals, stamps) in enumerate(routed):
            if vals:
                self._append_many(ch, vals, stamps)

    def _round_robin_slices(
        self, values: list[Any], timestamps: list[int | None] | None, n: int
    ) -> list[tuple[list[Any], list[int | None] | None]]:
        """Round robin as ``select_channel`` per record would do it, one strided slice per channel.

        Record i goes to channel ``(last + 1 + i) % n`` (``last``: the previous record's channel,
        -1 before RESCALE's first); the partitioner is left where the per-record path leaves it.
        """
        p = self.partitioner
        last = p.next_channel_to_send_to  # type: ignore[attr-defined]
        first = (last + 1) % n
        out: list[tuple[list[Any], list[int | None] | None]] = []
        for ch in range(n):
            start = (ch - first) % n
            out.append((values[start::n], None if timestamps is None else timestamps[start::n]))
        p.next_channel_to_send_to = (last + len(values)) % n  # type: ignore[attr-defined]
        return out

    def _route(
        self, values: list[Any], timestamps: list[int | None] | None, n: int, use_cache: bool
    ) -> list[tuple[list[Any], list[int | None] | None]]:
        """Per channel: the values (and timestamps) the partitioner sends there, in order."""
        vbuckets: list[list[Any]] = [[] for _ in range(n)]
        vappends = [b.append for b in vbuckets]
        tbuckets: list[list[int | None]] = [[] for _ in range(n)]
        p = self.partitioner
        cache = self._key_cache if use_cache else None
        if cache is not None:
            str_cache = self._str_key_cache
            for c in (cache, str_cache):
                if len(c) > _KEY_CACHE_LIMIT:
                    c.clear()
            select_key = p.key_selector  # type: ignore[attr-defined]
            get = cache.get
            str_get = str_cache.get
            tappends = [b.append for b in tbuckets]
            self_identifying = SELF_IDENTIFYING_KEY_TYPES
            k = None
            if timestamps is None and self._str_keys:
                # str keys only in str_cache: a hit needs no type check (only a str equals a str)
                for v in values:
                    k = select_key(v)
                    ch = str_get(k)
                    if ch is None:
                        if type(k) is str:
                            ch = str_cache[k] = p.select_channel(v)
                        else:
                            ck = key_identity(k)
                            ch = get(ck)
                            if ch is None:
                                ch = cache[ck] = p.select_channel(v)
                    vappends[ch](v)
            elif timestamps is None:
                for v in values:
                    k = select_key(v)
                    if type(k) not in self_identifying:  # 1, True and 1.0 hash apart in Java
                        k = key_identity(k)
                    ch = get(k)
                    if ch is None:
                        ch = cache[k] = p.select_channel(v)
                    vappends[ch](v)
            else:
                for v, ts in zip(values, timestamps, strict=True):
                    k = select_key(v)
                    if type(k) not in self_identifying:
                        k = key_identity(k)
                    ch = get(k)
                    if ch is None:
                        ch = cache[k] = p.select_channel(v)
                    vappends[ch](v)
                    tappends[ch](ts)
            self._str_keys = type(k) is str  # the next batch's loop follows the last key's type
        else:
            select = p.select_channel
            if timestamps is None:
                for v in values:
                    vappends[select(v)](v)
            else:
                for v, ts in zip(values, timestamps, strict=True):
                    ch = select(v)
                    vappends[ch](v)
                    tbuckets[ch].append(ts)
        if timestamps is None:
            return [(vb, None) for vb in vbuckets]
        return list(zip(vbuckets, tbuckets, strict=True))

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
