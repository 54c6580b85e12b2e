"""Every API call records the right Transformation: kind, name, parallelism, chaining, params."""

from __future__ import annotations

import os

import pytest

from pyflowkit.common import Configuration, Types, WatermarkStrategy
from pyflowkit.datastream import (
    KeyedStream,
    OutputTag,
    StreamExecutionEnvironment,
    TimeCharacteristic,
)
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    LegacySourceTransformation,
    OneInputTransformation,
    PartitionTransformation,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    TwoInputTransformation,
    UnionTransformation,
)

PAIR = Types.TUPLE([Types.STRING(), Types.INT()])


def test_default_parallelism_is_cpu_count_unless_configured() -> None:
    assert StreamExecutionEnvironment.get_execution_environment().get_parallelism() == (
        os.cpu_count() or 1
    )
    conf = Configuration().set_integer("parallelism.default", 3)
    assert StreamExecutionEnvironment.get_execution_environment(conf).get_parallelism() == 3


def test_sources(env) -> None:
    coll = env.from_collection([1, 2, 3]).get_transformation()
    assert isinstance(coll, LegacySourceTransformation)
    assert (coll.name, coll.parallelism, coll.parallel) == ("Collection Source", 1, False)
    assert coll.operator_factory.operator_class == "StreamSource"
    assert coll.chaining_strategy == ChainingStrategy.HEAD
    assert coll.operator_factory.params["elements"] == [1, 2, 3]
    seq = env.generate_sequence(1, 10).get_transformation()
    assert (seq.name, seq.parallelism, seq.parallel) == ("Sequence Source", 2, True)

    class Src:
        def run(self, ctx):
            ctx.collect(1)

    custom = env.add_source(Src()).get_transformation()
    assert (custom.name, custom.parallelism) == ("Custom Source", 1)
    assert custom.operator_factory.params["function"] is not None
    fs = env.from_source(object(), WatermarkStrategy.no_watermarks(), "my src").get_transformation()
    assert isinstance(fs, SourceTransformation) and (fs.name, fs.parallelism) == ("my src", 2)
    assert env.get_transformations() == []  # sources are reached through inputs, as in Flink


def test_one_input_operators_names_and_strategies(env) -> None:
    ds = env.from_collection(["a b"])
    fm = ds.flat_map(lambda s: s.split(), output_type=Types.STRING())
    m = fm.map(lambda w: (w, 1), output_type=PAIR)
    f = m.filter(lambda t: True)
    p = f.process(lambda v, ctx: [v])
    tw = p.assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps())
    rows = [
        (t.name, t.operator_factory.operator_class, t.chaining_strategy, t.parallelism)
        for t in env.get_transformations()
    ]
    assert rows == [
        ("Flat Map", "StreamFlatMap", ChainingStrategy.ALWAYS, 2),
        ("Map", "StreamMap", ChainingStrategy.ALWAYS, 2),
        ("Filter", "StreamFilter", ChainingStrategy.ALWAYS, 2),
        ("Process", "ProcessOperator", ChainingStrategy.ALWAYS, 2),
        ("Timestamps/Watermarks", "TimestampsAndWatermarksOperator", ChainingStrategy.ALWAYS, 2),
    ]
    assert m.get_type() == PAIR and f.get_type() == PAIR
    assert str(p.get_type()) == "PickledByteArrayTypeInfo"
    assert tw.get_transformation().operator_factory.params["watermark_strategy"] is not None


def test_timestamps_watermarks_takes_the_input_parallelism(env) -> None:
    src = env.from_collection([1])
    t = src.assign_timestamps_and_watermarks(WatermarkStrategy.for_monotonous_timestamps())
    assert t.get_transformation().parallelism == 1


def test_parallelism_is_captured_at_creation(env) -> None:
    a = env.from_collection([1]).map(lambda x: x)
    env.set_parallelism(5)
    b = a.map(lambda x: x)
    assert (a.get_parallelism(), b.get_parallelism()) == (2, 5)


def test_keyed_operators(env) -> None:
    keyed = env.from_collection([("a", 1)], type_info=PAIR).key_by(
        lambda t: t[0], key_type=Types.STRING()
    )
    assert isinstance(keyed, KeyedStream)
    part = keyed.get_transformation()
    assert isinstance(part, PartitionTransformation) and str(part.partitioner) == "HASH"
    red = keyed.reduce(lambda a, b: (a[0], a[1] + b[1])).get_transformation()
    agg = keyed.sum(1).get_transformation()
    kp = keyed.process(lambda v, ctx: [v]).get_transformation()
    km = keyed.map(lambda v: v).get_transformation()
    assert (red.name, red.chaining_strategy) == ("Keyed Reduce", ChainingStrategy.HEAD)
    assert (agg.name, agg.chaining_strategy) == ("Keyed Aggregation", ChainingStrategy.HEAD)
    assert agg.operator_factory.params["aggregation"] == {
        "kind": "sum",
        "field": 1,
        "first": True,
        "field_type": "Integer",  # a Java int: the sum wraps (SumFunction.IntSum)
    }
    assert (kp.name, kp.operator_factory.operator_class) == ("KeyedProcess", "KeyedProcessOperator")
    for t in (red, agg, kp, km):
        assert isinstance(t, OneInputTransformation) and t.input is part
        assert t.state_key_selector(("k", 9)) == "k" and t.state_key_type == Types.STRING()
    for kind in ("min", "max", "min_by", "max_by"):
        t = getattr(keyed, kind)(1).get_transformation()
        assert t.operator_factory.params["aggregation"]["kind"] == kind


def test_process_function_on_keyed_stream_is_named_process_as_flink(env) -> None:
    from pyflowkit.datastream.functions import KeyedProcessFunction, ProcessFunction

    class Plain(ProcessFunction):
        def process_element(self, value, ctx):
            yield value

    class Keyed(KeyedProcessFunction):
        def process_element(self, value, ctx):
            yield value

    keyed = env.from_collection([("a", 1)], type_info=PAIR).key_by(lambda t: t[0])
    assert keyed.process(Plain()).get_transformation().name == "Process"
    assert keyed.process(Keyed()).get_transformation().name == "KeyedProcess"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda k: k.name("x"), "Set name for KeyedStream is not supported."),
        (lambda k: k.get_name(), "Get name of KeyedStream is not supported."),
        (lambda k: k.uid("u"), "Set uid for KeyedStream is not supported."),
        (lambda k: k.start_new_chain(), "Start new chain for KeyedStream is not supported."),
        (lambda k: k.disable_chaining(), "Disable chaining for KeyedStream is not supported."),
        (
            lambda k: k.slot_sharing_group("g"),
            "Setting slot sharing group for KeyedStream is not supported.",
        ),
        (
            lambda k: k.force_non_parallel(),
            "Set force non-parallel for KeyedStream is not supported.",
        ),
    ],
)
def test_keyed_stream_settings_raise_pyflinks_messages(env, call, message) -> None:
    from pyflowkit.errors import UnsupportedOperationException

    keyed = env.from_collection([("a", 1)], type_info=PAIR).key_by(lambda t: t[0])
    before = list(env.get_transformations())
    with pytest.raises(UnsupportedOperationException) as e:
        call(keyed)
    assert str(e.value).startswith(message)
    assert env.get_transformations() == before


def test_row_field_names_in_aggregations(env) -> None:
    row_type = Types.ROW_NAMED(["word", "n"], [Types.STRING(), Types.INT()])
    keyed = env.from_collection([("a", 1)], type_info=row_type).key_by(lambda r: r[0])
    t = keyed.sum("n").get_transformation()
    # Flink's FieldAccessor resolves the name against the declared RowTypeInfo: position 1.
    assert t.operator_factory.params["aggregation"]["field"] == 1
    untyped = env.from_collection([1]).key_by(lambda r: r[0]).max_by("n").get_transformation()
    assert untyped.operator_factory.params["aggregation"]["field"] == "n"


@pytest.mark.parametrize(
    ("method", "strategy"),
    [
        ("forward", "FORWARD"),
        ("rebalance", "REBALANCE"),
        ("rescale", "RESCALE"),
        ("shuffle", "SHUFFLE"),
        ("broadcast", "BROADCAST"),
        ("global_", "GLOBAL"),
    ],
)
def test_partitioners(env, method, strategy) -> None:
    src = env.from_collection([1])
    t = getattr(src, method)().get_transformation()
    assert isinstance(t, PartitionTransformation) and str(t.partitioner) == strategy
    assert t.input is src.get_transformation()


def test_partition_custom(env) -> None:
    t = (
        env.from_collection([1])
        .partition_custom(lambda k, n: k % n, lambda v: v)
        .get_transformation()
    )
    assert str(t.partitioner) == "CUSTOM"


def test_union_and_connect(env) -> None:
    a = env.from_collection([1], type_info=Types.INT())
    b = env.from_collection([2], type_info=Types.INT())
    u = a.union(b).get_transformation()
    assert isinstance(u, UnionTransformation) and u.inputs == [
        a.get_transformation(),
        b.get_transformation(),
    ]

    class CoMap:
        def map1(self, v):
            return v

        def map2(self, v):
            return v

    class CoFlat:
        def flat_map1(self, v):
            yield v

        def flat_map2(self, v):
            yield v

    class CoProc:
        def process_element1(self, v, ctx):
            yield v

        def process_element2(self, v, ctx):
            yield v

    cm = a.connect(b).map(CoMap()).get_transformation()
    cf = a.connect(b).flat_map(CoFlat()).get_transformation()
    cp = a.connect(b).process(CoProc()).get_transformation()
    ckp = a.connect(b).key_by(lambda v: v, lambda v: v).process(CoProc()).get_transformation()
    assert [(t.name, t.operator_factory.operator_class) for t in (cm, cf, cp, ckp)] == [
        ("Co-Map", "CoStreamMap"),
        ("Co-Flat Map", "CoStreamFlatMap"),
        ("Co-Process", "CoProcessOperator"),
        ("Co-Keyed-Process", "KeyedCoProcessOperator"),
    ]
    assert all(isinstance(t, TwoInputTransformation) for t in (cm, cf, cp, ckp))
    assert all(t.chaining_strategy == ChainingStrategy.HEAD for t in (cm, cf, cp, ckp))
    assert ckp.state_key_selector1(5) == 5 and cm.state_key_selector1 is None


def test_co_process_names_follow_the_function_type_as_flink(env) -> None:
    from pyflowkit.datastream.functions import CoProcessFunction, KeyedCoProcessFunction
    from pyflowkit.errors import UnsupportedOperationException

    class Plain(CoProcessFunction):
        def process_element1(self, value, ctx):
            yield value

        def process_element2(self, value, ctx):
            yield value

    class Keyed(KeyedCoProcessFunction):
        def process_element1(self, value, ctx):
            yield value

        def process_element2(self, value, ctx):
            yield value

    a, b = env.from_collection([1]), env.from_collection([2])
    keyed = a.connect(b).key_by(lambda v: v, lambda v: v)
    legacy = keyed.process(Plain()).get_transformation()
    assert (legacy.name, legacy.operator_factory.operator_class) == (
        "Co-Process",
        "KeyedCoProcessOperator",
    )
    assert keyed.process(Keyed()).get_transformation().name == "Co-Keyed-Process"
    before = list(env.get_transformations())
    with pytest.raises(UnsupportedOperationException) as e:
        a.connect(b).process(Keyed())
    assert str(e.value).startswith(
        "KeyedCoProcessFunction can only be used when both input streams are of type KeyedStream."
    )
    assert env.get_transformations() == before


def test_side_outputs(env) -> None:
    tag = OutputTag("late", Types.STRING())
    main = env.from_collection([1]).process(lambda v, ctx: [v])
    side = main.get_side_output(tag)
    t = side.get_transformation()
    assert isinstance(t, SideOutputTransformation) and t.output_tag == tag
    assert side.get_type() == Types.STRING()


def test_sinks(env) -> None:
    src = env.from_collection([1])
    p = src.print("id").get_transformation()
    assert isinstance(p, SinkTransformation)
    assert (p.name, p.parallelism, p.chaining_strategy) == (
        "Print to Std. Out",
        2,
        ChainingStrategy.ALWAYS,
    )
    assert p.operator_factory.params == {"sink_identifier": "id", "print_to_err": False}

    class Sink:
        def invoke(self, value, context):
            pass

    s = src.add_sink(Sink()).get_transformation()
    assert s.name == "Unnamed" and s.operator_factory.operator_class == "StreamSink"
    keyed_sink = src.key_by(lambda v: v).print().get_transformation()
    assert keyed_sink.state_key_selector(3) == 3


def test_operator_settings(env) -> None:
    m = env.from_collection([1]).map(lambda x: x)
    m.name("my map").uid("m-1").set_uid_hash("0123456789abcdef0123456789ABCDEF")
    m.set_max_parallelism(64).set_parallelism(4).slot_sharing_group("g").set_buffer_timeout(5)
    t = m.get_transformation()
    assert (t.name, t.uid, t.user_provided_node_hash) == (
        "my map",
        "m-1",
        "0123456789abcdef0123456789abcdef",
    )
    assert (t.parallelism, t.max_parallelism, t.slot_sharing_group, t.buffer_timeout) == (
        4,
        64,
        "g",
        5,
    )
    m.start_new_chain()
    assert t.chaining_strategy == ChainingStrategy.HEAD
    m.disable_chaining()
    assert t.chaining_strategy == ChainingStrategy.NEVER
    src = env.from_collection([1]).name("numbers")
    assert src.get_name() == "numbers"  # the generator adds "Source: "


@pytest.mark.flink_version("1.11")  # count_window(2, 1) as Java's countWindow (COUNT_WINDOW)
def test_windows(env) -> None:
    window = pytest.importorskip("pyflowkit.datastream.window")
    from pyflowkit.common import Time

    keyed = env.from_collection([("a", 1)], type_info=PAIR).key_by(lambda t: t[0])
    t = keyed.count_window(2, 1).sum(1).get_transformation()
    assert t.name == (
        "Window(GlobalWindows(), CountTrigger, CountEvictor, SumAggregator, PassThroughWindowFunction)"
    )
    assert t.operator_factory.operator_class == "EvictingWindowOperator"
    t5 = keyed.count_window(5).sum(1).get_transformation()
    assert (
        t5.name
        == "Window(GlobalWindows(), PurgingTrigger, SumAggregator, PassThroughWindowFunction)"
    )
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)
    tum = keyed.window(window.TumblingEventTimeWindows.of(Time.seconds(5)))
    tag = OutputTag("late")
    tt = (
        tum.allowed_lateness(1000)
        .side_output_late_data(tag)
        .reduce(lambda a, b: a)
        .get_transformation()
    )
    assert tt.name == (
        "Window(TumblingEventTimeWindows(5000), EventTimeTrigger, ReduceFunction, PassThroughWindowFunction)"
    )
    params = tt.operator_factory.params
    assert params["allowed_lateness"] == 1000 and params["late_data_output_tag"] == tag
    assert (
        params["window_function_kind"] == "reduce"
        and params["window_function_type"] == "pass_through"
    )
    assert (
        tt.operator_factory.operator_class == "WindowOperator"
        and tt.state_key_selector(("k", 1)) == "k"
    )

    class MyPWF:
        def process(self, key, ctx, elements):
            yield len(elements)

    tp = keyed.window(window.TumblingEventTimeWindows.of(Time.seconds(5))).process(
        MyPWF(), Types.INT()
    )
    assert (
        tp.get_transformation().name
        == "Window(TumblingEventTimeWindows(5000), EventTimeTrigger, MyPWF)"
    )
    assert tp.get_type() == Types.INT()


def test_window_all_is_forced_non_parallel(env) -> None:
    pytest.importorskip("pyflowkit.datastream.window")
    t = env.from_collection([1]).count_window_all(3).reduce(lambda a, b: a + b).get_transformation()
    assert t.name.startswith(
        "TriggerWindow(GlobalWindows(), ReducingStateDescriptor{name=window-contents}, "
        "PurgingTrigger(CountTrigger(3)), AllWindowedStream."
    )
    assert (t.parallelism, t.max_parallelism) == (1, 1)
    assert str(t.input.partitioner) == "HASH"


@pytest.mark.flink_version("1.11")  # 1.11's ProcessingTime default, interval 0 (TIME_DEFAULTS)
def test_time_characteristic_sets_watermark_interval(env) -> None:
    assert env.get_config().get_auto_watermark_interval() == 0
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)
    assert env.get_config().get_auto_watermark_interval() == 200
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    assert env.get_config().get_auto_watermark_interval() == 0


def test_checkpoint_config_defaults_and_enable(env) -> None:
    from pyflowkit.datastream import CheckpointingMode

    cp = env.get_checkpoint_config()
    assert not cp.is_checkpointing_enabled()
    assert (cp.get_checkpoint_timeout(), cp.get_min_pause_between_checkpoints()) == (600_000, 0)
    assert cp.get_max_concurrent_checkpoints() == 1
    env.enable_checkpointing(500, CheckpointingMode.AT_LEAST_ONCE)
    assert cp.is_checkpointing_enabled() and cp.get_checkpoint_interval() == 500
    settings = env._settings().checkpoint
    assert (settings.interval, settings.mode) == (500, "AT_LEAST_ONCE")


def test_configure_applies_known_keys(env) -> None:
    conf = (
        Configuration()
        .set_string("execution.checkpointing.interval", "2 s")
        .set_string("pipeline.auto-watermark-interval", "50 ms")
        .set_string("execution.runtime-mode", "batch")
        .set_boolean("pipeline.operator-chaining", False)
        .set_string("execution.target", "local")
    )
    env.configure(conf)
    assert env.get_checkpoint_config().get_checkpoint_interval() == 2000
    assert env.get_config().get_auto_watermark_interval() == 50
    assert env.get_runtime_mode().name == "BATCH" and not env.is_chaining_enabled()
    assert env.get_configuration().get_string("execution.target") == "local"


def test_execute_and_collect_and_graphs_with_the_generator(env) -> None:
    pytest.importorskip("pyflowkit.graph.streaming_job_graph_generator")
    env.from_collection([1, 2]).map(lambda x: x).print()
    job = env.get_job_graph()
    assert [v.name for v in job.vertices] == [
        "Source: Collection Source",
        "Map -> Sink: Print to Std. Out",
    ]
    assert env.get_transformations()  # get_job_graph does not clear


def test_project_is_flinks_projection_operator(env) -> None:
    from pyflowkit.errors import UnsupportedOperationException

    triple = Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()])
    src = env.from_collection([("a", 1, 10), ("b", 2, 20)], type_info=triple)
    projected = src.project(2, 0)
    t = projected.get_transformation()
    assert (t.name, t.chaining_strategy) == ("Projection", ChainingStrategy.ALWAYS)
    assert str(projected.get_type()) == "Java Tuple2<Long, String>"
    assert t.operator_factory.params["function"].map(("a", 1, 10)) == (10, "a")
    keyed = src.key_by(lambda v: v[0]).project(1)
    assert keyed.get_transformation().state_key_selector(("k", 1, 2)) == "k"
    assert src.get_execution_config() is env.get_config()
    before = list(env.get_transformations())
    with pytest.raises(UnsupportedOperationException, match="^Only Tuple DataStreams can be"):
        env.from_collection([1, 2]).project(0)
    with pytest.raises(IndexError, match="^Provided field index is out of bounds of input type"):
        src.project(3)
    with pytest.raises(ValueError, match="at least one"):
        src.project()
    assert env.get_transformations() == before


def test_project_runs_on_the_local_cluster() -> None:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string("execution.target", "local")
    )
    env.set_parallelism(1)
    triple = Types.TUPLE([Types.STRING(), Types.INT(), Types.LONG()])
    src = env.from_collection([("a", 1, 10), ("b", 2, 20)], type_info=triple)
    assert list(src.project(2, 0).execute_and_collect()) == [(10, "a"), (20, "b")]
