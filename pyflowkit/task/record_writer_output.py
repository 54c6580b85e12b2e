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

    def collect(self, value: Any, timestamp: int | None) -> None:
        """``RecordWriter.emit``: the record into its channel (every channel if BROADCAST)."""
        if self.is_broadcast:
            write = self.write
            for channel in self.channels:
                write(channel, value, timestamp)
        else:
            self.write(self.selector.select_channel(value), value, timestamp)

    @abstractmethod
    def write(self, channel: int, value: Any, timestamp: int | None) -> None:
        """The transport: one record into channel (subpartition) ``channel``."""

    def consumer(self, channel: int) -> int:
        """The consumer subtask reading ``channel``."""
        return self.selector.consumers[channel]
