"""The simulated network stack: result partitions, input gates, buffers, credit-based flow control.

Stands for Flink's ``ResultPartition``/``ResultSubpartition``, ``SingleInputGate``/``InputChannel``,
``LocalBufferPool`` and the credit protocol of the Netty shuffle: a producer may hand a buffer to a
consumer channel only when the channel has a credit (a free exclusive buffer); buffers that cannot be
sent stay in the subpartition and hold the producer's pool, so a slow consumer back-pressures its
producers. Elements inside a data buffer are ``(value, timestamp)`` records (held as columns while a
buffer has records only) or ``Watermark``s; events (``EndOfPartitionEvent``, later
``CheckpointBarrier``) travel as their own buffers, in order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Watermark:
    """Flink's ``Watermark`` stream element."""

    timestamp: int


class EndOfPartitionEvent:
    """Flink's ``EndOfPartitionEvent``: the producer subtask finished this partition."""

    def __repr__(self) -> str:
        return "EndOfPartitionEvent"


END_OF_PARTITION = EndOfPartitionEvent()


class EndOfData:
    """Flink's ``EndOfData`` (1.14+, FLIP-147): the producer's operators have ended their data;
    it precedes ``EndOfPartitionEvent`` by the producer's final checkpoint. ``stop_mode`` is
    ``StopMode.DRAIN`` (end of input, stop-with-savepoint --drain) or ``NO_DRAIN``."""

    __slots__ = ("stop_mode",)

    def __init__(self, stop_mode: str) -> None:
        self.stop_mode = stop_mode

    def __repr__(self) -> str:
        return f"EndOfData(StopMode.{self.stop_mode})"


class Buffer:
    """A network buffer (Flink's ``NetworkBuffer``): stream elements, or one event.

    A buffer of records only is held as columns — ``values`` and ``timestamps`` (None when no
    record carries one) — so no ``(value, timestamp)`` pair is built per record; a buffer that
    also holds a ``Watermark`` is a list of elements. ``elements`` (and iteration) always give
    the element form: ``(value, timestamp)`` tuples and ``Watermark``s, in order.

    ``keys``: on a HASH edge, the key selected for each record (records only, in order, in
    either form), so the consumer's key context does not select it again (PyFlink's ``key_by``
    ships ``Row(key, value)``); None when a record came without one.
    """

    __slots__ = ("values", "timestamps", "_elements", "event", "keys")

    def __init__(
        self,
        elements: list[Any] | None = None,
        event: Any = None,
        values: list[Any] | None = None,
        timestamps: list[int | None] | None = None,
        keys: list[Any] | None = None,
    ) -> None:
        if values is not None and (elements is not None or event is not None):
            raise ValueError("A Buffer holds records as columns, elements or one event.")
        if timestamps is not None and (values is None or len(timestamps) != len(values)):
            raise ValueError("Buffer timestamps must pair up with its values.")
        self.values = values
        self.timestamps = timestamps
        self._elements = elements if elements is not None or values is not None else []
        self.event = event
        self.keys = keys

    @classmethod
    def of_records(
        cls,
        values: list[Any],
        timestamps: list[int | None] | None = None,
        keys: list[Any] | None = None,
    ) -> Buffer:
        """A data buffer of records only (columns; ``timestamps`` None: none has one; ``keys``
        the records' selected keys, or None)."""
        return cls(values=values, timestamps=timestamps, keys=keys)

    @property
    def is_event(self) -> bool:
        return self.event is not None

    @property
    def elements(self) -> list[Any]:
        """The element form: ``(value, timestamp)`` tuples and ``Watermark``s, in order."""
        els = self._elements
        if els is None:
            stamps = self.timestamps
            if stamps is None:
                return [(v, None) for v in self.values]  # type: ignore[union-attr]
            return list(zip(self.values, stamps, strict=True))  # type: ignore[arg-type]
        return els

    def append(self, element: Any, key: Any = None, keyed: bool = False) -> None:
        """Add one element (a record pair or a ``Watermark``); a watermark turns columns to a list.
        A record's selected ``key`` is kept if ``keyed`` (else the buffer carries no keys)."""
        if self.keys is not None and type(element) is tuple:
            if keyed:
                self.keys.append(key)
            else:
                self.keys = None
        values = self.values
        if values is None:
            self._elements.append(element)  # type: ignore[union-attr]
        elif type(element) is tuple:
            value, timestamp = element
            stamps = self.timestamps
            if stamps is None and timestamp is not None:
                stamps = self.timestamps = [None] * len(values)
            values.append(value)
            if stamps is not None:
                stamps.append(timestamp)
        else:
            self._elements = self.elements
            self._elements.append(element)
            self.values = self.timestamps = None

    def extend_records(
        self, values: list[Any], timestamps: list[int | None] | None, keys: list[Any] | None = None
    ) -> None:
        """Add records given as columns (``timestamps`` None: none has one; ``keys`` their
        selected keys, or None)."""
        own_keys = self.keys
        if own_keys is not None:
            if keys is None:
                self.keys = None
            else:
                own_keys.extend(keys)
        mine = self.values
        if mine is None:
            stamps = [None] * len(values) if timestamps is None else timestamps
            self._elements.extend(zip(values, stamps, strict=True))  # type: ignore[union-attr]
            return
        own = self.timestamps
        if own is None and timestamps is not None:
            own = self.timestamps = [None] * len(mine)
        mine.extend(values)
        if own is not None:
            own.extend([None] * len(values) if timestamps is None else timestamps)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.elements)

    def __len__(self) -> int:
        values = self.values
        return len(self._elements if values is None else values)  # type: ignore[arg-type]


class LocalBufferPool:
    """Flink's ``LocalBufferPool`` of one ResultPartition: a bounded number of buffers."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.in_use = 0
        self.listeners: list[Callable[[], None]] = []
        #: called when the last buffer is taken (the pool becomes unavailable: back pressure)
        self.exhausted_listeners: list[Callable[[], None]] = []

    def is_available(self) -> bool:
        return self.in_use < self.capacity

    def request(self) -> None:
        # The task finishes its current step even when it overdraws; it then waits (back pressure).
        self.in_use += 1
        if self.in_use == self.capacity:
            for listener in self.exhausted_listeners:
                listener()

    def recycle(self) -> None:
        was_available = self.is_available()
        self.in_use -= 1
        if not was_available and self.is_available():
            for listener in list(self.listeners):
                listener()


class ResultSubpartition:
    """Flink's ``PipelinedSubpartition``: the queue of buffers for one consumer subtask."""

    def __init__(self, partition: ResultPartition, index: int) -> None:
        self.partition = partition
        self.index = index
        self.queue: deque[Buffer] = deque()
        self.channel: InputChannel | None = None
        self.credit = 0
        self.buffers_sent = 0
        # ``acknowledgeAllDataProcessed`` (1.14+, FLIP-147): the consumer read our EndOfData
        self.all_data_processed = False

    def add(self, buffer: Buffer) -> None:
        self.queue.append(buffer)
        self.try_send()

    def add_credit(self, n: int, channel: InputChannel | None = None) -> None:
        self.credit += n
        self.try_send()

    def attach(self, channel: InputChannel) -> None:
        """``createReadView``: the (one) consumer channel of a pipelined subpartition."""
        self.channel = channel

    def detach(self, channel: InputChannel) -> None:
        if self.channel is channel:
            self.channel = None

    def unsent(self) -> int:
        """Buffers not yet handed to the consumer."""
        return len(self.queue)

    def release(self) -> None:
        self.queue.clear()
        self.channel = None

    def try_send(self) -> None:
        """Hand queued buffers to the consumer channel while it has credit."""
        ch = self.channel
        while self.queue and ch is not None and self.credit > 0 and not self.partition.released:
            self.credit -= 1
            buffer = self.queue.popleft()
            self.buffers_sent += 1
            self.partition.pool.recycle()
            ch.on_buffer(buffer)


class BoundedBlockingSubpartition(ResultSubpartition):
    """Flink's ``BoundedBlockingSubpartition`` (a BLOCKING result of a batch job): each buffer is
    written out in full as it comes (its pool buffer recycled at once) and every consumer that
    requests the subpartition reads all of it through its own ``BoundedBlockingSubpartitionReader``
    with its own credit, so several consumer subtasks can read one subpartition (the adaptive
    batch scheduler's broadcast results have a single subpartition every consumer reads)."""

    def __init__(self, partition: ResultPartition, index: int) -> None:
        super().__init__(partition, index)
        # id(channel) → [channel, next buffer index, credit]: one reader per consumer channel
        self.readers: dict[int, list[Any]] = {}

    def add(self, buffer: Buffer) -> None:
        self.queue.append(buffer)
        self.partition.pool.recycle()  # written to the bounded data: the pool buffer is free
        self.try_send()

    def attach(self, channel: InputChannel) -> None:
        self.channel = channel
        self.readers[id(channel)] = [channel, 0, 0]

    def detach(self, channel: InputChannel) -> None:
        self.readers.pop(id(channel), None)
        super().detach(channel)

    def add_credit(self, n: int, channel: InputChannel | None = None) -> None:
        reader = self.readers.get(id(channel))
        if reader is not None:
            reader[2] += n
            self.try_send()

    def try_send(self) -> None:
        """Each reader gets the next buffers it has credit for."""
        if self.partition.released:
            return
        data = self.queue
        for reader in list(self.readers.values()):
            channel, position, credit = reader
            while position < len(data) and credit > 0:
                credit -= 1
                buffer = data[position]
                position += 1
                reader[1], reader[2] = position, credit
                self.buffers_sent += 1
                channel.on_buffer(buffer)

    def unsent(self) -> int:
        if not self.readers:
            return len(self.queue)
        return max(len(self.queue) - r[1] for r in self.readers.values())

    def release(self) -> None:
        super().release()
        self.readers.clear()


class ResultPartition:
    """Flink's ``ResultPartition``: one produced dataset of one subtask, one subpartition per
    consumer (``blocking``: a BLOCKING result's ``BoundedBlockingSubpartition``s)."""

    def __init__(
        self,
        partition_id: tuple[str, int, str],
        n_subpartitions: int,
        pool_size: int,
        blocking: bool = False,
    ):
        self.partition_id = partition_id  # (IntermediateDataSet id, producer subtask, attempt id)
        kind = BoundedBlockingSubpartition if blocking else ResultSubpartition
        self.subpartitions = [kind(self, i) for i in range(n_subpartitions)]
        self.pool = LocalBufferPool(pool_size)
        self.released = False
        self.finished = False
        # completes ``getAllDataProcessedFuture`` (the producer task's wake-up), once
        self.on_all_data_processed: Callable[[], None] | None = None

    @property
    def all_data_processed(self) -> bool:
        """``getAllDataProcessedFuture().isDone()``: every consumer read our EndOfData."""
        return all(sp.all_data_processed for sp in self.subpartitions)

    def on_subpartition_all_data_processed(self, index: int) -> None:
        """``onSubpartitionAllDataProcessed``: the subpartition's consumer processed every
        record before our EndOfData; the last one completes the future."""
        sp = self.subpartitions[index]
        if sp.all_data_processed:
            return
        sp.all_data_processed = True
        if self.all_data_processed and self.on_all_data_processed is not None:
            self.on_all_data_processed()

    def queued_buffers(self) -> int:
        return sum(s.unsent() for s in self.subpartitions)

    def finish(self) -> None:
        """``ResultPartition.finish``: an EndOfPartitionEvent into every subpartition."""
        self.finished = True
        for sp in self.subpartitions:
            self.pool.request()
            sp.add(Buffer(event=END_OF_PARTITION))

    def notify_end_of_data(self, stop_mode: str) -> None:
        """``ResultPartition.notifyEndOfData``: an ``EndOfData`` event into every subpartition."""
        for sp in self.subpartitions:
            self.pool.request()
            sp.add(Buffer(event=EndOfData(stop_mode)))

    def release(self) -> None:
        self.released = True
        for sp in self.subpartitions:
            sp.release()


class InputChannel:
    """Flink's ``RemoteInputChannel``: receives one subpartition, announces credit for it."""

    def __init__(
        self,
        gate: SingleInputGate,
        index: int,
        partition_id: tuple[str, int, str],
        subpartition_index: int,
    ) -> None:
        self.gate = gate
        self.index = index
        self.partition_id = partition_id
        self.subpartition_index = subpartition_index
        self.queue: deque[Buffer] = deque()
        self.subpartition: ResultSubpartition | None = None
        self.finished = False
        self.blocked = False  # checkpoint alignment blocks a channel (next issue)

    def connect(self, subpartition: ResultSubpartition) -> None:
        """``requestSubpartition`` + initial credit announcement (exclusive buffers)."""
        self.subpartition = subpartition
        subpartition.attach(self)
        subpartition.add_credit(self.gate.buffers_per_channel, self)

    def on_buffer(self, buffer: Buffer) -> None:
        was_empty = not self.queue
        self.queue.append(buffer)
        if was_empty:
            self.gate.notify_channel_non_empty(self)

    def acknowledge_all_records_processed(self) -> None:
        """``acknowledgeAllRecordsProcessed`` (1.14+, FLIP-147): the consumer read EndOfData
        from this channel, so it processed every record the producer sent before it."""
        sp = self.subpartition
        if sp is not None:
            sp.partition.on_subpartition_all_data_processed(sp.index)

    def recycle(self) -> None:
        """The consumer is done with one buffer: its credit goes back to the producer."""
        if self.subpartition is not None:
            self.subpartition.add_credit(1, self)


class SingleInputGate:
    """Flink's ``SingleInputGate``: one channel per producer subtask of one consumed dataset."""

    def __init__(self, input_index: int, buffers_per_channel: int) -> None:
        self.input_index = input_index  # 0 for one-input tasks, 1/2 for two-input (type number)
        self.buffers_per_channel = buffers_per_channel
        self.channels: list[InputChannel] = []
        self.channels_with_data: deque[InputChannel] = deque()
        self.listener: Callable[[], None] | None = None

    def add_channel(
        self, partition_id: tuple[str, int, str], subpartition_index: int
    ) -> InputChannel:
        ch = InputChannel(self, len(self.channels), partition_id, subpartition_index)
        self.channels.append(ch)
        return ch

    def notify_channel_non_empty(self, channel: InputChannel) -> None:
        if not channel.blocked:
            self.channels_with_data.append(channel)
        if self.listener is not None:
            self.listener()

    def has_data(self) -> bool:
        return bool(self.channels_with_data)

    def poll_next(self) -> tuple[InputChannel, Buffer] | None:
        """``pollNext``: the next buffer, from channels in the order they got data."""
        while self.channels_with_data:
            ch = self.channels_with_data.popleft()
            if ch.blocked or not ch.queue:
                continue
            buffer = ch.queue.popleft()
            if ch.queue:
                self.channels_with_data.append(ch)
            return ch, buffer
        return None

    def queued_buffers(self) -> int:
        return sum(len(c.queue) for c in self.channels)

    @property
    def is_finished(self) -> bool:
        return all(c.finished for c in self.channels)


class ShuffleEnvironment:
    """Flink's ``NettyShuffleEnvironment``, cluster-wide here: connects channels to subpartitions."""

    def __init__(self) -> None:
        self.partitions: dict[tuple[str, int, str], ResultPartition] = {}
        self.waiting: dict[tuple[str, int, str], list[InputChannel]] = {}

    def register_partition(self, partition: ResultPartition) -> None:
        self.partitions[partition.partition_id] = partition
        for ch in self.waiting.pop(partition.partition_id, []):
            ch.connect(partition.subpartitions[ch.subpartition_index])

    def request_subpartition(self, channel: InputChannel) -> None:
        partition = self.partitions.get(channel.partition_id)
        if partition is None or partition.released:
            self.waiting.setdefault(channel.partition_id, []).append(channel)
        else:
            channel.connect(partition.subpartitions[channel.subpartition_index])

    def release_partition(self, partition: ResultPartition) -> None:
        partition.release()
        self.partitions.pop(partition.partition_id, None)

    def forget_channel(self, channel: InputChannel) -> None:
        waiting = self.waiting.get(channel.partition_id)
        if waiting and channel in waiting:
            waiting.remove(channel)
        if channel.subpartition is not None:
            channel.subpartition.detach(channel)
