"""Every non-window operator against plain-Python expectations."""

from __future__ import annotations

import pytest

from pyflowkit.common import Row
from pyflowkit.datastream.functions import (
    CheckpointListener,
    KeyedProcessFunction,
    MapFunction,
    ProcessFunction,
    RuntimeContext,
    TimeDomain,
)
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.datastream.state import ListStateDescriptor, ValueStateDescriptor
from pyflowkit.errors import UnsupportedOperationException
from pyflowkit.graph.transformations import OperatorFactory
from pyflowkit.operators.co_operators import CoStreamMap, KeyedCoProcessOperator
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.grouped_reduce import StreamGroupedReduce
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.print_format import format_value, java_double_to_string, print_prefix
from pyflowkit.operators.process import KeyedProcessOperator, ProcessOperator
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.simple import StreamFilter, StreamFlatMap, StreamMap
from pyflowkit.operators.sinks import StreamSink
from pyflowkit.operators.timestamps_watermarks import TimestampsAndWatermarksOperator
from pyflowkit.state.time import MAX_WATERMARK


def harness(op, key=None, key2=None, env=None, **config):
    """Set up, initialise and open ``op`` like a chain would; returns (op, output)."""
    out = CollectingOutput()
    env = env or TaskEnvironment(processing_time_service=ManualProcessingTimeService())
    cfg = StreamConfig(
        operator_name=type(op).__name__, key_selector=key, key_selector1=None, **config
    )
    if key2 is not None:
        cfg.key_selector, cfg.key_selector1, cfg.key_selector2 = None, key, key2
    op.setup(env, cfg, out)
    op.initialize_state(None)
    op.open()
    return op, out


def feed(op, values, ts=None, which=None):
    for i, v in enumerate(values):
        t = None if ts is None else ts[i]
        if which == 2:
            if op.config.key_selector2:
                op.set_key_context_element2(v)
            op.process_element2(v, t)
        elif which == 1:
            if op.config.key_selector1:
                op.set_key_context_element1(v)
            op.process_element1(v, t)
        else:
            if op.config.is_keyed:
                op.set_key_context_element1(v)
            op.process_element(v, t)


def test_map_flat_map_filter_keep_timestamps_and_batches_equal_single() -> None:
    op, out = harness(StreamMap(lambda x: x * 2))
    feed(op, [1, 2, 3], [10, 20, 30])
    assert out.records == [(2, 10), (4, 20), (6, 30)]
    op, out = harness(StreamFlatMap(lambda s: (w for w in s.split())))
    op.process_batch(["a b", "", "c"], [1, 2, 3])
    assert out.records == [("a", 1), ("b", 1), ("c", 3)]
    op, out = harness(StreamFilter(lambda x: x % 2 == 0))
    op.process_batch([1, 2, 3, 4], None)
    feed(op, [6])
    assert out.values == [2, 4, 6]


def test_map_function_class_open_sees_runtime_context() -> None:
    class Tag(MapFunction):
        def open(self, runtime_context: RuntimeContext) -> None:
            self.tag = (
                runtime_context.get_index_of_this_subtask(),
                runtime_context.get_number_of_parallel_subtasks(),
                runtime_context.get_task_name(),
            )

        def map(self, value):
            return (self.tag, value)

    env = TaskEnvironment(task_name="Map", subtask_index=1, parallelism=3)
    op, out = harness(StreamMap(Tag()), env=env)
    feed(op, ["x"])
    assert out.values == [((1, 3, "Map"), "x")]


def test_bad_function_names_the_operator() -> None:
    with pytest.raises(TypeError, match="Operator 'Map' needs a MapFunction"):
        StreamMap(42)


def test_keyed_reduce_emits_every_update() -> None:
    op, out = harness(StreamGroupedReduce(lambda a, b: (a[0], a[1] + b[1])), key=lambda t: t[0])
    data = [("a", 1), ("b", 2), ("a", 3), ("a", 4), ("b", 5)]
    op.process_batch(data, None)
    assert out.values == [("a", 1), ("b", 2), ("a", 4), ("a", 8), ("b", 7)]
    feed(op, [("b", 1)])
    assert out.values[-1] == ("b", 8)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("sum", [("a", 5, "x"), ("a", 8, "x"), ("a", 9, "x")]),
        ("min", [("a", 5, "x"), ("a", 3, "x"), ("a", 1, "x")]),
        ("max", [("a", 5, "x"), ("a", 5, "x"), ("a", 5, "x")]),
        ("min_by", [("a", 5, "x"), ("a", 3, "y"), ("a", 1, "z")]),
        ("max_by", [("a", 5, "x"), ("a", 5, "x"), ("a", 5, "x")]),
    ],
)
def test_keyed_aggregation_semantics(kind, expected) -> None:
    factory = OperatorFactory(
        "StreamGroupedReduce", params={"aggregation": {"kind": kind, "field": 1}}
    )
    op, out = harness(factory.create(), key=lambda t: t[0])
    feed(op, [("a", 5, "x"), ("a", 3, "y"), ("a", 1, "z")])
    assert out.values == expected


def test_keyed_aggregation_on_row_fields_keeps_first_row_fields() -> None:
    factory = OperatorFactory(
        "StreamGroupedReduce", params={"aggregation": {"kind": "sum", "field": "n"}}
    )
    op, out = harness(factory.create(), key=lambda r: r["k"])
    rows = [Row(k="a", n=1, tag="first"), Row(k="a", n=2, tag="second")]
    feed(op, rows)
    assert [(r["k"], r["n"], r["tag"]) for r in out.values] == [
        ("a", 1, "first"),
        ("a", 3, "first"),
    ]
    assert rows[0]["n"] == 1  # inputs are not mutated


def test_process_function_side_outputs_and_timestamp() -> None:
    late = OutputTag("small")

    class Split(ProcessFunction):
        def process_element(self, value, ctx):
            if value < 10:
                yield late, (value, ctx.timestamp())
            else:
                yield value

    op, out = harness(ProcessOperator(Split()))
    feed(op, [5, 50, 7], [1, 2, 3])
    assert out.records == [(50, 2)]
    assert out.side_values(late) == [(5, 1), (7, 3)]


def test_non_keyed_process_cannot_set_timers() -> None:
    class Bad(ProcessFunction):
        def process_element(self, value, ctx):
            ctx.timer_service().register_event_time_timer(5)
            yield value

    op, _ = harness(ProcessOperator(Bad()))
    with pytest.raises(UnsupportedOperationException, match="only supported on a keyed streams"):
        feed(op, [1])


class CountWithTimeout(KeyedProcessFunction):
    """Counts per key; emits (key, count, domain) when its event/processing timer fires."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))
        self.seen = runtime_context.get_list_state(ListStateDescriptor("seen"))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        self.seen.add(value[1])
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 100)
        ctx.timer_service().register_processing_time_timer(1000)
        return None

    def on_timer(self, timestamp, ctx):
        yield (
            ctx.get_current_key(),
            self.count.value(),
            list(self.seen.get()),
            timestamp,
            ctx.time_domain(),
        )


def test_keyed_process_state_and_timers() -> None:
    clock = ManualProcessingTimeService()
    op, out = harness(
        KeyedProcessOperator(CountWithTimeout()),
        key=lambda t: t[0],
        env=TaskEnvironment(processing_time_service=clock),
    )
    feed(op, [("a", 1), ("b", 2), ("a", 3)], [10, 20, 30])
    op.process_watermark(115)
    assert out.events == [
        ("record", ("a", 2, [1, 3], 110, TimeDomain.EVENT_TIME), 110),
        ("watermark", 115, None),
    ]
    op.process_watermark(200)
    assert out.values[-2:] == [
        ("b", 1, [2], 120, TimeDomain.EVENT_TIME),
        ("a", 2, [1, 3], 130, TimeDomain.EVENT_TIME),
    ]
    assert out.watermarks == [115, 200]  # timers fire BEFORE the watermark is forwarded
    assert out.events[-2][0] == "record" and out.events[-1] == ("watermark", 200, None)
    clock.set_current_time(1000)
    assert out.records[-2:] == [
        (("a", 2, [1, 3], 1000, TimeDomain.PROCESSING_TIME), None),
        (("b", 1, [2], 1000, TimeDomain.PROCESSING_TIME), None),
    ]
    snap = op.snapshot_state(1, 0)
    states = {name for per_kg in snap.keyed_state.values() for name in per_kg}
    assert states == {"count", "seen"}


def test_keyed_process_restores_state_and_timers() -> None:
    op, _ = harness(KeyedProcessOperator(CountWithTimeout()), key=lambda t: t[0])
    feed(op, [("a", 1)], [10])
    snap = op.snapshot_state(1, 0)
    op2 = KeyedProcessOperator(CountWithTimeout())
    out = CollectingOutput()
    op2.setup(TaskEnvironment(), StreamConfig(key_selector=lambda t: t[0]), out)
    op2.initialize_state(snap)
    op2.open()
    op2.process_watermark(200)
    assert out.values == [("a", 1, [1], 110, TimeDomain.EVENT_TIME)]


def test_co_map_and_two_input_watermark_is_min() -> None:
    op, out = harness(CoStreamMap(type("F", (), {"map1": lambda s, x: x + 1, "map2": str})()))
    feed(op, [1], [5], which=1)
    feed(op, [2], [6], which=2)
    op.process_watermark1(10)
    op.process_watermark2(7)
    op.process_watermark2(12)
    assert out.records == [(2, 5), ("2", 6)]
    assert out.watermarks == [7, 10]


def test_keyed_co_process_shares_state_by_key() -> None:
    class Join:
        def open(self, ctx):
            self.left = ctx.get_state(ValueStateDescriptor("left"))

        def process_element1(self, value, ctx):
            self.left.update(value[1])
            return None

        def process_element2(self, value, ctx):
            yield (ctx.get_current_key(), self.left.value(), value[1])

    op, out = harness(KeyedCoProcessOperator(Join()), key=lambda t: t[0], key2=lambda t: t[0])
    feed(op, [("a", 1), ("b", 2)], which=1)
    feed(op, [("b", "x"), ("a", "y"), ("c", "z")], which=2)
    assert out.values == [("b", 2, "x"), ("a", 1, "y"), ("c", None, "z")]


def test_timestamps_and_watermarks_periodic_and_end() -> None:
    from pyflowkit.common import Duration, WatermarkStrategy

    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(5)
    ).with_timestamp_assigner(lambda v, ts: v)
    clock = ManualProcessingTimeService()
    op, out = harness(
        TimestampsAndWatermarksOperator(strategy),
        env=TaskEnvironment(processing_time_service=clock),
        auto_watermark_interval=200,
    )
    feed(op, [100, 90, 120])
    assert out.records == [(100, 100), (90, 90), (120, 120)]
    clock.set_current_time(200)
    assert out.watermarks == [114]  # max 120 - 5 - 1
    op.process_watermark(50)  # upstream watermarks are ignored ...
    op.process_watermark(MAX_WATERMARK)  # ... except the end of event time
    clock.set_current_time(400)
    assert out.watermarks == [114, MAX_WATERMARK]


class Listener(CheckpointListener):
    def __init__(self) -> None:
        self.done: list[int] = []
        self.got: list[object] = []

    def invoke(self, value, context):
        self.got.append((value, context.timestamp()))

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        self.done.append(checkpoint_id)


def test_user_sink_and_checkpoint_notification() -> None:
    fn = Listener()
    op, _ = harness(StreamSink(fn))
    feed(op, ["a"], [3])
    op.notify_checkpoint_complete(7)
    assert fn.got == [("a", 3)] and fn.done == [7]


def test_print_sink_format() -> None:
    lines: list[tuple[str, bool]] = []
    env = TaskEnvironment(
        subtask_index=1, parallelism=2, print_writer=lambda s, e: lines.append((s, e))
    )
    op, _ = harness(
        OperatorFactory(
            "StreamSink", params={"sink_identifier": "id", "print_to_err": True}
        ).create(),
        env=env,
    )
    feed(op, [("a", 1)])
    assert lines == [("id:2> ('a', 1)", True)]
    assert print_prefix(None, 0, 1) == "" and print_prefix(None, 2, 4) == "3> "
    assert print_prefix("x", 0, 1) == "x> "


def test_typed_values_print_like_java() -> None:
    from pyflowkit.common import Types

    tup = Types.TUPLE([Types.STRING(), Types.INT()])
    assert format_value(("a", 1), tup) == "(a,1)"
    assert format_value(("a", 1), None) == "('a', 1)"
    assert format_value(True, Types.BOOLEAN()) == "true"
    assert [java_double_to_string(x) for x in (1.0, 0.5, 1e7, 1.5e-4, 123.25)] == [
        "1.0",
        "0.5",
        "1.0E7",
        "1.5E-4",
        "123.25",
    ]


def test_registry_knows_every_operator() -> None:
    from pyflowkit.operators.registry import registered_operators

    assert {
        "StreamSource",
        "StreamMap",
        "StreamFlatMap",
        "StreamFilter",
        "ProcessOperator",
        "KeyedProcessOperator",
        "StreamGroupedReduce",
        "TimestampsAndWatermarksOperator",
        "StreamSink",
        "CoStreamMap",
        "CoStreamFlatMap",
        "CoProcessOperator",
        "KeyedCoProcessOperator",
    } <= set(registered_operators())
