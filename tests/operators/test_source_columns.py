"""Source readers hand out columns (``poll_values``) equal to their ``poll`` pairs."""

from __future__ import annotations

import pytest

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.sources import (
    CollectionSource,
    DataGeneratorSource,
    ListReader,
    RangeReader,
    SourceReader,
)
from pyflowkit.operators.stream_source import InputStatus, StreamSource


def drain(reader: SourceReader, step: int) -> list[tuple[list, list | None]]:
    out = []
    while not reader.is_finished():
        out.append(reader.poll_values(step))
    return out


def test_list_reader_columns_and_pairs_agree_and_restore_positions() -> None:
    pairs = [("a", None), ("b", 5), ("c", None)]
    assert drain(ListReader(pairs), 2) == [(["a", "b"], [None, 5]), (["c"], [None])]
    assert ListReader(pairs).poll(9) == pairs
    plain = ListReader.of_values(["x", "y", "z"])
    assert drain(plain, 2) == [(["x", "y"], None), (["z"], None)]
    plain.restore_position(1)
    assert plain.poll(5) == [("y", None), ("z", None)] and plain.is_finished()
    with pytest.raises(IllegalArgumentException, match="position 4; it has 3 records"):
        plain.restore_position(4)
    with pytest.raises(IllegalArgumentException, match="2 values but 1 timestamps"):
        ListReader.of_values([1, 2], [7])


def test_range_reader_columns_follow_the_generator_and_position() -> None:
    r = RangeReader(range(3, 9, 2), lambda i: i * 10)
    assert drain(r, 2) == [([30, 50], None), ([70], None)]
    r.restore_position(1)
    assert r.poll(1) == [(50, None)] and r.snapshot_position() == 2
    assert DataGeneratorSource(str, 5).create_reader(1, 2).poll_values(9) == (["3", "4"], None)


class PairsOnly(SourceReader):
    """A reader with only ``poll``: the base class builds the columns."""

    def __init__(self) -> None:
        self.done = False

    def poll(self, max_records: int) -> list[tuple[object, int | None]]:
        self.done = True
        return [(1, 10), (2, None)]

    def is_finished(self) -> bool:
        return self.done


def test_default_poll_values_splits_pairs_and_drops_all_none_timestamps() -> None:
    assert PairsOnly().poll_values(5) == ([1, 2], [10, None])
    assert ListReader([(1, None)]).poll_values(1) == ([1], None)


@pytest.mark.parametrize("characteristic", ["EventTime", "ProcessingTime"])
def test_stream_source_emits_batches_and_drops_timestamps_in_processing_time(
    characteristic: str,
) -> None:
    class Stamped(CollectionSource):
        def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
            return ListReader.of_values(self.elements, [100 + i for i in range(len(self.elements))])

    op = StreamSource(Stamped(["a", "b", "c"]))
    out = CollectingOutput()
    config = StreamConfig(operator_name="Source", time_characteristic=characteristic)
    op.setup(TaskEnvironment(subtask_index=0, parallelism=1, max_parallelism=128), config, out)
    op.initialize_state(None)
    op.open()
    assert op.emit_next(2) is InputStatus.MORE_AVAILABLE
    assert op.emit_next(2) is InputStatus.END_OF_INPUT
    stamps = [100, 101, 102] if characteristic == "EventTime" else [None] * 3
    assert out.records == list(zip(["a", "b", "c"], stamps, strict=True))
    assert op.records_emitted == 3 and out.watermarks == [(1 << 63) - 1]
