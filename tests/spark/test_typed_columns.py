"""Declared Types travel as typed Arrow/Spark columns; untyped records stay pickled; a chunk whose
records would not round-trip exactly falls back to pickling, so results never change."""

from __future__ import annotations

import pyarrow as pa
import pytest

from pyflowkit.common import Row, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.spark import records
from pyflowkit.spark.plan import effective_runtime_mode, stage_specs
from pyflowkit.spark.stage import stage_function
from pyflowkit.spark.typed_columns import decoder, encoder, layout_for

WORD_N = Types.TUPLE([Types.STRING(), Types.INT()])
ROW = Types.ROW_NAMED(["word", "n"], [Types.STRING(), Types.LONG()])


@pytest.mark.parametrize(
    ("type_info", "ddl"),
    [
        (Types.STRING(), "e0 array<string>"),
        (Types.INT(), "e0 array<int>"),
        (Types.LONG(), "e0 array<bigint>"),
        (Types.BOOLEAN(), "e0 array<boolean>"),
        (Types.DOUBLE(), "e0 array<double>"),
        (Types.FLOAT(), "e0 array<float>"),  # a Java float: values arrive as 32-bit floats
        (WORD_N, "e0 array<struct<`f0`:string,`f1`:int>>"),
        (ROW, "e0 array<struct<`word`:string,`n`:bigint>>"),
    ],
)
def test_declared_types_become_spark_column_types(type_info, ddl) -> None:
    assert layout_for(type_info, "e0").spark_ddl == ddl


@pytest.mark.parametrize(
    "type_info",
    [
        None,
        Types.PICKLED_BYTE_ARRAY(),
        Types.TUPLE([Types.STRING(), Types.LIST(Types.INT())]),  # nested: pickled
        Types.BIG_INT(),
    ],
)
def test_other_types_stay_pickled(type_info) -> None:
    assert layout_for(type_info, "e0") is None


def round_trip(type_info, values):
    layout = layout_for(type_info, "e0")
    encoded = encoder(layout)(values)
    if encoded is None:
        return None
    column, flags = encoded
    scalar = pa.array([column], type=layout.arrow_type())[0]
    return decoder(layout)(scalar, flags)


def test_records_round_trip_exactly() -> None:
    assert round_trip(Types.STRING(), ["a", "", "ü"]) == ["a", "", "ü"]
    assert round_trip(WORD_N, [("a", 1), ("b", -(2**31))]) == [("a", 1), ("b", -(2**31))]
    named = round_trip(ROW, [Row(word="a", n=2**40)])
    assert named == [Row(word="a", n=2**40)] and named[0].as_dict() == {"word": "a", "n": 2**40}
    positional = round_trip(ROW, [Row("a", 1), Row("b", 2)])
    assert positional == [Row("a", 1), Row("b", 2)] and positional[0]._fields is None
    assert round_trip(Types.DOUBLE(), [1.5, -0.0]) == [1.5, -0.0]
    assert round_trip(Types.STRING(), []) == []
    assert round_trip(WORD_N, []) == []
    assert round_trip(Types.LONG(), [2**63 - 1, -(2**63)]) == [2**63 - 1, -(2**63)]
    assert round_trip(Types.BOOLEAN(), [True, False]) == [True, False]


@pytest.mark.parametrize(
    ("type_info", "values"),
    [
        (Types.INT(), [1, 2**31]),  # out of Integer range
        (Types.INT(), [True]),  # bool is not an int record
        (Types.DOUBLE(), [1.0, 2]),  # an int would come back as 2.0
        (Types.STRING(), ["a", None]),
        (Types.STRING(), ["a", "\ud800"]),  # a lone surrogate has no UTF-8 form
        (WORD_N, [("a", 1), ("b\udfff", 2)]),
        (ROW, [Row(word="\ud800", n=1)]),
        (WORD_N, [("a", 1), ["b", 2]]),  # a list is not a tuple
        (WORD_N, [("a", 1, 3)]),
        (WORD_N, [("a", 1), ("b", True)]),  # a bool field among ints
        (WORD_N, [("a", 1), ("b", 2.0)]),  # a float field among ints
        (WORD_N, [("a", 2**63), ("b", 1)]),  # the first record out of range
        (WORD_N, [("a", 1), (None, 2)]),  # a null string field
        (Types.LONG(), [1, -(2**63) - 1]),
        (Types.BOOLEAN(), [True, 1]),
        (ROW, [Row(word="a", n=1), Row("b", 2)]),  # mixed named/positional
        (ROW, [Row(n=1, word="a")]),  # other field order
    ],
)
def test_a_chunk_that_would_not_round_trip_stays_pickled(type_info, values) -> None:
    assert round_trip(type_info, values) is None


def typed_word_count(env: StreamExecutionEnvironment) -> None:
    env.set_parallelism(2)
    (
        env.from_collection(["a b", "b c a", "a"], type_info=Types.STRING())
        .flat_map(lambda line: line.split(), output_type=Types.STRING())
        .rebalance()
        .map(lambda w: (w, 1), output_type=WORD_N)
        .key_by(lambda t: t[0], key_type=Types.STRING())
        .sum(1)
        .map(lambda t: Row(word=t[0], n=t[1]), output_type=ROW)
        .rebalance()
        .map(lambda r: (r.word, r.n))  # untyped: pickled
        .print()
    )


def test_stage_outputs_carry_typed_columns_and_pickled_payloads() -> None:
    """The source stage run without Spark: its typed out-edge rows have a null payload and the
    chunk in column ``e0``; print rows of the last stage stay pickled."""
    env = StreamExecutionEnvironment.get_execution_environment()
    typed_word_count(env)
    graph = env.get_job_graph()
    specs = stage_specs(graph, None, effective_runtime_mode(graph))
    assert [sorted(s.typed) for s in specs] == [[0], [0, 1], [1, 2], [2, 3], [3]]
    assert [layout.spark_ddl for layout in specs[0].out_layouts()] == ["e0 array<string>"]
    source = specs[0]
    ids = pa.record_batch([pa.array([0], pa.int64())], names=["id"])
    (batch,) = list(stage_function(source)(iter([ids])))
    assert batch.schema == source.output_arrow_schema()
    rows = batch.to_pylist()
    data = [r for r in rows if r["payload"] is None]
    assert sorted(r["target"] for r in data) == [0, 1]  # REBALANCE to both subtasks
    assert sorted(line for r in data for line in r["e0"]) == ["a", "a b", "b c a"]
    assert all(r["payload"] == records.END_OF_PARTITION for r in rows if r["payload"] is not None)
    assert specs[3].out_layouts()[0].spark_ddl == "e3 array<struct<`word`:string,`n`:bigint>>"
    assert specs[4].out_layouts() == []


@pytest.mark.spark
def test_stage_struct_built_in_python_equals_spark_parsing_its_ddl(spark) -> None:
    """``mapInArrow`` gets the stage schema as a StructType built without the JVM: exactly what
    Spark parses from the DDL (names, types, nullability), for every kind of typed column."""
    from pyspark.sql.types import _parse_datatype_string

    env = StreamExecutionEnvironment.get_execution_environment()
    typed_word_count(env)
    env.from_collection(
        [(True, 1.5, 2)], type_info=Types.TUPLE([Types.BOOLEAN(), Types.DOUBLE(), Types.BYTE()])
    ).rebalance().map(lambda t: t, output_type=Types.SHORT()).rebalance().print()
    graph = env.get_job_graph()
    specs = stage_specs(graph, None, effective_runtime_mode(graph))
    assert len([s for s in specs if s.out_layouts()]) >= 5
    for spec in specs:
        assert spec.output_struct() == _parse_datatype_string(spec.output_ddl())


@pytest.mark.spark
def test_typed_pipeline_on_spark_equals_reference_and_plan_names_formats(spark) -> None:
    from pyflowkit.reference.local_driver import run_local
    from pyflowkit.spark.executor import execute

    env = StreamExecutionEnvironment.get_execution_environment()
    typed_word_count(env)
    graph = env.get_job_graph()
    result = execute(graph, spark=spark, print_output=False)
    # the records, not their subtasks: which subtask the last REBALANCE picks depends on the order
    # two producers' records reach the keyed sum, which each host interleaves its own way (Spark
    # by (seq, edge, producer), the local driver in one FIFO queue); routing itself agrees record
    # for record (tests/graph/test_routing_model.py)
    local = run_local(graph).printed
    assert sorted(x.split("> ", 1)[1] for x in result.print_lines) == sorted(
        x.split("> ", 1)[1] for x in local
    )
    assert sorted(line.split("> ")[1] for line in result.print_lines) == [
        "('a', 1)",
        "('a', 2)",
        "('a', 3)",
        "('b', 1)",
        "('b', 2)",
        "('c', 1)",
    ]
    formats = [e.record_format for e in result.spark_plan.edges]
    assert formats == [
        "typed column e0 array<string>",
        "typed column e1 array<string>",
        "typed column e2 array<struct<`f0`:string,`f1`:int>>",
        "typed column e3 array<struct<`word`:string,`n`:bigint>>",
    ]
    untyped = StreamExecutionEnvironment.get_execution_environment()
    untyped.from_collection([1, 2]).rebalance().map(lambda x: x).print()
    plan = execute(untyped.get_job_graph(), spark=spark, print_output=False).spark_plan
    assert [e.record_format for e in plan.edges] == ["pickled (PICKLED_BYTE_ARRAY)"]
