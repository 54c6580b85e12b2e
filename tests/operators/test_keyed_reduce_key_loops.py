"""Keyed reduce picks its batch loop by the last key's type; every loop keeps Java's key groups."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.java_semantics import plain_key
from pyflowkit.operators.batch_grouped_reduce import BatchGroupedReduceOperator
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.grouped_reduce import StreamGroupedReduce
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.state.key_groups import assign_to_key_group

pytestmark = pytest.mark.flink_version("1.11")  # Java keyBy's key groups: murmur(key.hashCode())


class Name(str):
    """A str subclass: equal to its str, and Java hashes it as that String."""


def first(t: tuple) -> Any:
    return t[0]


def add(a: tuple, b: tuple) -> tuple:
    return (a[0], a[1] + b[1])


def opened(op: Any) -> tuple[Any, CollectingOutput]:
    out = CollectingOutput()
    env = TaskEnvironment(subtask_index=0, parallelism=1, max_parallelism=128)
    op.setup(env, StreamConfig(operator_name="Keyed Reduce", key_selector=first), out)
    op.initialize_state(None)
    op.open()
    return op, out


def per_record(data: list[tuple]) -> tuple[Any, CollectingOutput]:
    op, out = opened(StreamGroupedReduce(add))
    for v in data:
        op.set_key_context_element1(v)
        op.process_element(v, None)
    return op, out


STR_BATCH = [("a", 1), ("b", 2), ("a", 3)]
MIXED = [(1, 10), (True, 20), (1.0, 30), ("1", 40), (Name("a"), 50), ((1, "a"), 60), (1, 70)]


def test_the_str_loop_sends_other_key_types_through_the_checked_path() -> None:
    op, out = opened(StreamGroupedReduce(add))
    op.process_batch(STR_BATCH, None)
    assert op._str_keys  # the next batch takes the str loop
    op.process_batch(MIXED, None)
    ref, ref_out = per_record(STR_BATCH + MIXED)
    assert out.values == ref_out.values
    assert out.values[3:] == [
        (1, 10), (True, 20), (1.0, 30), ("1", 40), ("a", 54), ((1, "a"), 60), (1, 80),
    ]  # fmt: skip
    assert op.snapshot_state(1, 0).keyed_state == ref.snapshot_state(1, 0).keyed_state
    for kg, _ns, key, _value in op.keyed_state_backend.tables["_op_state"].entries():
        assert kg == assign_to_key_group(plain_key(key), 128), key  # TypedKey: True, 1.0
    # the caches hold exact str / int keys only, so True and 1.0 never find 1's map
    assert all(type(k) is str for k in op._str_kgs)
    assert all(type(k) is int for k in op._int_kgs)
    assert not op._str_keys and op.keyed_state_backend.current_key == 1


def test_str_and_checked_loops_agree_on_every_batch_split() -> None:
    data = STR_BATCH + MIXED + STR_BATCH + [(True, 1), ("b", 1)]
    _, ref_out = per_record(data)
    for cut in range(1, len(data)):
        op, out = opened(StreamGroupedReduce(add))
        op.process_batch(data[:cut], None)
        op.process_batch(data[cut:], list(range(len(data) - cut)))
        assert out.values == ref_out.values, cut
        assert [ts for _, ts in out.records[cut:]] == list(range(len(data) - cut))


def test_batch_mode_reduce_registers_one_timer_per_new_key_after_a_str_batch() -> None:
    # (keys Python finds equal — 1, True, 1.0 — share one timer in the timer service: left out)
    op, out = opened(BatchGroupedReduceOperator(add))
    op.process_batch(STR_BATCH, None)
    op.process_batch([(1, 10), ("1", 40), (Name("a"), 50), ((1, "a"), 60), (1, 70)], None)
    assert out.values == [] and op._timer_service.num_event_time_timers() == 5
    op.process_watermark((1 << 63) - 1)
    got = sorted(out.values, key=repr)
    assert got == sorted([("a", 54), ("b", 2), (1, 80), ("1", 40), ((1, "a"), 60)], key=repr)


def test_the_str_loop_writes_the_live_maps_after_each_snapshot() -> None:
    """The str loop keeps each key's state map; a snapshot may hand the operator new maps
    (copy-on-write): later writes reach the live state and never the snapshot taken."""
    op, out = opened(StreamGroupedReduce(add))
    batches = [STR_BATCH, [("b", 5), ("a", 1), ("c", 7)], [("c", 1), ("a", 2)]]
    snapshots = []
    for i, batch in enumerate(batches):
        op.process_batch(batch, None)
        snapshots.append(op.snapshot_state(i + 1, 0).keyed_state)
        assert op._str_keys and set(op._str_key_maps) <= {"a", "b", "c"}
    ref, ref_out = per_record([v for batch in batches for v in batch])
    assert out.values == ref_out.values
    assert out.values[-2:] == [("c", 8), ("a", 7)]
    assert op.snapshot_state(9, 0).keyed_state == ref.snapshot_state(9, 0).keyed_state
    for i in range(len(batches)):  # each snapshot still holds what was there when taken
        cut, _ = per_record([v for batch in batches[: i + 1] for v in batch])
        assert snapshots[i] == cut.snapshot_state(1, 0).keyed_state, i


def test_a_list_key_after_a_str_batch_is_keyed_by_its_pickle() -> None:
    """PyFlink keys an undeclared list key by its pickled bytes; the str loop (chosen after a
    batch of str keys) sends it through the checked path instead of failing on its hash."""
    op, out = opened(StreamGroupedReduce(add))
    op.process_batch(STR_BATCH, None)
    assert op._str_keys
    op.process_batch([([1, 2], 1), ("a", 1), ([1, 2], 5)], None)
    assert out.values[3:] == [([1, 2], 1), ("a", 5), ([1, 2], 6)]
    ref, ref_out = per_record(STR_BATCH + [([1, 2], 1), ("a", 1), ([1, 2], 5)])
    assert out.values == ref_out.values
    assert op.snapshot_state(1, 0).keyed_state == ref.snapshot_state(1, 0).keyed_state
