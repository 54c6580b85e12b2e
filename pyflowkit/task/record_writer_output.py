"""The chain's exit towards one non-chained StreamEdge (Flink's ``RecordWriterOutput``).

A record goes to the channel the edge's ``ChannelSelector`` picks (``graph.routing``: the one
routing model), to every channel on a BROADCAST edge; watermarks go to every channel; ``close``
flushes and ends the partition (``EndOfPartitionEvent``). Side-output records arrive here only
through the chain's ``SideRecordWriterOutput`` (the edge's own tag, as main records). Hosts supply
the transport: ``write`` one record into a channel, ``emit_watermark``, ``close``.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from pyflowkit.graph.routing import ChannelSelector
from pyflowkit.operators.output import Output


class RecordWriterOutput(Output):
    """Flink's ``RecordWriterOutput`` over a host transport; routing per ``ChannelSelector``."""

    def __init__(self, selector: ChannelSelector) -> None:
        self.selector = selector
        self.is_broadcast = selector.is_broadcast
        self.channels = range(selector.number_of_channels)
        # a HASH edge selects each record's key here; the key travels with its record
        self.carries_keys = selector.carries_keys

    def collect(self, value: Any, timestamp: int | None) -> None:
        """``RecordWriter.emit``: the record into its channel (every channel if BROADCAST); on a
        HASH edge with the key selected for it (PyFlink's ``key_by`` ships ``Row(key, value)``:
        the consumer's key context takes that key and does not select it again)."""
        if self.is_broadcast:
            write = self.write
            for channel in self.channels:
                write(channel, value, timestamp)
        elif self.carries_keys:
            channel, key = self.selector.select_channel_and_key(value)
            self.write_keyed(channel, value, timestamp, key)
        else:
            self.write(self.selector.select_channel(value), value, timestamp)

    @abstractmethod
    def write(self, channel: int, value: Any, timestamp: int | None) -> None:
        """The transport: one record into channel (subpartition) ``channel``."""

    @abstractmethod
    def write_keyed(self, channel: int, value: Any, timestamp: int | None, key: Any) -> None:
        """The transport: one record with its selected ``key`` into channel ``channel``, for the
        consumer's ``StreamInputProcessor`` (``keys``) to make current."""

    def consumer(self, channel: int) -> int:
        """The consumer subtask reading ``channel``."""
        return self.selector.consumers[channel]
