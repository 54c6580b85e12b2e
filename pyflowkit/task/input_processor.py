"""The input side of a task: channels → watermark valve → key context → chain; end of input.

Stands for Flink's ``StreamOneInputProcessor`` / ``StreamTwoInputProcessor`` with their
``StreamTaskNetworkInput``s: records of an input go to the chain's head under their key
(``key_context``), a watermark of a channel goes through its input's ``StatusWatermarkValve``
and the aligned minimum reaches the head, and when every channel of an input has delivered its
``EndOfPartitionEvent`` the head's input ends (``endInput``). Hosts only say which channels there
are (``input_channels``) and hand over what arrives; the transport is theirs.

An ``InputSelectable`` head (``next_selection()``: Flink's BATCH broadcast operators read input 2
first) is honoured here, for every host: a host that chooses what to read asks
``is_selected(input)`` (the simulated cluster polls only those gates, as
``MultipleInputSelectionHandler`` does); what a host hands over for an input that is not selected
(Spark's rows arrive in the order Spark gives them) waits here, in order, and is processed once
the selection turns to it (``StreamMultipleInputProcessor`` leaves it unread in its channels).

Input numbers are the chain's: 0 for a one-input head, 1 and 2 (the JobEdges' type numbers) for a
two-input head. A channel is numbered on its input as Flink's ``InputGate`` numbers it: the
vertex's in-edges of that input in order, each edge's producer subtasks in wiring order.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from functools import cached_property
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
        # the chain's process_batch takes the keys a transport carried (OperatorChain does)
        self._chain_takes_keys = bool(getattr(chain, "takes_carried_keys", False))
        self._channels = channels  # numbered into ``channel_of`` at the first channel event
        self.valves: dict[int, StatusWatermarkValve] = {}
        self.open_channels: dict[int, set[int]] = {}
        for input_index, ids in channels.items():
            self.valves[input_index] = StatusWatermarkValve(len(ids))
            self.open_channels[input_index] = set(range(len(ids)))
        self.ended_inputs: set[int] = set()
        # InputSelectable heads: what arrived for an input not selected yet, in arrival order
        self._select = getattr(getattr(chain, "head", None), "next_selection", None)
        self._held: dict[int, list[tuple[str, Any, Any, Any]]] = {}

    @cached_property
    def channel_of(self) -> dict[Hashable, tuple[int, int]]:
        """Channel id → (input number, channel number on that input); built on first use, so a
        deployed task that has not read yet has not numbered its channels."""
        return {
            channel: (input_index, number)
            for input_index, ids in self._channels.items()
            for number, channel in enumerate(ids)
        }

    @property
    def selective(self) -> bool:
        """The head is ``InputSelectable`` (not every input is read at every moment)."""
        return self._select is not None

    def is_selected(self, input_index: int) -> bool:
        """``InputSelection.isInputSelected``: every input unless the head is InputSelectable.
        An input whose data ended stays readable (``MultipleInputSelectionHandler`` keeps reading
        it for its barriers and EndOfPartition; no records follow)."""
        if self._select is None or input_index in self.ended_inputs:
            return True
        selected = self._select()
        return selected == input_index or selected in self.ended_inputs

    def _hold(self, input_index: int, item: tuple[str, Any, Any, Any]) -> bool:
        """Keep ``item`` for later if ``input_index`` is not selected; True if held."""
        if self._select is None or self.is_selected(input_index):
            return False
        self._held.setdefault(input_index, []).append(item)
        return True

    def _release_held(self) -> None:
        """Process what waited for inputs that are selected now, in arrival order."""
        for input_index in list(self._held):
            if not self.is_selected(input_index):
                continue
            for kind, a, b, keys in self._held.pop(input_index):
                if kind == "batch":
                    self._process(input_index, a, b, keys)
                elif kind == "watermark":
                    self.process_watermark(a, b)
                else:  # "end": the channel's end of partition
                    self.end_of_channel(a)

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
        self,
        input_index: int,
        values: Sequence[Any],
        timestamps: Sequence[int | None] | None,
        keys: Sequence[Any] | None = None,
    ) -> None:
        """Records of one buffer/chunk of ``input_index``, each under its key (``keys``: the
        keys selected for them upstream, when the transport carried them; a batch held for
        another input keeps them)."""
        if self._select is not None and self._hold(
            input_index, ("batch", values, timestamps, keys)
        ):
            return
        if keys is None or not self._chain_takes_keys:
            self.chain.process_batch(values, timestamps, input_index)
        else:
            self.chain.process_batch(values, timestamps, input_index, keys)

    def _process(
        self,
        input_index: int,
        values: Sequence[Any],
        timestamps: Sequence[int | None] | None,
        keys: Sequence[Any] | None,
    ) -> None:
        """A held batch, released (as ``process_batch`` hands it over)."""
        if keys is None or not self._chain_takes_keys:
            self.chain.process_batch(values, timestamps, input_index)
        else:
            self.chain.process_batch(values, timestamps, input_index, keys)

    def process_record(
        self,
        channel: Hashable,
        value: Any,
        timestamp: int | None,
        key: tuple[Any] | None = None,
    ) -> None:
        """One record of ``channel`` (a host that moves records one at a time); ``key``: the
        1-tuple of the key selected for it upstream, when the transport carried it."""
        input_index = self.channel_of[channel][0]
        if self._select is not None and self._hold(
            input_index, ("batch", [value], [timestamp], key)
        ):
            return
        if key is not None and self._chain_takes_keys:
            stamps = None if timestamp is None else [timestamp]
            self.chain.process_batch([value], stamps, input_index, key)
            return
        self.chain.process_element(value, timestamp, input_index)

    def process_watermark(self, channel: Hashable, watermark: int) -> int | None:
        """A watermark of ``channel``; the valve's new aligned watermark (forwarded to the head)
        or None when it did not advance."""
        input_index, number = self.channel_of[channel]
        if self._select is not None and self._hold(
            input_index, ("watermark", channel, watermark, None)
        ):
            return None
        new = self.valves[input_index].input_watermark(watermark, number)
        if new is not None:
            self.chain.process_watermark(new, input_index)
        return new

    def end_of_channel(self, channel: Hashable) -> int | None:
        """``EndOfPartitionEvent`` on ``channel``: the input number that has now ended (its head
        input got ``endInput``), else None."""
        input_index, number = self.channel_of[channel]
        if self._select is not None and self._hold(input_index, ("end", channel, None, None)):
            return None
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
        if self._held:
            self._release_held()

    def end_all_inputs(self) -> None:
        """For a host that sees its inputs run out rather than per-channel ends (a Spark stage's
        rows): every input not ended yet ends, in input order; a selected input first (its end
        lets what waited for the other input through)."""
        while len(self.ended_inputs) < len(self.valves):
            pending = [i for i in self.inputs if i not in self.ended_inputs]
            selected = [i for i in pending if self.is_selected(i)]
            self.end_input((selected or pending)[0])

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
