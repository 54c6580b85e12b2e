"""Declared types are enforced where PyFlink serialises records; a misfit fails the job naming the
operator, the declared type and the value, on the simulated cluster and on Spark alike."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from pyflowkit.common import Time, Types
from pyflowkit.common.types import Row
from pyflowkit.datastream import OutputTag, StreamExecutionEnvironment
from pyflowkit.datastream.data_stream import KeyedStreamRequired
from pyflowkit.datastream.functions import ProcessFunction
from pyflowkit.datastream.window import TumblingProcessingTimeWindows
from pyflowkit.errors import UnsupportedOperationException
from pyflowkit.runtime import JobStatus
from tests.api.test_bad_input import snapshot
from tests.faults.helpers import assert_cleanly_failed, chain_of, environment, run_to_end

T2 = Types.TUPLE([Types.STRING(), Types.INT()])
BAD_SIDE = OutputTag("late", Types.STRING())


class SideEmitter(ProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        yield value
        yield BAD_SIDE, value  # an int on a String side output


def side_output_job(env: StreamExecutionEnvironment) -> None:
    main = env.from_collection([1, 2], type_info=Types.INT()).process(
        SideEmitter(), output_type=Types.INT()
    )
    main.get_side_output(BAD_SIDE).print()
    main.print()


# (case id, pipeline, operator, declared type text, value text, rule text)
MISFITS: list[tuple[str, Callable[[StreamExecutionEnvironment], Any], str, str, str, str]] = [
    (
        "map returns str, declared INT",
        lambda env: env.from_collection([1, 2]).map(str, output_type=Types.INT()).print(),
        "Map",
        "Integer",
        "record '1' (str)",
        "an integer is required",
    ),
    (
        "key_type STRING, selector returns int",
        lambda env: (
            env.from_collection([(1, "a"), (2, "b")])
            .key_by(lambda t: t[0], key_type=Types.STRING())
            .reduce(lambda a, b: a)
            .print()
        ),
        # the key_by encodes the key (PyFlink's StringCoder: value.encode('utf-8'))
        "key_by after operator 'Source: Collection Source'",
        "String",
        "key 1 (int)",
        "'int' object has no attribute 'encode'",
    ),
    (
        "INT out of range",
        lambda env: env.from_collection([1]).map(lambda x: 2**31, output_type=Types.INT()).print(),
        "Map",
        "Integer",
        "record 2147483648 (int)",
        "value too large to convert to int32_t",
    ),
    (
        "BYTE out of range",
        lambda env: env.from_collection([1]).map(lambda x: 300, output_type=Types.BYTE()).print(),
        "Map",
        "Byte",
        "record 300 (int)",
        "value too large to convert to int8_t",
    ),
    (
        "STRING given None",
        lambda env: (
            env.from_collection([1]).map(lambda x: None, output_type=Types.STRING()).print()
        ),
        "Map",
        "String",
        "record None (NoneType)",
        "a str is required",
    ),
    (
        "DOUBLE given a str",
        lambda env: (
            env.from_collection([1]).map(lambda x: "1.0", output_type=Types.DOUBLE()).print()
        ),
        "Map",
        "Double",
        "record '1.0' (str)",
        "must be real number, not str",
    ),
    (
        "flat_map yields ints, declared STRING",
        lambda env: (
            env.from_collection(["a b"])
            .flat_map(lambda s: [len(w) for w in s.split()], output_type=Types.STRING())
            .print()
        ),
        "Flat Map",
        "String",
        "record 1 (int)",
        "a str is required",
    ),
    (
        "from_collection element not of type_info",
        lambda env: env.from_collection([1, "two"], type_info=Types.INT()).print(),
        "Source: Collection Source",
        "Integer",
        "record 'two' (str)",
        "an integer is required",
    ),
    (
        "tuple field of the wrong type",
        lambda env: env.from_collection([1]).map(lambda x: (x, "a"), output_type=T2).print(),
        "Map",
        "Java Tuple2<String, Integer>",
        "record (1, 'a') (tuple)",
        "field 0 (1): a str is required",
    ),
    (
        "tuple declared, list returned",
        lambda env: env.from_collection([1]).map(lambda x: ["a", x], output_type=T2).print(),
        "Map",
        "Java Tuple2<String, Integer>",
        "record ['a', 1] (list)",
        "a tuple is required",
    ),
    (
        "row declared, tuple returned",
        lambda env: (
            env.from_collection([1])
            .map(
                lambda x: ("a", x),
                output_type=Types.ROW_NAMED(["w", "n"], [Types.STRING(), Types.INT()]),
            )
            .print()
        ),
        "Map",
        "Row(w: String, n: Integer)",
        "record ('a', 1) (tuple)",
        "a Row is required",
    ),
    (
        "row field of the wrong type",
        lambda env: (
            env.from_collection([1])
            .map(lambda x: Row("a", "b"), output_type=Types.ROW([Types.STRING(), Types.INT()]))
            .print()
        ),
        "Map",
        "Row(f0: String, f1: Integer)",
        "record <Row('a', 'b')> (Row)",
        "field 1 ('b'): an integer is required",
    ),
    (
        "reduce returns a str for a declared tuple stream",
        lambda env: (
            env.from_collection([("a", 1), ("a", 2)], type_info=T2)
            .key_by(lambda t: t[0])
            .reduce(lambda a, b: "oops")
            .print()
        ),
        "Keyed Reduce",
        "Java Tuple2<String, Integer>",
        "record 'oops' (str)",
        "a tuple is required",
    ),
    (
        "process output_type INT, yields str",
        lambda env: (
            env.from_collection([1])
            .process(lambda v, ctx: [str(v)], output_type=Types.INT())
            .print()
        ),
        "Process",
        "Integer",
        "record '1' (str)",
        "an integer is required",
    ),
    (
        "typed side output given an int",
        side_output_job,
        "Process",
        "String",
        "side output 'late' record 1 (int)",
        "a str is required",
    ),
    (
        "window reduce returns the wrong type",
        lambda env: (
            env.from_collection([("a", 1), ("a", 2)], type_info=T2)
            .key_by(lambda t: t[0])
            .count_window(2)
            .reduce(lambda a, b: a[1] + b[1])
            .print()
        ),
        "Window(",
        "Java Tuple2<String, Integer>",
        "record 3 (int)",
        "a tuple is required",
    ),
    (
        "key_type INT, selector returns a tuple",
        lambda env: (
            env.from_collection([("a", 1)], type_info=T2)
            .key_by(lambda t: (t[0], t[1]), key_type=Types.INT())
            .process(lambda v, ctx: [v], output_type=T2)
            .print()
        ),
        "key_by after operator 'Source: Collection Source'",
        "Integer",
        "key ('a', 1) (tuple)",
        "an integer is required",
    ),
]


@pytest.mark.parametrize(
    "build,operator,declared,value,rule", [c[1:] for c in MISFITS], ids=[c[0] for c in MISFITS]
)
def test_misfit_fails_the_job_on_the_simulated_cluster(
    build: Callable[[StreamExecutionEnvironment], Any],
    operator: str,
    declared: str,
    value: str,
    rule: str,
) -> None:
    env = environment(build)
    run = run_to_end(env)
    assert_cleanly_failed(run)
    root = chain_of(run.failure_cause)[-1]
    # PyFlink's coders raise OverflowError for an int out of range, TypeError otherwise
    assert type(root) is (
        OverflowError
        if "too large" in rule
        else AttributeError
        if "attribute 'encode'" in rule
        else TypeError
    )
    message = str(root)
    assert message.startswith(operator), message
    assert f"with its declared type {declared}: " in message, message
    assert f"cannot serialize {value}" in message, message
    assert rule in message, message
    assert "Fix: " in message
    # the environment is still usable: the same program runs again and fails the same way
    again = run_to_end(env, seed=3)
    assert str(chain_of(again.failure_cause)[-1]) == message


FITS: list[tuple[str, Callable[[StreamExecutionEnvironment], Any], list[str]]] = [
    (
        "FLOAT accepts ints, as Java floats",
        lambda env: env.from_collection([1, 2.5]).map(lambda x: x, output_type=Types.FLOAT()),
        ["1.0", "2.5"],
    ),
    (
        # TupleCoderImpl writes the declared arity's fields: a longer tuple arrives cut
        "3-tuples declared as 2-tuples arrive as their first two fields",
        lambda env: (
            env.from_collection([1, 2])
            .map(lambda x: (x, x, x), output_type=Types.TUPLE([Types.INT(), Types.INT()]))
            .rebalance()  # a network edge: serialised
            .map(lambda t: len(t))
        ),
        ["2", "2"],
    ),
    (
        # BigIntCoderImpl converts with nb_int: a float is truncated, a bool is 1
        "LONG given a float or a bool",
        lambda env: (
            env.from_collection([1.5, -2.7, True])
            .map(lambda x: x, output_type=Types.LONG())
            .rebalance()
            .map(lambda v: repr(v))
        ),
        ["1", "-2", "1"],
    ),
    (
        "BOOLEAN and LONG",
        lambda env: env.from_collection([True, False], type_info=Types.BOOLEAN()).map(
            lambda b: (b, 2**40), output_type=Types.TUPLE([Types.BOOLEAN(), Types.LONG()])
        ),
        ["(true,1099511627776)", "(false,1099511627776)"],
    ),
    (
        "undeclared types pass anything (pickled)",
        lambda env: env.from_collection([1, "a", None]).map(lambda x: x),
        ["1", "a", "None"],
    ),
    (
        "types not checked here: lists",
        lambda env: env.from_collection([1]).map(
            lambda x: ["a", 1], output_type=Types.LIST(Types.STRING())
        ),
        ["[a, 1]"],
    ),
    (
        "a chained (fused) operator's output is not serialised",
        lambda env: (
            env.from_collection([1, 2])
            .map(str, output_type=Types.INT())
            .map(int, output_type=Types.INT())
        ),
        ["1", "2"],
    ),
    (
        "key_type STRING with str keys",
        lambda env: (
            env.from_collection([("a", 1), ("a", 2)], type_info=T2)
            .key_by(lambda t: t[0], key_type=Types.STRING())
            .reduce(lambda a, b: (a[0], a[1] + b[1]))
        ),
        ["(a,1)", "(a,3)"],
    ),
]


@pytest.mark.parametrize("build,expected", [c[1:] for c in FITS], ids=[c[0] for c in FITS])
def test_records_that_fit_pass_unchanged(
    build: Callable[[StreamExecutionEnvironment], Any], expected: list[str]
) -> None:
    env = environment(lambda e: build(e).print(), parallelism=1)
    run = run_to_end(env)
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert run.printed() == expected


@pytest.mark.parametrize(
    "printed",
    [
        # PyFlink 1.20.3 prints a Row as +I[b,None] (goldens: program__row_print)
        pytest.param("+I[None,1]", marks=pytest.mark.flink_version("1.20"), id="1.20"),
        # 1.11: Java's Row.toString, fields joined by commas, null for None
        pytest.param("null,1", marks=pytest.mark.flink_version("1.11"), id="1.11"),
    ],
)
def test_row_fields_may_be_none(printed: str) -> None:
    env = environment(
        lambda e: (
            e.from_collection([1])
            .map(lambda x: Row(None, x), output_type=Types.ROW([Types.STRING(), Types.INT()]))
            .print()
        ),
        parallelism=1,
    )
    run = run_to_end(env)
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    assert run.printed() == [printed]


KEYED_ONLY = [
    ("window", lambda s: s.window(TumblingProcessingTimeWindows.of(Time.seconds(1))), "window_all"),
    ("count_window", lambda s: s.count_window(2), "count_window_all"),
    ("reduce", lambda s: s.reduce(lambda a, b: a), None),
    ("sum", lambda s: s.sum(1), None),
    ("max_by", lambda s: s.max_by(0), None),
]


@pytest.mark.parametrize(
    "call,alternative", [c[1:] for c in KEYED_ONLY], ids=[c[0] for c in KEYED_ONLY]
)
def test_keyed_stream_method_on_a_non_keyed_stream(call, alternative) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    stream = env.from_collection([("a", 1)]).map(lambda t: t).name("my map")
    before = snapshot(env)
    with pytest.raises(KeyedStreamRequired) as err:
        call(stream)
    assert isinstance(err.value, UnsupportedOperationException)
    assert isinstance(err.value, AttributeError)  # hasattr() and PyFlink code keep working
    message = str(err.value)
    assert (
        "is a KeyedStream method and 'my map' is not keyed: call key_by(key_selector) first"
        in message
    )
    if alternative:
        assert f"or {alternative}(...)" in message
    assert snapshot(env) == before
    assert not hasattr(stream, "window") and hasattr(stream.key_by(lambda t: t[0]), "window")


SPARK_MISFITS = [
    c
    for c in MISFITS
    if c[0]
    in (
        "map returns str, declared INT",
        "INT out of range",
        "key_type STRING, selector returns int",
        "typed side output given an int",
    )
]


@pytest.mark.spark
@pytest.mark.parametrize(
    "build,operator,declared,value,rule",
    [c[1:] for c in SPARK_MISFITS],
    ids=[c[0] for c in SPARK_MISFITS],
)
def test_misfit_fails_the_job_on_spark(build, operator, declared, value, rule) -> None:
    from pyflowkit.errors import JobExecutionException

    env = environment(build)
    with pytest.raises(JobExecutionException) as err:
        env.execute("typed")
    message = str(err.value)
    assert f"{operator}" in message and f"with its declared type {declared}: " in message
    # which record fails first depends on Spark's partition order: the kind and type are fixed
    kind, type_name = value.split(" ")[0], value.rsplit(" ", 1)[-1]
    assert re.search(rf"cannot serialize {kind} .* {re.escape(type_name)} with", message), message
    error = (
        "OverflowError: "
        if "too large" in rule
        else "AttributeError: "
        if "attribute 'encode'" in rule
        else "TypeError: "
    )
    assert rule in message and error in message
