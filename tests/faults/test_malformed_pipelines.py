"""Malformed pipelines: Flink's exception and message naming the operator and the rule, and the
environment left as it was (API calls) or failing the same way again (execute)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidTypesException,
    UnsupportedOperationException,
)
from tests.api.test_bad_input import snapshot


def local_env() -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    return env


def other_stream(env: StreamExecutionEnvironment) -> Any:
    return local_env().from_collection([2])


# (case id, the failing API call, exception type, message fragments)
API_CASES: list[tuple[str, Callable[[StreamExecutionEnvironment], Any], type, list[str]]] = [
    (
        "map not callable",
        lambda e, s: s.map(5),
        IllegalArgumentException,
        ["map() needs a MapFunction or a callable, got 5"],
    ),
    (
        "filter None",
        lambda e, s: s.filter(None),
        IllegalArgumentException,
        ["filter() needs a FilterFunction or a callable, got None"],
    ),
    (
        "process a string",
        lambda e, s: s.process("x"),
        IllegalArgumentException,
        ["process() needs a ProcessFunction or a callable"],
    ),
    (
        "sink None",
        lambda e, s: s.add_sink(None),
        IllegalArgumentException,
        ["add_sink() needs a SinkFunction or a callable, got None"],
    ),
    (
        "reduce None",
        lambda e, s: s.key_by(lambda x: x).reduce(None),
        IllegalArgumentException,
        ["reduce() needs a ReduceFunction or a callable"],
    ),
    (
        "count_window(0)",
        lambda e, s: s.key_by(lambda x: x).count_window(0),
        IllegalArgumentException,
        ["count_window(): size must be an int >= 1, got 0"],
    ),
    (
        "list as key type",
        lambda e, s: s.key_by(lambda x: [x], key_type=Types.LIST(Types.INT())),
        InvalidTypesException,
        ["This type (List<Integer>) cannot be used as key", "'Source: Collection Source'"],
    ),
    (
        "union across environments",
        lambda e, s: s.union(other_stream(e)),
        IllegalArgumentException,
        ["Cannot union streams from different execution environments"],
    ),
    (
        "empty collection",
        lambda e, s: e.from_collection([]),
        IllegalArgumentException,
        ["Collection must not be empty"],
    ),
]


@pytest.mark.parametrize(
    "call,error,fragments", [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES]
)
def test_malformed_call_changes_nothing(call, error: type, fragments: list[str]) -> None:
    env = local_env()
    src = env.from_collection([1]).uid("src")
    before = snapshot(env)
    with pytest.raises(error) as err:
        call(env, src)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)
    assert snapshot(env) == before
    src.map(lambda v: v * 3).print()
    assert env.execute("still usable").get_job_id()


EXECUTE_CASES: list[tuple[str, Callable[[StreamExecutionEnvironment], Any], type, list[str]]] = [
    (
        "nothing to execute",
        lambda e: None,
        IllegalStateException,
        ["No operators defined in streaming topology. Cannot execute."],
    ),
    (
        "forward across parallelism",
        lambda e: e.from_collection([1]).forward().map(lambda x: x).set_parallelism(3).print(),
        UnsupportedOperationException,
        ["Forward partitioning does not allow change of parallelism", "Map-"],
    ),
]


@pytest.mark.parametrize(
    "build,error,fragments", [c[1:] for c in EXECUTE_CASES], ids=[c[0] for c in EXECUTE_CASES]
)
def test_malformed_pipeline_fails_execute_the_same_way_twice(
    build, error: type, fragments: list[str]
) -> None:
    env = local_env()
    build(env)
    messages = []
    for _ in range(2):  # nothing ran, nothing half-changed: the same error again
        with pytest.raises(error) as err:
            env.execute("malformed")
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    for fragment in fragments:
        assert fragment in messages[0], messages[0]


# (case id, a valid stream built first, the failing setter on it, exception, fragments)
SETTER_CASES: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any], type, list[str]]] = [
    (
        "duplicate uid",
        lambda s: s.map(lambda x: x),
        lambda m: m.uid("src"),
        IllegalArgumentException,
        ['Hash collision on user-specified ID "src"', "'Source: Collection Source' and 'Map'"],
    ),
    (
        "max parallelism below parallelism",
        lambda s: s.map(lambda x: x).set_parallelism(4),
        lambda m: m.set_max_parallelism(2),
        IllegalArgumentException,
        ["Operator 'Map''s parallelism (4) is higher than the max parallelism (2)"],
    ),
    (
        "parallelism 0",
        lambda s: s.map(lambda x: x),
        lambda m: m.set_parallelism(0),
        IllegalArgumentException,
        ["Operator 'Map' was given 0"],
    ),
]


@pytest.mark.parametrize(
    "prepare,call,error,fragments", [c[1:] for c in SETTER_CASES], ids=[c[0] for c in SETTER_CASES]
)
def test_failing_setter_leaves_the_operator_as_it_was(prepare, call, error, fragments) -> None:
    env = local_env()
    stream = prepare(env.from_collection([1]).uid("src"))
    before = snapshot(env)
    with pytest.raises(error) as err:
        call(stream)
    for fragment in fragments:
        assert fragment in str(err.value), str(err.value)
    assert snapshot(env) == before
    stream.print()
    assert env.execute("still usable").get_job_id()
