"""PyFlink's formats: CSV and JSON row schemas, CsvSchema, CsvReaderFormat, CsvBulkWriters."""

from __future__ import annotations

import decimal
from typing import Any

import pytest

from pyflowkit.common import Encoder, Row, SimpleStringSchema, Types
from pyflowkit.common.serialization import DeserializationSchema, SerializationSchema
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import FileSink, OutputFileConfig, RollingPolicy
from pyflowkit.datastream.formats.csv import (
    CsvBulkWriters,
    CsvReaderFormat,
    CsvRowDeserializationSchema,
    CsvRowSerializationSchema,
    CsvSchema,
)
from pyflowkit.datastream.formats.json import (
    JsonRowDeserializationSchema,
    JsonRowSerializationSchema,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import MiniCluster
from tests.connectors.format_jobs import (
    EXPECTED_CSV,
    EXPECTED_JSON,
    PEOPLE_CSV,
    SCHEMA,
    csv_to_json_job,
)
from tests.connectors.helpers import part_files

ROW = Types.ROW_NAMED(
    ["name", "n", "score", "ok", "tags"],
    [Types.STRING(), Types.LONG(), Types.DOUBLE(), Types.BOOLEAN(), Types.BASIC_ARRAY(Types.INT())],
)


def test_json_round_trip_compact_nested_and_missing_fields() -> None:
    t = Types.ROW_NAMED(["a", "inner"], [Types.INT(), Types.ROW_NAMED(["s"], [Types.STRING()])])
    ser = JsonRowSerializationSchema.builder().with_type_info(t).build()
    assert isinstance(ser, SerializationSchema)
    data = ser.serialize(Row(a=1, inner=Row(s="x")))
    assert data == b'{"a":1,"inner":{"s":"x"}}'
    de = JsonRowDeserializationSchema.builder().type_info(t).build()
    assert isinstance(de, DeserializationSchema)
    back = de.deserialize(data)
    assert back == Row(a=1, inner=Row(s="x")) and back.inner.s == "x"
    assert de.deserialize(b'{"a":2}') == Row(a=2, inner=None)  # missing field: null
    strict = JsonRowDeserializationSchema.builder().type_info(t).fail_on_missing_field().build()
    with pytest.raises(ValueError, match="Could not find field with name 'inner'"):
        strict.deserialize(b'{"a":2}')
    with pytest.raises(ValueError, match="Failed to deserialize JSON"):
        de.deserialize(b'{"a":"x"}')
    lenient = JsonRowDeserializationSchema.builder().type_info(t).ignore_parse_errors().build()
    assert lenient.deserialize(b"not json") is None
    with pytest.raises(ValueError, match="failOnMissingField and ignoreParseErrors"):
        JsonRowDeserializationSchema.builder().type_info(
            t
        ).fail_on_missing_field().ignore_parse_errors().build()


def test_json_schema_string_gives_the_row_type() -> None:
    schema = (
        '{"type":"object","properties":{"id":{"type":"integer"},"price":{"type":"number"},'
        '"tags":{"type":"array","items":{"type":"string"}}}}'
    )
    de = JsonRowDeserializationSchema.builder().json_schema(schema).build()
    assert de.get_produced_type() == Types.ROW_NAMED(
        ["id", "price", "tags"],
        [Types.BIG_INT(), Types.BIG_DEC(), Types.OBJECT_ARRAY(Types.STRING())],
    )
    row = de.deserialize(b'{"id":7,"price":1.5,"tags":["a"]}')
    assert row == Row(id=7, price=decimal.Decimal("1.5"), tags=["a"])
    with pytest.raises(ValueError, match="needs a row type"):
        JsonRowSerializationSchema.builder().with_type_info(Types.INT())


def test_csv_row_schemas_quote_escape_null_and_arrays() -> None:
    ser = CsvRowSerializationSchema.Builder(ROW).build()
    assert ser.serialize(Row(name='a,"b"', n=1, score=0.5, ok=True, tags=[1, 2])) == (
        b'"a,""b""",1,0.5,true,1;2\n'
    )
    custom = (
        CsvRowSerializationSchema.Builder(ROW)
        .set_field_delimiter("\t")
        .set_line_delimiter("\r\n")
        .set_array_element_delimiter("|")
        .set_null_literal("NULL")
        .disable_quote_character()
        .build()
    )
    assert custom.serialize(Row(name="a,b", n=None, score=1.0, ok=False, tags=[3])) == (
        b"a,b\tNULL\t1.0\tfalse\t3\r\n"
    )
    with pytest.raises(ValueError, match="Unsupported new line delimiter"):
        CsvRowSerializationSchema.Builder(ROW).set_line_delimiter(";")
    de = CsvRowDeserializationSchema.Builder(ROW).set_null_literal("NULL").build()
    row = de.deserialize(b'"a,""b""",NULL,0.5,TRUE,1;2')
    assert row == Row(name='a,"b"', n=None, score=0.5, ok=True, tags=[1, 2]) and row.n is None
    with pytest.raises(ValueError, match=r"Failed to deserialize CSV row .*field 'n'"):
        de.deserialize(b"a,x,0.5,true,1")
    lenient = CsvRowDeserializationSchema.Builder(ROW).set_ignore_parse_errors(True).build()
    assert lenient.deserialize(b"a,x,0.5,true,1") is None
    comments = CsvRowDeserializationSchema.Builder(ROW).set_allow_comments(True).build()
    assert comments.deserialize(b"# note") is None
    with pytest.raises(ValueError, match="nested rows"):
        CsvRowSerializationSchema.Builder(Types.ROW([Types.ROW([Types.INT()])]))


def test_simple_string_schema_is_both_schemas() -> None:
    s = SimpleStringSchema()
    assert isinstance(s, SerializationSchema) and isinstance(s, DeserializationSchema)
    assert s.deserialize(s.serialize("héllo")) == "héllo"


def test_csv_schema_builder_columns_settings_and_type() -> None:
    b = CsvSchema.builder().add_number_column("id").add_boolean_column("ok")
    assert b.size() == 2 and len(b) == 2
    other = (
        CsvSchema.builder().add_string_column("s").add_array_column("xs", "/", Types.INT()).build()
    )
    schema = b.add_columns_from(other).build()
    assert schema.size() == 4
    assert schema.get_type_info() == Types.ROW_NAMED(
        ["id", "ok", "s", "xs"],
        [Types.LONG(), Types.BOOLEAN(), Types.STRING(), Types.LIST(Types.INT())],
    )
    assert CsvSchema.builder().add_string_column("a").clear_columns().size() == 0
    for bad in (
        lambda: CsvSchema.builder().set_column_separator("||"),
        lambda: CsvSchema.builder().set_quote_char(""),
        lambda: CsvSchema.builder().set_escape_char("ab"),
    ):
        with pytest.raises(ValueError, match="must be a single char"):
            bad()
    with pytest.raises(ValueError, match="duplicate column 'a'"):
        CsvSchema.builder().add_string_column("a").add_string_column("a")


def _read(tmp_path, schema: CsvSchema, text: str) -> list[Any]:
    p = tmp_path / "in.csv"
    p.write_text(text)
    fmt = CsvReaderFormat.for_schema(schema)
    with fmt.open(str(p)) as f:
        return list(fmt.read_records(f))


def test_csv_reader_format_header_skip_extra_columns_and_separators(tmp_path) -> None:
    base = CsvSchema.builder().add_string_column("a").add_number_column("b", Types.INT())
    assert _read(tmp_path, base.build(), "x,1\ny,\n") == [Row(a="x", b=1), Row(a="y", b=None)]
    skip = CsvSchema.builder().add_columns_from(base.build()).set_skip_first_data_row().build()
    assert _read(tmp_path, skip, "x,1\ny,2\n") == [Row(a="y", b=2)]
    strict = (
        CsvSchema.builder().add_columns_from(base.build()).set_use_header().set_strict_headers()
    )
    with pytest.raises(ValueError, match=r"mismatched header \['a', 'c'\]"):
        _read(tmp_path, strict.build(), "a,c\nx,1\n")
    with pytest.raises(ValueError, match="Too many entries: expected at most 2"):
        _read(tmp_path, base.build(), "x,1,extra\n")
    anyprop = CsvSchema.builder().add_columns_from(base.build()).set_any_property_name("rest")
    assert _read(tmp_path, anyprop.build(), "x,1,extra\n") == [Row(a="x", b=1)]
    nulls = CsvSchema.builder().add_columns_from(base.build()).set_null_value("-").build()
    assert _read(tmp_path, nulls, "-,2\n") == [Row(a=None, b=2)]
    arr = CsvSchema.builder().add_array_column("xs", element_type=Types.INT()).build()
    assert _read(tmp_path, arr, "1;2;3\n") == [Row(xs=[1, 2, 3])]
    whole = CsvSchema.builder().add_array_column("xs").remove_array_element_separator(0).build()
    assert _read(tmp_path, whole, "1;2\n") == [Row(xs=["1;2"])]
    esc = CsvSchema.builder().add_string_column("a").disable_quote_char().set_escape_char("\\")
    assert _read(tmp_path, esc.build(), 'a\\,b"\n') == [Row(a='a,b"')]


def test_bulk_sink_rolls_only_on_checkpoints(tmp_path) -> None:
    factory = CsvBulkWriters.for_schema(SCHEMA)
    assert factory.get_row_type() == SCHEMA.get_type_info()
    sink = FileSink.for_bulk_format(str(tmp_path), factory).build()
    assert type(sink.rolling_policy).__name__ == "OnCheckpointRollingPolicy"
    with pytest.raises(IllegalArgumentException, match="bulk formats roll on every checkpoint"):
        FileSink.for_bulk_format(str(tmp_path), factory).with_rolling_policy(
            RollingPolicy.default_rolling_policy()
        )
    with pytest.raises(IllegalArgumentException, match="needs a BulkWriterFactory"):
        FileSink.for_bulk_format(str(tmp_path), SimpleStringSchema())
    assert FileSink.BulkFormatBuilder is type(FileSink.for_bulk_format(str(tmp_path), factory))
    row_builder = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
    assert isinstance(row_builder, FileSink.BaseBuilder) and isinstance(
        row_builder, FileSink.RowFormatBuilder
    )
    config = OutputFileConfig.OutputFileConfigBuilder().with_part_prefix("p").build()
    sink = row_builder.with_output_file_config(config).with_bucket_check_interval(5).build()
    assert (sink.output_file_config.get_part_prefix(), sink.bucket_check_interval) == ("p", 5)
    with pytest.raises(IllegalArgumentException, match="RowFormatBuilder.with_rolling_policy"):
        row_builder.with_rolling_policy("roll")


def _written(out) -> list[str]:
    return sorted(line for p in part_files(out / "csv") for line in p.read_text().splitlines())


def _json(printed: list[str]) -> list[str]:
    return sorted(line.split("> ", 1)[1] for line in printed if line.startswith("json"))


def test_csv_source_to_csv_and_json_sinks_on_the_simulated_cluster(tmp_path) -> None:
    src = tmp_path / "people.csv"
    src.write_text(PEOPLE_CSV)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    csv_to_json_job(env, src, tmp_path)
    run = MiniCluster(seed=0).submit(env, "formats").run()
    assert _json(run.printed()) == sorted(EXPECTED_JSON)
    assert _written(tmp_path) == sorted(EXPECTED_CSV)


def test_csv_source_to_csv_and_json_sinks_on_spark(spark: Any, tmp_path, capsys) -> None:
    src = tmp_path / "people.csv"
    src.write_text(PEOPLE_CSV)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    csv_to_json_job(env, src, tmp_path)
    env.execute("formats on spark", spark=spark)
    assert _json(capsys.readouterr().out.splitlines()) == sorted(EXPECTED_JSON)
    assert _written(tmp_path) == sorted(EXPECTED_CSV)


def test_a_restored_csv_reader_resumes_at_the_next_row(tmp_path) -> None:
    from pyflowkit.datastream.connectors.file_system import FileSource

    src = tmp_path / "people.csv"
    src.write_text(PEOPLE_CSV)
    source = FileSource.for_record_stream_format(CsvReaderFormat.for_schema(SCHEMA), str(src))
    reader = source.build().create_reader(0, 1)
    assert [r for r, _ in reader.poll(1)] == [Row(id=1, name="Alice", tags=["a", "b"])]
    position = reader.snapshot_position()
    reader.close()
    restored = source.build().create_reader(0, 1)
    restored.restore_position(position)
    assert [r.id for r, _ in restored.poll(10)] == [2, 3]
