"""Keyed state per key group, snapshots across a rescale, timers, the watermark valve."""

from __future__ import annotations

import json

import pytest

from pyflowkit.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    ValueStateDescriptor,
)
from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.state import (
    HeapKeyedStateBackend,
    InternalTimeServiceManager,
    OperatorSnapshot,
    StatusWatermarkValve,
    assign_snapshot,
)
from pyflowkit.state.key_groups import (
    assign_to_key_group,
    compute_key_group_range_for_operator_index,
)
from pyflowkit.state.time import LONG_MIN_VALUE

MAXP = 128


def backend(parallelism: int = 1, index: int = 0) -> HeapKeyedStateBackend:
    return HeapKeyedStateBackend(
        MAXP, compute_key_group_range_for_operator_index(MAXP, parallelism, index)
    )


class Avg:
    def create_accumulator(self):
        return [0, 0]

    def add(self, value, acc):
        return [acc[0] + value, acc[1] + 1]

    def get_result(self, acc):
        return acc[0] / acc[1]

    def merge(self, a, b):
        return [a[0] + b[0], a[1] + b[1]]


def test_every_state_kind_is_per_key() -> None:
    b = backend()
    v = b.get_partitioned_state(ValueStateDescriptor("v"))
    li = b.get_partitioned_state(ListStateDescriptor("l"))
    m = b.get_partitioned_state(MapStateDescriptor("m"))
    r = b.get_partitioned_state(ReducingStateDescriptor("r", lambda a, c: a + c))
    a = b.get_partitioned_state(AggregatingStateDescriptor("a", Avg()))
    for key, n in (("x", 1), ("y", 10), ("x", 3)):
        b.set_current_key(key)
        v.update(n)
        li.add(n)
        m.put(n, str(n))
        r.add(n)
        a.add(n)
    b.set_current_key("x")
    assert v.value() == 3
    assert li.get() == [1, 3]
    assert sorted(m.items()) == [(1, "1"), (3, "3")] and m.contains(3) and not m.contains(10)
    assert r.get() == 4
    assert a.get() == 2.0
    b.set_current_key("y")
    assert (v.value(), li.get(), m.keys(), r.get(), a.get()) == (10, [10], [10], 10, 10.0)
    b.set_current_key("z")
    assert (v.value(), li.get(), m.is_empty(), r.get(), a.get()) == (None, [], True, None, None)
    b.set_current_key("x")
    m.remove(1)
    li.update([7, 8])
    v.clear()
    assert (m.keys(), li.get(), v.value()) == ([3], [7, 8], None)


def test_state_kind_mismatch_is_rejected() -> None:
    b = backend()
    b.get_partitioned_state(ValueStateDescriptor("s"))
    with pytest.raises(IllegalStateException, match="registered as value state"):
        b.get_partitioned_state(ListStateDescriptor("s"))


def test_key_outside_the_subtask_range_is_rejected() -> None:
    b = backend(parallelism=2, index=0)
    foreign = next(k for k in (f"k{i}" for i in range(100)) if assign_to_key_group(k, MAXP) >= 64)
    with pytest.raises(IllegalArgumentException, match="is not in KeyGroupRange"):
        b.set_current_key(foreign)


def test_snapshot_by_key_group_restores_across_rescale_2_to_3() -> None:
    keys = [f"user-{i}" for i in range(60)]
    desc = ValueStateDescriptor("count")
    old = []
    for index in range(2):
        b = backend(2, index)
        st = b.get_partitioned_state(desc)
        for i, k in enumerate(keys):
            if assign_to_key_group(k, MAXP) in b.key_group_range:
                b.set_current_key(k)
                st.update(i)
        old.append(OperatorSnapshot(keyed_state=b.snapshot()))
    # through JSON, as a savepoint would store it
    old = [OperatorSnapshot.from_dict(json.loads(json.dumps(s.to_dict()))) for s in old]
    seen = {}
    for index in range(3):
        kgr = compute_key_group_range_for_operator_index(MAXP, 3, index)
        snap = assign_snapshot(old, index, 3, kgr)
        assert all(kg in kgr for kg in snap.keyed_state)
        b = backend(3, index)
        b.restore(snap.keyed_state)
        for k, val in b.dump()["count"].items():
            assert assign_to_key_group(k, MAXP) in kgr
            seen[k] = val
    assert seen == {k: i for i, k in enumerate(keys)}


def test_operator_list_state_split_on_rescale() -> None:
    snaps = [
        OperatorSnapshot(operator_state={"pos": {"mode": "SPLIT_DISTRIBUTE", "entries": [1, 2]}}),
        OperatorSnapshot(operator_state={"pos": {"mode": "SPLIT_DISTRIBUTE", "entries": [3]}}),
    ]
    kgr = compute_key_group_range_for_operator_index(MAXP, 3, 0)
    parts = [assign_snapshot(snaps, i, 3, kgr).operator_state["pos"]["entries"] for i in range(3)]
    assert parts == [[1], [2], [3]]
    same = [assign_snapshot(snaps, i, 2, kgr).operator_state["pos"]["entries"] for i in range(2)]
    assert same == [[1, 2], [3]]


class Recorder:
    def __init__(self, backend: HeapKeyedStateBackend) -> None:
        self.backend = backend
        self.fired: list[tuple[str, int, object]] = []

    def on_event_time(self, timer) -> None:
        assert self.backend.current_key == timer.key
        self.fired.append(("event", timer.timestamp, timer.key))

    def on_processing_time(self, timer) -> None:
        self.fired.append(("proc", timer.timestamp, timer.key))


def test_event_timers_fire_in_order_deduplicated_and_deletable() -> None:
    b = backend()
    clock = ManualProcessingTimeService()
    mgr = InternalTimeServiceManager(b, clock, MAXP)
    rec = Recorder(b)
    svc = mgr.get_internal_timer_service("user-timers", rec)
    for key, ts in (("a", 30), ("b", 10), ("a", 30), ("c", 20), ("b", 40)):
        b.set_current_key(key)
        svc.register_event_time_timer(None, ts)
    b.set_current_key("c")
    svc.delete_event_time_timer(None, 20)
    assert svc.num_event_time_timers() == 3
    mgr.advance_watermark(30)
    assert rec.fired == [("event", 10, "b"), ("event", 30, "a")]
    assert mgr.current_watermark == 30
    mgr.advance_watermark(100)
    assert rec.fired[-1] == ("event", 40, "b")


def test_processing_timers_use_the_host_clock_and_survive_snapshot() -> None:
    b = backend()
    clock = ManualProcessingTimeService()
    mgr = InternalTimeServiceManager(b, clock, MAXP)
    rec = Recorder(b)
    svc = mgr.get_internal_timer_service("t", rec)
    b.set_current_key("k")
    svc.register_processing_time_timer(None, 50)
    svc.register_processing_time_timer(None, 20)
    assert clock.next_timer_time() == 20
    clock.set_current_time(25)
    assert rec.fired == [("proc", 20, "k")]
    snap = mgr.snapshot()
    assert list(snap.values()) == [[["t", "processing", 50, "k", None]]]
    b2 = backend()
    clock2 = ManualProcessingTimeService(30)
    mgr2 = InternalTimeServiceManager(b2, clock2, MAXP)
    mgr2.restore(json.loads(json.dumps({str(k): v for k, v in snap.items()})), b2.key_group_range)
    rec2 = Recorder(b2)
    mgr2.get_internal_timer_service("t", rec2)
    clock2.set_current_time(60)
    assert rec2.fired == [("proc", 50, "k")]


def test_watermark_valve_min_over_channels_never_decreasing() -> None:
    valve = StatusWatermarkValve(3)
    assert valve.input_watermark(5, 0) is None
    assert valve.input_watermark(7, 1) is None
    assert valve.input_watermark(6, 2) == 5
    assert valve.input_watermark(4, 0) is None  # decreasing on a channel: ignored
    assert valve.input_watermark(9, 0) == 6
    assert valve.input_stream_status(True, 2) == 7  # idle channel leaves the minimum
    assert valve.last_output_watermark == 7
    with pytest.raises(IllegalArgumentException, match="out of range"):
        valve.input_watermark(1, 3)
    assert StatusWatermarkValve(1).last_output_watermark == LONG_MIN_VALUE
