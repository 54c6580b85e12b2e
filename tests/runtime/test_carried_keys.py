"""A record crossing a HASH edge carries the key its partitioner selected (PyFlink's ``key_by``
ships ``Row(key, value)``): the consumer's key context takes it, the key selector runs once per
record, and results are those of selecting it again."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Duration, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner
from pyflowkit.graph.routing import ChannelSelector
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.network import Buffer, ResultPartition, Watermark
from pyflowkit.runtime.record_writer import RecordWriter
from tests.runtime.test_pipelines import CountPerKey, Ts, env_p

WORDS = "to be or not to be that is the question whether tis nobler in the mind".split() * 7


class CountingKey:
    """A key selector that counts its calls per key."""

    def __init__(self) -> None:
        self.calls: Counter[Any] = Counter()

    def __call__(self, value: Any) -> Any:
        self.calls[value[0]] += 1
        return value[0]


def run(env: StreamExecutionEnvironment, fast: bool) -> Any:
    job = MiniCluster(task_managers=1, slots_per_task_manager=2, echo_print=False).submit(env)
    if fast:
        job.run()
    else:
        while job.has_next():
            job.step()
    assert job.job_status is JobStatus.FINISHED, job.failure_traceback
    return job


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "step"])
def test_reduce_selects_each_key_once_with_the_same_results(fast: bool) -> None:
    key = CountingKey()
    out: list[Any] = []
    env = env_p(2)
    (
        env.from_collection(WORDS)
        .map(lambda w: (w, 1))
        .key_by(key)
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .add_sink(out.append)
    )
    run(env, fast)
    assert key.calls == Counter(WORDS)  # once per record (Flink's Java key_by: twice)
    assert len(out) == len(WORDS)
    final = {}
    for word, count in out:
        assert count == final.get(word, 0) + 1  # each key's running count, in order
        final[word] = count
    assert final == dict(Counter(WORDS))


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "step"])
def test_keyed_process_function_sees_the_carried_key_and_its_state(fast: bool) -> None:
    key = CountingKey()
    out: list[Any] = []
    env = env_p(2)
    env.from_collection(WORDS).map(lambda w: (w, 1)).key_by(key).process(CountPerKey()).add_sink(
        out.append
    )
    run(env, fast)
    assert key.calls == Counter(WORDS)
    assert sorted(out) == sorted((w, i) for w, n in Counter(WORDS).items() for i in range(1, n + 1))


def test_keys_stay_with_their_records_across_watermarks() -> None:
    """Event time: buffers hold watermarks between records; each record keeps its own key."""
    key = CountingKey()
    out: list[Any] = []
    env = env_p(2)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(Ts())
    (
        env.from_collection([(w, i) for i, w in enumerate(WORDS)])
        .assign_timestamps_and_watermarks(strategy)
        .key_by(key)
        .process(CountPerKey())
        .add_sink(out.append)
    )
    run(env, fast=False)
    assert key.calls == Counter(WORDS)
    assert Counter(w for w, _ in out) == Counter(WORDS)
    assert max(c for w, c in out if w == "to") == WORDS.count("to")


def test_route_with_keys_agrees_with_route() -> None:
    values = [(w, i) for i, w in enumerate(WORDS)] + [([1, 2], 0), (3, 1), (True, 2), (1.0, 3)]
    stamps = list(range(len(values)))

    def first(v: Any) -> Any:
        return v[0]

    for ts in (None, stamps):
        sel = ChannelSelector(KeyGroupStreamPartitioner(first), 3, 128)
        ref = ChannelSelector(KeyGroupStreamPartitioner(first), 3, 128).route(values, ts)
        routed = sel.route_with_keys(values, ts)
        assert [(v, t) for v, t, _ in routed] == ref
        assert [k for _, _, k in routed] == [[first(v) for v in vs] for vs, _ in ref]
        for v in values:
            assert sel.select_channel_and_key(v) == (sel.select_channel(v), first(v))


def test_route_with_keys_int_keys_stay_apart_from_equal_keys_of_other_types() -> None:
    """Exact int keys are looked up without a per-key call; a key equal to an int but of
    another type (True, 1.0) still gets its own Java hash's channel, in either order."""

    def first(v: Any) -> Any:
        return v[0]

    ints = [(i % 40, i) for i in range(200)]
    others = [(True, 0), (1.0, 1), (False, 2), (0.0, 3), ("1", 4)]
    for ts_of in (lambda vs: None, lambda vs: list(range(len(vs)))):
        sel = ChannelSelector(KeyGroupStreamPartitioner(first), 4, 128)
        fresh = ChannelSelector(KeyGroupStreamPartitioner(first), 4, 128)
        for batch in (others, ints, others, ints[:50] + others):
            routed = sel.route_with_keys(batch, ts_of(batch))
            channels = {id(v): ch for ch, (vs, _, _) in enumerate(routed) for v in vs}
            assert [channels[id(v)] for v in batch] == [fresh.select_channel(v) for v in batch]
            assert [k for _, _, ks in routed for k in ks] == [
                first(v) for vs, _, _ in routed for v in vs
            ]
    assert fresh.select_channel((0, 0)) != fresh.select_channel((False, 0))  # the case is live


class Sizing:
    capacity = 4


def test_record_writer_buffers_carry_keys_aligned_with_records() -> None:
    def first(v: Any) -> Any:
        return v[0]

    part = ResultPartition(("ds", 0, "attempt"), 2, 1000)
    w = RecordWriter(part, KeyGroupStreamPartitioner(first), 128, random.Random(0), Sizing())
    w.emit(("a", 1), None)
    w.broadcast_emit(Watermark(5))
    w.emit_batch([("a", 2), ("b", 3), ("a", 4)], None)
    w.flush_all()
    for sp in part.subpartitions:
        for buf in sp.queue:
            records = [el[0] for el in buf.elements if type(el) is tuple]
            assert buf.keys == [first(v) for v in records]
    # a record appended without its key: the buffer carries no keys (the consumer selects them)
    b = Buffer.of_records([("a", 1)], keys=["a"])
    b.append((("b", 2), None))
    assert b.keys is None
    b = Buffer.of_records([("a", 1)], keys=["a"])
    b.extend_records([("b", 2)], None, None)
    assert b.keys is None


@pytest.mark.parametrize("process", [False, True], ids=["reduce", "process"])
def test_the_reference_driver_selects_each_key_once(process: bool) -> None:
    from pyflowkit.reference.local_driver import run_local

    key = CountingKey()
    out: list[Any] = []
    env = env_p(2)
    keyed = env.from_collection(WORDS).map(lambda w: (w, 1)).key_by(key)
    if process:
        keyed.process(CountPerKey()).add_sink(out.append)
    else:
        keyed.reduce(lambda a, b: (a[0], a[1] + b[1])).add_sink(out.append)
    run_local(env)
    assert key.calls == Counter(WORDS)  # routed once; the consumer took the carried key
    if process:
        expected = [(w, i) for w, n in Counter(WORDS).items() for i in range(1, n + 1)]
    else:
        seen: Counter[str] = Counter()
        expected = []
        for w in WORDS:
            seen[w] += 1
            expected.append((w, seen[w]))
    assert sorted(out) == sorted(expected)


def broadcast_job(key: Any, out: list[Any], p: int) -> StreamExecutionEnvironment:
    """BATCH: keyed events connected to broadcast rules; the keyed side waits for the rules
    (the broadcast side is read to its end first) and then counts per key in keyed state."""
    from pyflowkit.common import Types
    from pyflowkit.datastream import RuntimeExecutionMode
    from pyflowkit.datastream.functions import KeyedBroadcastProcessFunction
    from pyflowkit.datastream.state import MapStateDescriptor, ValueStateDescriptor

    rules = MapStateDescriptor("rules", Types.STRING(), Types.INT())

    class CountWithRule(KeyedBroadcastProcessFunction):
        def open(self, ctx: Any) -> None:
            self.n = ctx.get_state(ValueStateDescriptor("n", Types.INT()))

        def process_element(self, value: Any, ctx: Any) -> Any:
            n = (self.n.value() or 0) + 1
            self.n.update(n)
            yield (ctx.get_current_key(), n, ctx.get_broadcast_state(rules).get("limit"))

        def process_broadcast_element(self, value: Any, ctx: Any) -> None:
            ctx.get_broadcast_state(rules).put(value[0], value[1])

    env = env_p(p)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    events = env.from_collection(WORDS).map(lambda w: (w, 1))  # created first: read first
    broadcast = env.from_collection([("limit", 3)]).broadcast(rules)
    events.key_by(key).connect(broadcast).process(CountWithRule()).add_sink(out.append)
    return env


def broadcast_expected() -> list[Any]:
    return sorted((w, i, 3) for w, n in Counter(WORDS).items() for i in range(1, n + 1))


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("host", ["reference", "fast", "step"])
def test_a_keyed_batch_held_for_the_broadcast_side_keeps_its_carried_keys(
    host: str, p: int
) -> None:
    """The broadcast-first rule holds the keyed side's records until the rules have ended; what
    was held keeps the keys its HASH edge selected (the selector runs once per record)."""
    key = CountingKey()
    out: list[Any] = []
    env = broadcast_job(key, out, p)
    if host == "reference":
        from pyflowkit.reference.local_driver import run_local

        run_local(env)
    else:
        run(env, host == "fast")
    assert sorted(out) == broadcast_expected()  # every event saw the rule and its key's state
    assert key.calls == Counter(WORDS)  # once per record
