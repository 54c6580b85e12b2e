"""The input side of a task: channels → watermark valve → key context → chain; end of input.

Stands for Flink's ``StreamOneInputProcessor`` / ``StreamTwoInputProcessor`` with their
``StreamTaskNetworkInput``s: records of an input go to the chain's head under their key
(``key_context``), a watermark of a channel goes through its input's ``StatusWatermarkValve``
and the aligned minimum reaches the head, and when every channel of an input has delivered its
``EndOfPartitionEvent`` the head's input ends (``endInput``). Hosts only say which channels there
are (``input_channels``) and hand over what arrives; the transport is theirs.

Input numbers are the chain's: 0 for a one-input head, 1 and 2 (the JobEdges' type numbers) for a
two-input head. A channel is numbered on its input as Flink's ``InputGate`` numbers it: the
vertex's in-edges of that input in order, each edge's producer subtasks in wiring order.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Any

from pyflowkit.java_semantics import LONG_MIN_VALUE
from pyflowkit.state.watermark_valve import StatusWatermarkValve


def input_channels(
    in_edges: Iterable[tuple[int, Hashable, Sequence[int]]],
) -> dict[int, list[tuple[Hashable, int]]]:
    """Input number → its channels ``(edge key, producer subtask)`` in channel order, from the
    vertex's in-edges ``(input number, edge key, producer subtasks read)`` in JobEdge order."""
    channels: dict[int, list[tuple[Hashable, int]]] = {}
    for input_index, edge, producers in in_edges:
        channels.setdefault(input_index, []).extend((edge, p) for p in producers)
    return channels


class StreamInputProcessor:
    """One subtask's inputs feeding its ``OperatorChain`` (Flink's ``StreamInputProcessor``).

    ``channels``: input number → channel ids in channel order (``input_channels``), any hashable
    ids the host names its channels by.
    """

    def __init__(self, chain: Any, channels: dict[int, Sequence[Hashable]]) -> None:
        self.chain = chain
        self.channel_of: dict[Hashable, tuple[int, int]] = {}
        self.valves: dict[int, StatusWatermarkValve] = {}
        self.open_channels: dict[int, set[int]] = {}
        for input_index, ids in channels.items():
            self.valves[input_index] = StatusWatermarkValve(len(ids))
            self.open_channels[input_index] = set(range(len(ids)))
            for number, channel in enumerate(ids):
                self.channel_of[channel] = (input_index, number)
        self.ended_inputs: set[int] = set()

    @property
    def inputs(self) -> list[int]:
        return sorted(self.valves)

    @property
    def is_finished(self) -> bool:
        """Every input has ended (``InputStatus.END_OF_INPUT`` of the processor)."""
        return len(self.ended_inputs) == len(self.valves)

    def input_watermark(self, input_index: int) -> int:
        """The aligned watermark the valve of ``input_index`` last let through."""
        return self.valves[input_index].last_output_watermark

    @property
    def current_watermark(self) -> int:
        """The task's input watermark: the minimum over its inputs."""
        return min((self.input_watermark(i) for i in self.valves), default=LONG_MIN_VALUE)

    # ---- what arrives --------------------------------------------------------------------------
    def process_batch(
        self, input_index: int, values: Sequence[Any], timestamps: Sequence[int | None] | None
    ) -> None:
        """Records of one buffer/chunk of ``input_index``, each under its key."""
        self.chain.process_batch(values, timestamps, input_index)

    def process_record(self, channel: Hashable, value: Any, timestamp: int | None) -> None:
        """One record of ``channel`` (a host that moves records one at a time)."""
        self.chain.process_element(value, timestamp, self.channel_of[channel][0])

    def process_watermark(self, channel: Hashable, watermark: int) -> int | None:
        """A watermark of ``channel``; the valve's new aligned watermark (forwarded to the head)
        or None when it did not advance."""
        input_index, number = self.channel_of[channel]
        new = self.valves[input_index].input_watermark(watermark, number)
        if new is not None:
            self.chain.process_watermark(new, input_index)
        return new

    def end_of_channel(self, channel: Hashable) -> int | None:
        """``EndOfPartitionEvent`` on ``channel``: the input number that has now ended (its head
        input got ``endInput``), else None."""
        input_index, number = self.channel_of[channel]
        remaining = self.open_channels[input_index]
        if number not in remaining:
            return None
        remaining.discard(number)
        if remaining:
            return None
        self.end_input(input_index)
        return input_index

    def end_input(self, input_index: int) -> None:
        """Input ``input_index`` has ended (once): ``endHeadOperatorInput``."""
        if input_index in self.ended_inputs:
            return
        self.open_channels[input_index].clear()
        self.ended_inputs.add(input_index)
        self.chain.end_input(input_index)

    def end_all_inputs(self) -> None:
        """For a host that sees its inputs run out rather than per-channel ends (a Spark stage's
        rows): every input not ended yet ends, in input order."""
        for input_index in self.inputs:
            self.end_input(input_index)

    # ---- what a running task keeps in memory (a host that rebuilds the task restores it) ----
    def memory(self) -> dict[int, tuple[list[int], list[bool], Any, list[int]]]:
        """Input → (channel watermarks, channel active flags, last aligned, open channels)."""
        return {
            i: (
                list(v.channel_watermarks),
                list(v.channel_active),
                v.last_output_watermark,
                sorted(self.open_channels[i]),
            )
            for i, v in self.valves.items()
        }

    def restore_memory(self, memory: dict[int, tuple]) -> None:
        """The inverse of ``memory``; ended inputs stay ended (their ``endInput`` ran then)."""
        for i, entry in memory.items():
            valve = self.valves.get(int(i))
            if valve is None:
                continue
            marks, active, last = entry[0], entry[1], entry[2]
            valve.channel_watermarks[:] = marks
            valve.channel_active[:] = active
            valve.last_output_watermark = last
            if len(entry) > 3:
                self.open_channels[int(i)] = set(entry[3])
                if not entry[3]:
                    self.ended_inputs.add(int(i))

    def restore_ended(self, channels: Iterable[Hashable]) -> None:
        """Channels that delivered their end in an earlier incarnation of this task: closed, and
        an input whose channels all ended counts as ended (its ``endInput`` ran back then)."""
        for channel in channels:
            found = self.channel_of.get(channel)
            if found is None:
                continue
            input_index, number = found
            self.open_channels[input_index].discard(number)
            if not self.open_channels[input_index]:
                self.ended_inputs.add(input_index)
