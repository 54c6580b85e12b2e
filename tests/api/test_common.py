"""pyflowkit.common: Types, Row, time values, watermark generators, Configuration, restarts."""

from __future__ import annotations

import pickle

import pytest

from pyflowkit.common import (
    Configuration,
    Duration,
    ExecutionConfig,
    RestartStrategies,
    Row,
    RowKind,
    Time,
    TimestampAssigner,
    Types,
    WatermarkOutput,
    WatermarkStrategy,
)
from pyflowkit.common.restart_strategy import (
    FailureRateRestartStrategyConfiguration,
    FallbackRestartStrategyConfiguration,
    FixedDelayRestartStrategyConfiguration,
    NoRestartStrategyConfiguration,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.state.java_hash import java_hash_code

LONG_MIN = -(2**63)


@pytest.mark.parametrize(
    ("type_info", "text"),
    [
        (Types.STRING(), "String"),
        (Types.INT(), "Integer"),
        (Types.LONG(), "Long"),
        (Types.BOOLEAN(), "Boolean"),
        (Types.DOUBLE(), "Double"),
        (Types.CHAR(), "Character"),
        (Types.BIG_DEC(), "BigDecimal"),
        (Types.SQL_TIMESTAMP(), "Timestamp"),
        (Types.PICKLED_BYTE_ARRAY(), "PickledByteArrayTypeInfo"),
        (Types.TUPLE([Types.STRING(), Types.INT()]), "Java Tuple2<String, Integer>"),
        (Types.ROW([Types.STRING(), Types.LONG()]), "Row(f0: String, f1: Long)"),
        (
            Types.ROW_NAMED(["word", "n"], [Types.STRING(), Types.INT()]),
            "Row(word: String, n: Integer)",
        ),
        (Types.PRIMITIVE_ARRAY(Types.INT()), "int[]"),
        (Types.BASIC_ARRAY(Types.STRING()), "BasicArrayTypeInfo<String>"),
        (Types.LIST(Types.STRING()), "List<String>"),
        (Types.MAP(Types.STRING(), Types.INT()), "Map<String, Integer>"),
    ],
)
def test_type_information_prints_like_flink(type_info, text) -> None:
    assert str(type_info) == text


def test_types_compare_structurally_and_know_key_types() -> None:
    assert Types.TUPLE([Types.STRING(), Types.INT()]) == Types.TUPLE([Types.STRING(), Types.INT()])
    assert Types.TUPLE([Types.STRING()]) != Types.TUPLE([Types.INT()])
    assert Types.ROW([Types.INT()]) != Types.ROW_NAMED(["x"], [Types.INT()])
    assert Types.STRING().is_key_type()
    assert Types.ROW([Types.STRING(), Types.INT()]).is_key_type()
    assert not Types.LIST(Types.STRING()).is_key_type()
    assert not Types.TUPLE([Types.STRING(), Types.PRIMITIVE_ARRAY(Types.INT())]).is_key_type()
    with pytest.raises(ValueError, match="one name per type"):
        Types.ROW_NAMED(["a"], [Types.INT(), Types.INT()])
    with pytest.raises(TypeError, match="TypeInformation"):
        Types.LIST("STRING")


def test_row_positional_named_and_factory() -> None:
    row = Row(name="Alice", count=3)
    assert row.name == "Alice" and row["count"] == 3 and row[0] == "Alice"
    assert row.as_dict() == {"name": "Alice", "count": 3}
    assert repr(row) == "Row(name='Alice', count=3)"
    assert repr(Row(1, "a")) == "<Row(1, 'a')>"  # PyFlink's repr of a positional Row
    person = Row("name", "count")
    assert person("Bob", 1) == Row(name="Bob", count=1)
    assert Row(1, "a") == Row(1, "a") and Row(1, "a") != Row(1, "b")
    assert row.get_row_kind() == RowKind.INSERT and RowKind.UPDATE_AFTER.short_string() == "+U"
    changed = Row(1)
    changed.set_row_kind(RowKind.DELETE)
    assert changed != Row(1)
    assert pickle.loads(pickle.dumps(row)) == row
    assert len(row) == 2 and list(row) == ["Alice", 3]
    with pytest.raises(TypeError, match="has no field names"):
        Row(1, 2).as_dict()


def test_row_hashes_like_flink_row_hashcode() -> None:
    # Flink 1.11 Row.hashCode = Arrays.deepHashCode(fields) = 31*(31*1 + h("a")) + h(1)
    assert java_hash_code(Row("a", 1)) == 31 * (31 + 97) + 1
    assert java_hash_code(Row(word="a")) == 31 + 97


def test_duration_and_time() -> None:
    assert Duration.of_seconds(5).to_milliseconds() == 5000
    assert Duration.of_minutes(2) == Duration.of_millis(120_000)
    assert Duration.of_hours(1).to_milliseconds() == 3_600_000
    assert str(Duration.of_millis(1500)) == "PT1.5S"
    assert Time.seconds(5).to_milliseconds() == 5000
    assert Time.days(1).to_milliseconds() == 86_400_000
    assert str(Time.minutes(1)) == "60000 ms"
    assert Time.milliseconds(3) < Time.seconds(1)


class _Out(WatermarkOutput):
    def __init__(self) -> None:
        self.watermarks: list[int] = []
        self.idle = 0

    def emit_watermark(self, watermark: int) -> None:
        self.watermarks.append(watermark)

    def mark_idle(self) -> None:
        self.idle += 1


def test_bounded_out_of_orderness_watermarks_are_max_minus_bound_minus_one() -> None:
    gen = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(2)
    ).create_watermark_generator()
    out = _Out()
    gen.on_periodic_emit(out)
    assert out.watermarks == [LONG_MIN]
    for ts in (5000, 3000, 7000, 6000):
        gen.on_event(None, ts, out)
    gen.on_periodic_emit(out)
    assert out.watermarks == [LONG_MIN, 7000 - 2000 - 1]


def test_monotonous_and_no_watermarks() -> None:
    out = _Out()
    mono = WatermarkStrategy.for_monotonous_timestamps().create_watermark_generator()
    mono.on_event("x", 100, out)
    mono.on_periodic_emit(out)
    none = WatermarkStrategy.no_watermarks().create_watermark_generator()
    none.on_event("x", 500, out)
    none.on_periodic_emit(out)
    assert out.watermarks == [99]


def test_idleness_marks_output_idle_after_timeout_without_events() -> None:
    now = [0]
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_idleness(Duration.of_millis(100))
    gen = strategy.create_watermark_generator(clock=lambda: now[0])
    out = _Out()
    gen.on_event("x", 10, out)
    now[0] = 1
    gen.on_periodic_emit(out)  # activity since last check → not idle
    now[0] = 50
    gen.on_periodic_emit(out)  # inactivity starts
    now[0] = 200
    gen.on_periodic_emit(out)  # 150 ms > 100 ms → idle
    assert out.watermarks == [9, 9] and out.idle == 1


def test_timestamp_assigners_callable_or_class() -> None:
    class Ts(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return value[1]

    s1 = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Ts())
    s2 = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda v, r: v[1] * 2
    )
    assert s1.create_timestamp_assigner().extract_timestamp(("a", 7), -1) == 7
    assert s2.create_timestamp_assigner().extract_timestamp(("a", 7), -1) == 14
    assert (
        WatermarkStrategy.no_watermarks().create_timestamp_assigner().extract_timestamp("v", 42)
        == 42
    )
    with pytest.raises(ValueError, match="maxOutOfOrderness cannot be negative"):
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(-1))


def test_configuration_typed_access() -> None:
    c = Configuration()
    c.set_integer("parallelism.default", 4).set_boolean("x.on", True).set_string("k", "v")
    c.set_float("f", 0.5)
    assert c.get_integer("parallelism.default") == 4 and c.get_boolean("x.on") is True
    assert c.get_string("missing", "dflt") == "dflt" and c.get_float("f") == 0.5
    assert c.contains_key("k") and c.key_set() == {"parallelism.default", "x.on", "k", "f"}
    other = Configuration().set_string("a", "1")
    c.add_all(other, prefix="p.")
    assert c.to_dict()["p.a"] == "1"
    with pytest.raises(ValueError, match="not an integer"):
        Configuration().set_string("n", "x").get_integer("n")


def test_restart_strategies_descriptions_are_flinks() -> None:
    assert isinstance(RestartStrategies.no_restart(), NoRestartStrategyConfiguration)
    assert RestartStrategies.no_restart().get_description() == "Restart deactivated."
    fixed = RestartStrategies.fixed_delay_restart(3, 10_000)
    assert isinstance(fixed, FixedDelayRestartStrategyConfiguration)
    assert fixed.get_description() == "Restart with fixed delay (10000 ms). #3 restart attempts."
    assert fixed.get_restart_attempts() == 3
    rate = RestartStrategies.failure_rate_restart(2, Time.minutes(1), 1000)
    assert isinstance(rate, FailureRateRestartStrategyConfiguration)
    assert rate.get_description() == (
        "Failure rate restart with maximum of 2 failures within interval 60000 ms and fixed "
        "delay 1000 ms."
    )
    fallback = RestartStrategies.fall_back_restart()
    assert isinstance(fallback, FallbackRestartStrategyConfiguration)
    assert fallback.get_description() == "Cluster level default restart strategy"
    assert RestartStrategies.fixed_delay_restart(3, 10_000) == fixed
    with pytest.raises(ValueError, match="must not be negative"):
        RestartStrategies.fixed_delay_restart(-1, 1000)


def test_execution_config_defaults_and_checks() -> None:
    cfg = ExecutionConfig()
    assert cfg.get_auto_watermark_interval() == 0
    assert cfg.has_auto_generated_uids_enabled()
    assert isinstance(cfg.get_restart_strategy(), FallbackRestartStrategyConfiguration)
    cfg.disable_auto_generated_uids().set_auto_watermark_interval(200)
    assert not cfg.has_auto_generated_uids_enabled() and cfg.get_auto_watermark_interval() == 200
    with pytest.raises(IllegalArgumentException, match="maxParallelism is out of bounds"):
        cfg.set_max_parallelism(40000)


def test_row_errors_are_pyflinks() -> None:
    with pytest.raises(ValueError, match="^Can not use both args and kwargs to create Row$"):
        Row(1, name="a")
    with pytest.raises(TypeError, match="^Cannot convert a Row class into dict"):
        Row(1, 2).as_dict()


def test_time_and_duration_compare_within_their_own_type() -> None:
    from pyflowkit.common import Duration, Time

    assert Time.seconds(1) == Time.milliseconds(1000) and Time.seconds(3) >= Time.seconds(2)
    assert sorted([Time.seconds(3), Time.seconds(1)]) == [Time.seconds(1), Time.seconds(3)]
    assert Duration.of_seconds(1) <= Duration.of_millis(1000) < Duration.of_minutes(1)
    assert hash(Duration.of_millis(5)) == hash(Duration.of_nanos(5_000_000))
    assert Time.seconds(1) != Duration.of_seconds(1)
    with pytest.raises(TypeError):
        _ = Time.seconds(1) < Duration.of_seconds(2)


def test_deprecated_fail_on_checkpointing_errors_sets_the_tolerable_number_as_flink() -> None:
    from pyflowkit.datastream.checkpoint_config import CheckpointConfig

    lenient = CheckpointConfig().set_fail_on_checkpointing_errors(False)
    assert lenient.get_tolerable_checkpoint_failure_number() == 2**31 - 1
    assert not lenient.is_fail_on_checkpointing_errors()
    strict = CheckpointConfig().set_tolerable_checkpoint_failure_number(3)
    strict.set_fail_on_checkpointing_errors(False)  # ignored once the number is configured
    assert strict.get_tolerable_checkpoint_failure_number() == 3
    assert strict.is_fail_on_checkpointing_errors()
