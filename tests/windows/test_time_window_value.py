"""TimeWindow is an immutable value: Flink's equality, a hash computed once, copies are itself."""

from __future__ import annotations

import copy
import pickle

import pytest

from pyflowkit.datastream.window import CountWindow, TimeWindow


class CountingInt(int):
    """An int that counts how often it is hashed."""

    calls = 0

    def __hash__(self) -> int:
        CountingInt.calls += 1
        return int.__hash__(self)


def test_equal_iff_start_and_end_are_equal() -> None:
    w = TimeWindow(0, 10)
    assert w == TimeWindow(0, 10) and hash(w) == hash(TimeWindow(0, 10))
    assert w != TimeWindow(0, 11) and w != TimeWindow(1, 10)
    assert w != (0, 10) and w != CountWindow(0)
    assert len({TimeWindow(0, 10), TimeWindow(0, 10), TimeWindow(10, 20)}) == 2
    panes = {TimeWindow(0, 10): "a"}
    assert panes[TimeWindow(0, 10)] == "a"


def test_hash_is_the_hash_of_start_and_end_computed_once() -> None:
    assert hash(TimeWindow(-5, 7)) == hash((-5, 7))  # set/dict orders as before the cache
    CountingInt.calls = 0
    w = TimeWindow(CountingInt(3), CountingInt(8))
    assert CountingInt.calls == 2
    for _ in range(5):
        assert hash(w) == hash((3, 8))
    assert {w: 1}[TimeWindow(3, 8)] == 1
    assert CountingInt.calls == 2


def test_windows_cannot_be_changed() -> None:
    w = TimeWindow(0, 10)
    with pytest.raises(AttributeError, match="TimeWindow is immutable: cannot set 'start'"):
        w.start = 5  # type: ignore[misc]
    with pytest.raises(AttributeError, match="TimeWindow is immutable: cannot delete 'end'"):
        del w.end
    with pytest.raises(AttributeError, match="cannot set 'label'"):
        w.label = "x"  # type: ignore[attr-defined]
    assert not hasattr(w, "__dict__")
    assert (w.start, w.end, w.max_timestamp(), hash(w)) == (0, 10, 9, hash((0, 10)))


def test_copies_and_pickles_keep_value_and_hash() -> None:
    w = TimeWindow(100, 200)
    assert copy.copy(w) is w and copy.deepcopy([w])[0] is w
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(w, protocol))
        assert back == w and hash(back) == hash(w) and back.max_timestamp() == 199
        with pytest.raises(AttributeError):
            back.end = 0  # type: ignore[misc]


def test_cover_and_merge_build_new_windows() -> None:
    a, b = TimeWindow(0, 10), TimeWindow(5, 20)
    assert a.cover(b) == TimeWindow(0, 20) and (a.start, a.end) == (0, 10)
    merged: list[tuple[list[TimeWindow], TimeWindow]] = []

    class Callback:
        def merge(self, to_be_merged: list[TimeWindow], result: TimeWindow) -> None:
            merged.append((to_be_merged, result))

    TimeWindow.merge_windows([b, TimeWindow(30, 40), a], Callback())  # type: ignore[arg-type]
    assert merged == [([a, b], TimeWindow(0, 20))]
