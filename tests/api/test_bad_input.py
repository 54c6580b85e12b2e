"""Bad input: a clear error naming the operator and the rule, and nothing changed."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from pyflowkit.common import Duration, Types, WatermarkStrategy
from pyflowkit.datastream import OutputTag, StreamExecutionEnvironment
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidProgramException,
    InvalidTypesException,
    UnsupportedOperationException,
)
from pyflowkit.graph.transformations import PhysicalTransformation


def snapshot(env: StreamExecutionEnvironment) -> dict[str, Any]:
    """Everything a failing call must leave untouched."""
    ts = []
    for t in env._all_transformations:
        state = {k: v for k, v in vars(t).items() if k != "operator_factory"}
        if isinstance(t, PhysicalTransformation):
            state["chaining"] = t.chaining_strategy
        ts.append((t.id, state))
    return {
        "transformations": [t.id for t in env._transformations],
        "all": ts,
        "config": copy.copy(vars(env.get_config())),
        "checkpoint": env.get_checkpoint_config()._copy_state(),
        "configuration": env.get_configuration().to_dict(),
        "chaining": env.is_chaining_enabled(),
        "side_outputs": copy.deepcopy(env._requested_side_outputs),
    }


def build() -> tuple[StreamExecutionEnvironment, dict[str, Any]]:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    src = env.from_collection([("a", 1)], type_info=Types.TUPLE([Types.STRING(), Types.INT()]))
    m = src.map(lambda t: t, output_type=src.get_type()).name("my map").uid("map-uid")
    keyed = m.key_by(lambda t: t[0])
    proc = m.process(lambda v, ctx: [v]).name("my process")
    other_env = StreamExecutionEnvironment.get_execution_environment()
    return env, {
        "src": src,
        "map": m,
        "keyed": keyed,
        "proc": proc,
        "union_result": src.union(m),
        "foreign": other_env.from_collection([("b", 2)]),
        "ints": env.from_collection([1], type_info=Types.INT()),
    }


CASES: list[tuple[str, Callable[[StreamExecutionEnvironment, dict], Any], type, str]] = [
    (
        "env negative parallelism",
        lambda e, s: e.set_parallelism(-3),
        IllegalArgumentException,
        "StreamExecutionEnvironment must be at least 1, got -3",
    ),
    (
        "operator zero parallelism",
        lambda e, s: s["map"].set_parallelism(0),
        IllegalArgumentException,
        "Operator 'my map' was given 0",
    ),
    (
        "max parallelism out of range",
        lambda e, s: s["map"].set_max_parallelism(40000),
        IllegalArgumentException,
        "Maximum parallelism must be between 1 and 32768. Found: 40000",
    ),
    (
        "env max parallelism out of range",
        lambda e, s: e.set_max_parallelism(0),
        IllegalArgumentException,
        "maxParallelism is out of bounds 0 < maxParallelism <= 32768",
    ),
    (
        "parallelism above max parallelism",
        lambda e, s: s["map"].set_max_parallelism(1),
        IllegalArgumentException,
        "Operator 'my map''s parallelism (2) is higher than the max parallelism (1)",
    ),
    (
        "parallelism above env max parallelism",
        lambda e, s: (e.set_max_parallelism(4), s["proc"].set_parallelism(8)),
        IllegalArgumentException,
        "Operator 'my process''s parallelism (8) is higher than the max parallelism (4)",
    ),
    (
        "non-parallel source",
        lambda e, s: s["src"].set_parallelism(3),
        IllegalArgumentException,
        "The parallelism of non parallel operator must be 1. Operator 'Source: Collection Source'",
    ),
    (
        "union across environments",
        lambda e, s: s["src"].union(s["foreign"]),
        IllegalArgumentException,
        "Cannot union streams from different execution environments",
    ),
    (
        "union of different types",
        lambda e, s: s["src"].union(s["ints"]),
        IllegalArgumentException,
        "Cannot union streams of different types: Java Tuple2<String, Integer> and Integer",
    ),
    (
        "connect with a non-stream",
        lambda e, s: s["src"].connect([1, 2]),
        IllegalArgumentException,
        "connect() takes a DataStream, got list",
    ),
    (
        "connect across environments",
        lambda e, s: s["src"].connect(s["foreign"]),
        IllegalArgumentException,
        "Cannot connect streams from different execution environments",
    ),
    (
        "unhashable key type",
        lambda e, s: s["map"].key_by(lambda t: [t[0]], key_type=Types.LIST(Types.STRING())),
        InvalidTypesException,
        "This type (List<String>) cannot be used as key. (key_by after operator 'my map'",
    ),
    (
        "array key type",
        lambda e, s: s["map"].key_by(lambda t: t, key_type=Types.PRIMITIVE_ARRAY(Types.INT())),
        InvalidTypesException,
        "This type (int[]) cannot be used as key.",
    ),
    (
        "empty uid",
        lambda e, s: s["proc"].uid(""),
        IllegalArgumentException,
        "The uid of operator 'my process' must be a non-empty string",
    ),
    (
        "duplicate uid",
        lambda e, s: s["proc"].uid("map-uid"),
        IllegalArgumentException,
        'Hash collision on user-specified ID "map-uid"',
    ),
    (
        "bad uid hash",
        lambda e, s: s["proc"].set_uid_hash("xyz"),
        IllegalArgumentException,
        "Node hash must be a 32 character String that describes a hex code. Found: xyz",
    ),
    (
        "rebalance a KeyedStream",
        lambda e, s: s["keyed"].rebalance(),
        UnsupportedOperationException,
        "Cannot override partitioning for KeyedStream.",
    ),
    (
        "partition_custom on a KeyedStream",
        lambda e, s: s["keyed"].partition_custom(lambda k, n: 0, lambda v: v),
        UnsupportedOperationException,
        "Cannot override partitioning for KeyedStream.",
    ),
    (
        "parallelism of a KeyedStream",
        lambda e, s: s["keyed"].set_parallelism(2),
        UnsupportedOperationException,
        "Set parallelism for KeyedStream is not supported.",
    ),
    (
        "checkpoint interval below 10 ms",
        lambda e, s: e.enable_checkpointing(5),
        IllegalArgumentException,
        "Checkpoint interval must be larger than or equal to 10 ms",
    ),
    (
        "checkpoint timeout below 10 ms",
        lambda e, s: e.get_checkpoint_config().set_checkpoint_timeout(1),
        IllegalArgumentException,
        "Checkpoint timeout must be larger than or equal to 10 ms",
    ),
    (
        "negative min pause",
        lambda e, s: e.get_checkpoint_config().set_min_pause_between_checkpoints(-1),
        IllegalArgumentException,
        "Pause value must be zero or positive",
    ),
    (
        "zero concurrent checkpoints",
        lambda e, s: e.get_checkpoint_config().set_max_concurrent_checkpoints(0),
        IllegalArgumentException,
        "The maximum number of concurrent attempts must be at least one.",
    ),
    (
        "map with a non-function",
        lambda e, s: s["map"].map(42),
        IllegalArgumentException,
        "map() needs a MapFunction or a callable, got 42",
    ),
    (
        "empty collection",
        lambda e, s: e.from_collection([]),
        IllegalArgumentException,
        "Collection must not be empty",
    ),
    (
        "a None field in a collection declared as a Java tuple",
        lambda e, s: e.from_collection(
            [("a", 1), ("t", None)], type_info=Types.TUPLE([Types.STRING(), Types.LONG()])
        ),
        InvalidProgramException,
        "element 1 ('t', None) cannot be serialized with its declared type Java Tuple2<String, "
        "Long>: Field 1 is null, but expected to hold a value",
    ),
    (
        "side output of a union",
        lambda e, s: s["union_result"].get_side_output(OutputTag("x")),
        UnsupportedOperationException,
        "get_side_output() is only available on an operator",
    ),
    (
        "side output id with another type",
        lambda e, s: (
            s["proc"].get_side_output(OutputTag("t", Types.INT())),
            s["proc"].get_side_output(OutputTag("t", Types.STRING())),
        ),
        UnsupportedOperationException,
        "A side output with a matching id was already requested with a different type",
    ),
    (
        "buffer timeout below -1",
        lambda e, s: s["map"].set_buffer_timeout(-5),
        IllegalArgumentException,
        "timeout must be >= -1 (operator 'my map'",
    ),
    (
        "aggregation position out of range",
        lambda e, s: s["keyed"].sum(5),
        IllegalArgumentException,
        "sum() on 'my map': Tuple position is out of range: 5",
    ),
    (
        "negative out-of-orderness",
        lambda e, s: s["map"].assign_timestamps_and_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(-5))
        ),
        ValueError,
        "maxOutOfOrderness cannot be negative",
    ),
    (
        "bad configuration value",
        lambda e, s: e.configure(
            __import__("pyflowkit.common", fromlist=["Configuration"])
            .Configuration()
            .set_integer("parallelism.default", 8)
            .set_string("execution.checkpointing.interval", "1 ms")
        ),
        IllegalArgumentException,
        "Checkpoint interval must be larger than or equal to 10 ms",
    ),
    (
        "unknown execution target",
        lambda e, s: (
            e.get_configuration(),
            e.configure(
                __import__("pyflowkit.common", fromlist=["Configuration"])
                .Configuration()
                .set_string("execution.target", "yarn")
            ),
            e.execute(),
        ),
        IllegalArgumentException,
        "Unknown execution.target 'yarn'",
    ),
]


@pytest.mark.parametrize(("case", "call", "exc", "message"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_rejected_and_changes_nothing(case, call, exc, message) -> None:
    env, streams = build()
    if case == "side output id with another type":
        streams["proc"].get_side_output(OutputTag("t", Types.INT()))
    before = snapshot(env)
    with pytest.raises(exc) as info:
        call(env, streams)
    assert message in str(info.value)
    if case in ("unknown execution target", "parallelism above env max parallelism"):
        return  # configure() itself succeeded; execute() refused before running anything
    assert snapshot(env) == before


def test_execute_without_operators() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1])
    with pytest.raises(IllegalStateException, match="No operators defined in streaming topology"):
        env.execute()


def test_at_least_fifteen_cases() -> None:
    assert len(CASES) >= 15


@pytest.mark.parametrize("bad", ["0x" + "a" * 30, "a" * 15 + "_" + "b" * 16, " " + "c" * 31])
def test_uid_hash_must_be_exactly_32_hex_characters(bad) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    mapped = env.from_collection([1]).map(lambda x: x)
    with pytest.raises(IllegalArgumentException, match="32 character String that describes a hex"):
        mapped.set_uid_hash(bad)
    assert mapped.get_transformation().user_provided_node_hash is None
