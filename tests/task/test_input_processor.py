"""The task core's input side: channel numbering, watermark alignment per input, end of input."""

from __future__ import annotations

from typing import Any

from pyflowkit.java_semantics import LONG_MIN_VALUE
from pyflowkit.task.input_processor import StreamInputProcessor, input_channels


class RecordingChain:
    """Stands in for an OperatorChain: records what the input side hands the head."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def process_batch(self, values: Any, timestamps: Any, input_index: int) -> None:
        self.calls.append(("batch", input_index, list(values)))

    def process_element(self, value: Any, timestamp: Any, input_index: int) -> None:
        self.calls.append(("record", input_index, value))

    def process_watermark(self, watermark: int, input_index: int) -> None:
        self.calls.append(("watermark", input_index, watermark))

    def end_input(self, input_index: int) -> None:
        self.calls.append(("end", input_index))


def two_input() -> tuple[RecordingChain, StreamInputProcessor]:
    chain = RecordingChain()
    # input 1 reads edge "x" from producers 0 and 1; input 2 reads edge "y" (producer 0) and
    # edge "z" (producer 3) — a union on one input
    channels = input_channels([(1, "x", [0, 1]), (2, "y", [0]), (2, "z", [3])])
    return chain, StreamInputProcessor(chain, channels)


def test_channels_numbered_per_input_in_edge_order() -> None:
    channels = input_channels([(1, "x", [0, 1]), (2, "y", [0]), (2, "z", [3])])
    assert channels == {1: [("x", 0), ("x", 1)], 2: [("y", 0), ("z", 3)]}
    _, inputs = two_input()
    assert inputs.channel_of[("z", 3)] == (2, 1)
    assert inputs.inputs == [1, 2]


def test_watermark_is_the_minimum_over_an_inputs_channels() -> None:
    chain, inputs = two_input()
    assert inputs.process_watermark(("x", 0), 10) is None  # channel 1 still at Long.MIN_VALUE
    assert inputs.process_watermark(("x", 1), 7) == 7
    assert inputs.process_watermark(("x", 1), 12) == 10
    assert inputs.process_watermark(("x", 0), 9) is None  # no regression
    assert chain.calls == [("watermark", 1, 7), ("watermark", 1, 10)]
    assert inputs.input_watermark(1) == 10
    assert inputs.current_watermark == LONG_MIN_VALUE  # input 2 has none yet
    inputs.process_watermark(("y", 0), 3)
    inputs.process_watermark(("z", 3), 4)
    assert inputs.current_watermark == 3


def test_an_input_ends_when_all_its_channels_ended_once() -> None:
    chain, inputs = two_input()
    assert inputs.end_of_channel(("y", 0)) is None
    assert inputs.end_of_channel(("y", 0)) is None  # a repeated end changes nothing
    assert inputs.end_of_channel(("z", 3)) == 2
    assert not inputs.is_finished
    assert inputs.end_of_channel(("x", 1)) is None
    assert inputs.end_of_channel(("x", 0)) == 1
    assert inputs.is_finished
    assert [c for c in chain.calls if c[0] == "end"] == [("end", 2), ("end", 1)]


def test_records_reach_the_head_on_their_input() -> None:
    chain, inputs = two_input()
    inputs.process_batch(2, ["a", "b"], None)
    inputs.process_record(("x", 1), "c", 5)
    assert chain.calls == [("batch", 2, ["a", "b"]), ("record", 1, "c")]


def test_end_all_inputs_ends_the_rest_in_input_order() -> None:
    chain, inputs = two_input()
    inputs.end_of_channel(("y", 0))
    inputs.end_of_channel(("z", 3))
    inputs.end_all_inputs()
    assert [c for c in chain.calls if c[0] == "end"] == [("end", 2), ("end", 1)]


def test_memory_restores_valves_and_ended_channels_without_ending_again() -> None:
    chain, inputs = two_input()
    inputs.process_watermark(("x", 0), 5)
    inputs.process_watermark(("x", 1), 6)
    inputs.end_of_channel(("y", 0))
    inputs.end_of_channel(("z", 3))
    memory = inputs.memory()
    fresh_chain, fresh = two_input()
    fresh.restore_memory({i: m[:3] for i, m in memory.items()})
    fresh.restore_ended([("y", 0), ("z", 3)])
    assert fresh.input_watermark(1) == 5
    assert fresh.ended_inputs == {2}
    assert fresh_chain.calls == []  # endInput of input 2 ran in the earlier incarnation
    assert fresh.process_watermark(("x", 0), 8) == 6
    assert fresh.end_of_channel(("x", 0)) is None
    assert fresh.end_of_channel(("x", 1)) == 1 and fresh.is_finished
