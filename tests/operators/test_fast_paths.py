"""Batch fast paths (keyed reduce, sinks) give exactly what the record-at-a-time paths give."""

from __future__ import annotations

import pytest

from pyflowkit.datastream.functions import SinkFunction
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.grouped_reduce import StreamGroupedReduce
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.sinks import StreamSink
from pyflowkit.state.key_groups import (
    assign_to_key_group,
    compute_key_group_range_for_operator_index,
)


def opened(op, key=None, parallelism=1, index=0):
    out = CollectingOutput()
    env = TaskEnvironment(subtask_index=index, parallelism=parallelism, max_parallelism=128)
    op.setup(env, StreamConfig(operator_name="Keyed Reduce", key_selector=key), out)
    op.initialize_state(None)
    op.open()
    return op, out


def add(a, b):
    return (a[0], a[1] + b[1])


DATA = [("a", 1), (1, 2), ("a", 3), ((1, "x"), 4), (1, 5), (True, 6), (1.0, 7), ((1, "x"), 8)]


def by_element(data):
    op, out = opened(StreamGroupedReduce(add), key=lambda t: t[0])
    for v in data:
        op.set_key_context_element1(v)
        op.process_element(v, None)
    return op, out


def test_keyed_reduce_batch_equals_element_path_and_state() -> None:
    single, single_out = by_element(DATA)
    batched, batched_out = opened(StreamGroupedReduce(add), key=lambda t: t[0])
    batched.process_batch(DATA[:3], [1, 2, 3])
    batched.process_batch(DATA[3:], None)
    assert batched_out.values == single_out.values
    assert [ts for _, ts in batched_out.records[:3]] == [1, 2, 3]
    assert batched.snapshot_state(1, 0).keyed_state == single.snapshot_state(1, 0).keyed_state
    assert batched.keyed_state_backend.current_key == (1, "x")
    # later single records continue from the state the batch left
    batched.set_key_context_element1(("a", 10))
    batched.process_element(("a", 10), None)
    assert batched_out.values[-1] == ("a", 14)


# Java keyBy's key groups (murmur(key.hashCode())): 1.11
@pytest.mark.flink_version("1.11")
def test_keyed_reduce_keeps_python_equal_keys_apart_like_java() -> None:
    """1, True and 1.0 are different keys in Flink (Integer, Boolean, Double hash codes)."""
    _, out = by_element(DATA)
    batched, _ = opened(StreamGroupedReduce(add), key=lambda t: t[0])
    batched.process_batch(DATA, None)
    assert out.values[5:7] == [(True, 6), (1.0, 7)]  # state of key 1 is not reused
    state = batched.keyed_state_backend.tables["_op_state"]
    groups = {kg for kg, _ns, _k, _v in state.entries()}
    assert {assign_to_key_group(k, 128) for k in ("a", 1, True, 1.0, (1, "x"))} <= groups


# Java keyBy's key groups (murmur(key.hashCode())): 1.11
@pytest.mark.flink_version("1.11")
def test_keyed_reduce_batch_rejects_a_key_of_another_subtask_before_state_changes() -> None:
    kgr = compute_key_group_range_for_operator_index(128, 2, 0)
    foreign = next(f"k{i}" for i in range(1000) if assign_to_key_group(f"k{i}", 128) not in kgr)
    op, out = opened(StreamGroupedReduce(add), key=lambda t: t[0], parallelism=2, index=0)
    with pytest.raises(IllegalArgumentException, match=r"is not in KeyGroupRange\{startKeyGroup=0"):
        op.process_batch([(foreign, 1)], None)
    assert out.values == [] and op.keyed_state_backend.num_entries() == 0


def test_keyed_reduce_to_none_clears_the_key() -> None:
    def drop_on_three(a, b):
        return None if a[1] + b[1] == 3 else add(a, b)

    op, out = opened(StreamGroupedReduce(drop_on_three), key=lambda t: t[0])
    op.process_batch([("a", 1), ("a", 2), ("a", 5)], None)
    assert out.values == [("a", 1), None, ("a", 5)]
    assert op.keyed_state_backend.dump() == {"_op_state": {"a": ("a", 5)}}


class Recording(SinkFunction):
    def __init__(self) -> None:
        self.got: list[tuple[object, object]] = []

    def invoke(self, value, context):
        self.got.append((value, context.timestamp()))


def test_sink_batches_call_plain_callables_and_sink_functions_per_record() -> None:
    seen: list[object] = []
    op, _ = opened(StreamSink(seen.append))
    op.process_batch([1, 2], [5, 6])
    op.process_element(3, None)
    assert seen == [1, 2, 3]
    fn = Recording()
    op, _ = opened(StreamSink(fn))
    op.process_batch(["a", "b"], [5, 6])
    op.process_batch(["c"], None)
    op.process_element("d", 9)
    assert fn.got == [("a", 5), ("b", 6), ("c", None), ("d", 9)]


def test_map_batch_keeps_order_and_timestamps_and_a_failing_sink_stops_at_its_record() -> None:
    from pyflowkit.operators.simple import StreamMap

    op, out = opened(StreamMap(lambda x: x * 2))
    op.process_batch([1, 2, 3], [7, None, 9])
    assert out.records == [(2, 7), (4, None), (6, 9)]
    seen: list[int] = []

    def sink(v: int) -> None:
        if v == 3:
            raise ValueError("bad record 3")
        seen.append(v)

    op, _ = opened(StreamSink(sink))
    with pytest.raises(ValueError, match="bad record 3"):
        op.process_batch([1, 2, 3, 4], None)
    assert seen == [1, 2]
