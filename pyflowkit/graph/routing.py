"""The one routing model every host uses: POINTWISE wiring, subpartition order, channel selection.

Stands for Flink 1.11's ``ExecutionVertex.connectPointwise`` (with its 32-bit float arithmetic),
``TaskDeploymentDescriptorFactory`` (a consumer requests subpartition ``subtaskIndex % consumers``)
and the ``RecordWriter``'s ``ChannelSelector`` (the edge's ``StreamPartitioner``, set up once per
producer subtask). The ExecutionGraph, the simulated cluster, the Spark executor and the local
driver all wire and route through these functions, so a record reaches the same consumer subtask
on every host.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Sequence
from itertools import compress, repeat
from operator import is_
from typing import Any

from pyflowkit.graph.partitioner import (
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    StreamPartitioner,
)
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES, key_identity
from pyflowkit.state.key_groups import compute_default_max_parallelism, key_batch_selector

_KEY_CACHE_LIMIT = 1 << 16  # key → channel entries kept before a cache starts over
Routed = list[tuple[list[Any], "list[int | None] | None"]]  # per channel: values, timestamps
#: per channel: values, timestamps and the keys selected for them (``route_with_keys``)
KeyedRouted = list[tuple[list[Any], "list[int | None] | None", list[Any]]]


def _f32(x: float) -> float:
    """Round to a Java ``float`` (``connectPointwise`` computes its factors in 32 bits)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def pointwise_sources(num_sources: int, parallelism: int, consumer: int) -> range:
    """Producer subtasks consumer subtask ``consumer`` reads on a POINTWISE edge.

    ``ExecutionVertex.connectPointwise`` (1.11): equal counts one to one, a divisible fan-out or
    fan-in by integer division, the irregular cases with Java ``float`` arithmetic.
    """
    i = consumer
    if num_sources == parallelism:
        return range(i, i + 1)
    if num_sources < parallelism:
        if parallelism % num_sources == 0:
            source = i // (parallelism // num_sources)
        else:
            factor = _f32(_f32(parallelism) / num_sources)
            source = int(_f32(i / factor))
        return range(source, source + 1)
    if num_sources % parallelism == 0:
        factor_int = num_sources // parallelism
        return range(i * factor_int, i * factor_int + factor_int)
    factor = _f32(_f32(num_sources) / parallelism)
    start = int(_f32(i * factor))
    end = num_sources if i == parallelism - 1 else int(_f32((i + 1) * factor))
    return range(start, end)


def pointwise_consumers(num_sources: int, parallelism: int, producer: int) -> list[int]:
    """Consumer subtasks reading producer subtask ``producer`` on a POINTWISE edge, ascending."""
    centre = producer * parallelism // num_sources
    span = parallelism // num_sources + 2
    low, high = max(0, centre - 2), min(parallelism, centre + span + 2)
    return [
        c for c in range(low, high) if producer in pointwise_sources(num_sources, parallelism, c)
    ]


def consumed_subpartition_index(consumer: int, number_of_consumers: int) -> int:
    """The subpartition a consumer subtask requests (``subtaskIndex % numConsumers``, 1.11)."""
    return consumer % number_of_consumers


def subpartition_consumers(
    pointwise: bool, num_sources: int, parallelism: int, producer: int
) -> list[int]:
    """The consumer subtask reading each subpartition of ``producer``'s partition, in order.

    ALL_TO_ALL: subpartition i goes to consumer i. POINTWISE: a producer's consumers are
    contiguous, so ``consumer % n`` numbers them 0..n-1 (not always in ascending order).
    """
    if not pointwise:
        return list(range(parallelism))
    consumers = pointwise_consumers(num_sources, parallelism, producer)
    ordered = [0] * len(consumers)
    for c in consumers:
        ordered[consumed_subpartition_index(c, len(consumers))] = c
    return ordered


def record_writer_rng(
    seed: int, vertex_name: str, subtask: int, output_index: int, target_name: str
) -> random.Random:
    """The RNG of one record writer (REBALANCE's first channel, SHUFFLE's channels).

    Flink draws them from a thread-local RNG; pyflowkit seeds one per writer from the run's seed,
    the producing vertex's name, the subtask, the position of the JobEdge among the vertex's
    outputs and the consuming vertex's name, so no interleaving or graph id changes them.
    """
    return random.Random(f"{seed}|{vertex_name}|{subtask}|{output_index}:{target_name}")


class ChannelSelector:
    """One producer subtask's channel selection on one JobEdge (Flink's ``ChannelSelector``).

    Wraps a private copy of the edge's ``StreamPartitioner`` set up with the writer's channels
    (HASH configured with the consumer's max parallelism). ``consumers[c]`` is the consumer
    subtask reading channel ``c``. ``route`` is the batch form of ``select_channel``: it keeps the
    partitioner exactly where per-record selection would leave it.
    """

    def __init__(
        self,
        partitioner: StreamPartitioner,
        number_of_channels: int,
        consumer_max_parallelism: int,
        rng: random.Random | None = None,
        consumers: Sequence[int] | None = None,
    ) -> None:
        self.partitioner = partitioner.copy()
        self.ship_strategy = str(partitioner)
        n = max(1, number_of_channels)
        self.partitioner.setup(n, rng or random.Random(0))
        if hasattr(self.partitioner, "configure"):  # ConfigurableStreamPartitioner (HASH)
            self.partitioner.configure(consumer_max_parallelism)
        self.number_of_channels = n
        self.consumers = list(consumers) if consumers is not None else list(range(n))
        self.is_broadcast = bool(self.partitioner.is_broadcast)
        self._keyed = isinstance(self.partitioner, KeyGroupStreamPartitioner)
        # one channel needs no selection, unless the key selector converts keys to a declared
        # key_type: PyFlink's key_by encodes every key, so a refused key fails the job even where
        # no state reads it
        converts = getattr(getattr(self.partitioner, "key_selector", None), "converts_keys", False)
        self._single = number_of_channels == 1 and not (self._keyed and converts)
        # a selector without a batch form (no declared key_type) is called inside the routing
        # loop (route_with_keys): no list of keys built first
        self._select_each: Any = None
        if self._keyed:  # a batch's keys at once (a declared key_type converts per column)
            selector = self.partitioner.key_selector  # type: ignore[attr-defined]
            self._select_keys = key_batch_selector(selector)
            if getattr(selector, "select_keys", None) is None:
                self._select_each = selector
        self._key_cache: dict[Any, int] = {}  # key_identity → channel
        self._str_key_cache: dict[str, int] = {}  # exact str keys only (see route)
        self._str_keys = False  # the last routed batch ended on a str key
        self._new_keys = False  # the last routed batch met a str key not cached
        # REBALANCE/RESCALE (exactly these classes): a batch is cut into strided slices
        self._round_robin = type(self.partitioner) in (RebalancePartitioner, RescalePartitioner)

    @classmethod
    def for_subtask(
        cls,
        partitioner: StreamPartitioner,
        producer: int,
        producer_parallelism: int,
        consumer_parallelism: int,
        consumer_max_parallelism: int = -1,
        rng: random.Random | None = None,
    ) -> ChannelSelector:
        """The selector of producer subtask ``producer``, its channels wired as the ExecutionGraph
        wires them (POINTWISE for FORWARD/RESCALE, else every consumer)."""
        if partitioner.is_pointwise:
            if str(partitioner) == "FORWARD" and producer_parallelism != consumer_parallelism:
                raise ValueError(
                    "Forward partitioning does not allow change of parallelism "
                    f"({producer_parallelism} -> {consumer_parallelism})."
                )
        consumers = subpartition_consumers(
            partitioner.is_pointwise, producer_parallelism, consumer_parallelism, producer
        )
        max_p = consumer_max_parallelism
        if max_p <= 0:
            max_p = compute_default_max_parallelism(consumer_parallelism)
        return cls(partitioner, len(consumers), max_p, rng, consumers)

    @property
    def single(self) -> bool:
        """Whether every record goes to channel 0 without selection (no key is computed)."""
        return self._single

    @property
    def targets(self) -> list[int]:
        """Every consumer subtask of this writer, in channel order (watermarks go to all)."""
        return self.consumers

    def select_channel(self, value: Any) -> int:
        """``selectChannel``: the channel of one record (not for BROADCAST)."""
        if self._single:
            return 0
        if self._keyed:
            p = self.partitioner
            key = key_identity(p.key_selector(value))  # type: ignore[attr-defined]
            cache = self._key_cache
            try:
                return cache[key]
            except KeyError:
                if len(cache) >= _KEY_CACHE_LIMIT:
                    cache.clear()
                ch = cache[key] = p.select_channel(value)
                return ch
            except TypeError:  # unhashable key
                return p.select_channel(value)
        return self.partitioner.select_channel(value)

    @property
    def carries_keys(self) -> bool:
        """Whether selection computes a key per record (HASH with more than one channel): the
        key can travel with its record (``route_with_keys``, ``select_channel_and_key``)."""
        return self._keyed and not self._single

    def select_channel_and_key(self, value: Any) -> tuple[int, Any]:
        """``select_channel`` of a HASH edge (``carries_keys``) with the key it selected."""
        p = self.partitioner
        key = p.key_selector(value)  # type: ignore[attr-defined]
        try:
            ident = key_identity(key)
            cache = self._key_cache
            ch = cache.get(ident)
            if ch is None:
                if len(cache) >= _KEY_CACHE_LIMIT:
                    cache.clear()
                ch = cache[ident] = p.channel_of_key(key)  # type: ignore[attr-defined]
        except TypeError:  # unhashable key
            ch = p.channel_of_key(key)  # type: ignore[attr-defined]
        return ch, key

    def select(self, value: Any) -> int:
        """The consumer subtask of one record (not for BROADCAST)."""
        return self.consumers[self.select_channel(value)]

    def route(self, values: list[Any], timestamps: list[int | None] | None = None) -> Routed:
        """Per channel: the values (and timestamps) selection sends there, in arrival order.

        Not for BROADCAST (every channel gets everything).
        """
        n = self.number_of_channels
        if self._single:
            return [(values, timestamps)]
        if self._round_robin:
            return self._round_robin_slices(values, timestamps, n)
        if self._keyed:
            try:
                return self._route_keyed(values, timestamps, n)
            except TypeError:  # unhashable keys: one by one, without the cache
                pass
        select = self.partitioner.select_channel
        vbuckets: list[list[Any]] = [[] for _ in range(n)]
        if timestamps is None:
            for v in values:
                vbuckets[select(v)].append(v)
            return [(vb, None) for vb in vbuckets]
        tbuckets: list[list[int | None]] = [[] for _ in range(n)]
        for v, ts in zip(values, timestamps, strict=True):
            ch = select(v)
            vbuckets[ch].append(v)
            tbuckets[ch].append(ts)
        return list(zip(vbuckets, tbuckets, strict=True))

    def route_with_keys(
        self, values: list[Any], timestamps: list[int | None] | None = None
    ) -> KeyedRouted:
        """``route`` of a HASH edge (``carries_keys``), with each record's key beside it: the
        key is selected once, and the consumer's key context takes it from here (as PyFlink's
        ``key_by`` ships ``Row(key, value)``). A selector without a batch form is called in
        the routing loop itself; a declared ``key_type``'s converts the batch's keys at once."""
        n = self.number_of_channels
        key_cache, str_cache = self._trimmed_caches()
        str_get, int_get, new_key = str_cache.get, key_cache.get, self._channel_of_new
        select = self._select_each
        if timestamps is None and select is not None:
            vbuckets: list[list[Any]] = [[] for _ in range(n)]
            kbuckets: list[list[Any]] = [[] for _ in range(n)]
            vappends = [b.append for b in vbuckets]
            kappends = [b.append for b in kbuckets]
            # str keys only in str_cache: a hit needs no type check (only a str equals a str);
            # an exact int is its own identity in key_cache (1, True and 1.0 apart: key_identity)
            for v in values:
                k = select(v)
                try:
                    ch = str_get(k)
                    if ch is None:
                        ch = int_get(k) if type(k) is int else None
                        if ch is None:
                            ch = new_key(k)
                except TypeError:  # an unhashable key: its channel without the caches
                    ch = self.partitioner.channel_of_key(k)  # type: ignore[attr-defined]
                vappends[ch](v)
                kappends[ch](k)
            return [(vb, None, kb) for vb, kb in zip(vbuckets, kbuckets, strict=True)]
        keys = self._select_keys(values)  # at once (a declared key_type: a column at a time)
        return _keyed_buckets(values, timestamps, keys, self._channels_of_keys(keys), n)

    def _channels_of_keys(self, keys: list[Any]) -> list[int]:
        """The channel of each key: all at once when every key is a cached ``str`` (only a
        ``str`` equals a ``str``); new ``str`` keys' key groups computed together; other keys
        one by one through the caches (``1``, ``True`` and ``1.0`` apart). ``_new_keys``: the
        batch met new ``str`` keys (``route`` looks the next one up at once too)."""
        str_cache = self._str_key_cache
        self._new_keys = False
        try:
            return list(map(str_cache.__getitem__, keys))
        except KeyError:
            types = set(map(type, keys))
            if types == {int}:  # exact ints: their own identity in key_cache (key_identity)
                return self._channels_of_ints(keys)
            if types != {str}:
                return self._channels_one_by_one(keys)
        except TypeError:  # a list, dict or set key: keyed by its pickle (key_identity)
            return self._channels_one_by_one(keys)
        self._new_keys = True
        found = list(map(str_cache.get, keys))
        new = list(dict.fromkeys(compress(keys, map(is_, found, repeat(None)))))
        fresh = dict(zip(new, self.partitioner.channels_of_str_keys(new), strict=True))  # type: ignore[attr-defined]
        str_cache.update(fresh)
        return list(map(str_cache.__getitem__, keys))

    def _channels_of_ints(self, keys: list[Any]) -> list[int]:
        """The channel of each of ``keys``, all exact ``int``: looked up at once in
        ``_key_cache``, the misses computed and cached."""
        cache = self._key_cache
        channels = list(map(cache.get, keys))
        if None in channels:
            channel_of = self.partitioner.channel_of_key  # type: ignore[attr-defined]
            for i, (k, ch) in enumerate(zip(keys, channels, strict=True)):
                if ch is None:
                    ch = cache.get(k)
                    if ch is None:
                        ch = cache[k] = channel_of(k)
                    channels[i] = ch
        return channels  # type: ignore[return-value]

    def _trimmed_caches(self) -> tuple[dict[Any, int], dict[str, int]]:
        """The key → channel caches, each started over once past ``_KEY_CACHE_LIMIT``."""
        for c in (self._key_cache, self._str_key_cache):
            if len(c) > _KEY_CACHE_LIMIT:
                c.clear()
        return self._key_cache, self._str_key_cache

    def _channel_of_new(self, k: Any) -> int:
        """A key not in the ``str`` cache: cached by type (``1``, ``True`` and ``1.0`` apart)."""
        channel_of = self.partitioner.channel_of_key  # type: ignore[attr-defined]
        if type(k) is str:
            ch = self._str_key_cache[k] = channel_of(k)
            return ch
        ck = k if type(k) in SELF_IDENTIFYING_KEY_TYPES else key_identity(k)
        ch = self._key_cache.get(ck)
        if ch is None:
            ch = self._key_cache[ck] = channel_of(k)
        return ch

    def _round_robin_slices(
        self, values: list[Any], timestamps: list[int | None] | None, n: int
    ) -> Routed:
        """Round robin as ``select_channel`` per record would do it, one strided slice per channel.

        Record i goes to channel ``(last + 1 + i) % n`` (``last``: the previous record's channel,
        -1 before RESCALE's first); the partitioner is left where the per-record path leaves it.
        """
        p = self.partitioner
        last = p.next_channel_to_send_to  # type: ignore[attr-defined]
        first = (last + 1) % n
        out: Routed = []
        for ch in range(n):
            start = (ch - first) % n
            out.append((values[start::n], None if timestamps is None else timestamps[start::n]))
        p.next_channel_to_send_to = (last + len(values)) % n  # type: ignore[attr-defined]
        return out

    def _route_keyed(
        self, values: list[Any], timestamps: list[int | None] | None, n: int
    ) -> Routed:
        """HASH: each record's key selected once and looked up in the key → channel cache.

        After a batch that met new ``str`` keys, the next is looked up at once and its new
        keys' key groups computed together (``_route_new_keys``); otherwise record by record."""
        cache, str_cache = self._trimmed_caches()
        if self._new_keys:
            return self._route_new_keys(values, timestamps, n)
        vbuckets: list[list[Any]] = [[] for _ in range(n)]
        vappends = [b.append for b in vbuckets]
        tbuckets: list[list[int | None]] = [[] for _ in range(n)]
        tappends = [b.append for b in tbuckets]
        p = self.partitioner
        keys = self._select_keys(values)
        channel_of = p.channel_of_key  # type: ignore[attr-defined]
        get, str_get = cache.get, str_cache.get
        self_identifying = SELF_IDENTIFYING_KEY_TYPES
        k = None
        if timestamps is None and self._str_keys:
            # str keys only in str_cache: a hit needs no type check (only a str equals a str)
            for k, v in zip(keys, values, strict=True):
                ch = str_get(k)
                if ch is None:
                    if type(k) is str:
                        self._new_keys = True
                        ch = str_cache[k] = channel_of(k)
                    else:
                        ck = key_identity(k)
                        ch = get(ck)
                        if ch is None:
                            ch = cache[ck] = channel_of(k)
                vappends[ch](v)
        elif timestamps is None:
            for k, v in zip(keys, values, strict=True):
                ck = k if type(k) in self_identifying else key_identity(k)  # 1, True, 1.0 apart
                ch = get(ck)
                if ch is None:
                    ch = cache[ck] = channel_of(k)
                vappends[ch](v)
        else:
            for k, v, ts in zip(keys, values, timestamps, strict=True):
                ck = k if type(k) in self_identifying else key_identity(k)
                ch = get(ck)
                if ch is None:
                    self._new_keys = type(k) is str
                    ch = cache[ck] = channel_of(k)
                vappends[ch](v)
                tappends[ch](ts)
        self._str_keys = type(k) is str  # the next batch's loop follows the last key's type
        if timestamps is None:
            return [(vb, None) for vb in vbuckets]
        return list(zip(vbuckets, tbuckets, strict=True))

    def _route_new_keys(
        self, values: list[Any], timestamps: list[int | None] | None, n: int
    ) -> Routed:
        """A batch of ``str`` keys looked up at once; the key groups of the ones not cached
        computed together (``KeyGroupStreamPartitioner.channels_of_str_keys``)."""
        keys = self._select_keys(values)
        return _buckets(values, timestamps, self._channels_of_keys(keys), n)

    def _channels_one_by_one(self, keys: list[Any]) -> list[int]:
        """The channel of each key through the caches (``1``, ``True`` and ``1.0`` apart)."""
        cache, str_cache = self._key_cache, self._str_key_cache
        channel_of = self.partitioner.channel_of_key  # type: ignore[attr-defined]
        get, str_get = cache.get, str_cache.get
        self_identifying = SELF_IDENTIFYING_KEY_TYPES
        out: list[int] = []
        append = out.append
        for k in keys:
            tk = type(k)
            if tk is str:
                ch = str_get(k)
                if ch is None:
                    ch = str_cache[k] = channel_of(k)
            else:
                ck = k if tk in self_identifying else key_identity(k)
                ch = get(ck)
                if ch is None:
                    ch = cache[ck] = channel_of(k)
            append(ch)
        return out


def _buckets(
    values: list[Any], timestamps: list[int | None] | None, channels: list[int], n: int
) -> Routed:
    """Per channel the values (and timestamps) ``channels`` assigns to it, in arrival order."""
    vbuckets: list[list[Any]] = [[] for _ in range(n)]
    vappends = [b.append for b in vbuckets]
    if timestamps is None:
        for v, ch in zip(values, channels, strict=True):
            vappends[ch](v)
        return [(vb, None) for vb in vbuckets]
    tbuckets: list[list[int | None]] = [[] for _ in range(n)]
    tappends = [b.append for b in tbuckets]
    for v, ts, ch in zip(values, timestamps, channels, strict=True):
        vappends[ch](v)
        tappends[ch](ts)
    return list(zip(vbuckets, tbuckets, strict=True))


def _keyed_buckets(
    values: list[Any],
    timestamps: list[int | None] | None,
    keys: list[Any],
    channels: list[int],
    n: int,
) -> KeyedRouted:
    """``_buckets`` with each record's key beside it."""
    routed = _buckets(keys, timestamps, channels, n)  # the keys' columns, then the values'
    values_by_channel: list[list[Any]] = [[] for _ in range(n)]
    appends = [b.append for b in values_by_channel]
    for v, ch in zip(values, channels, strict=True):
        appends[ch](v)
    return [(vb, ts, kb) for vb, (kb, ts) in zip(values_by_channel, routed, strict=True)]
