"""A CSV → JSON job built from PyFlink's formats, shared by the simulated-cluster and Spark tests."""

from __future__ import annotations

from pathlib import Path

from pyflowkit.common import Row, Types, WatermarkStrategy
from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    FileSink,
    FileSource,
    OutputFileConfig,
)
from pyflowkit.datastream.formats.csv import CsvBulkWriters, CsvReaderFormat, CsvSchema
from pyflowkit.datastream.formats.json import JsonRowSerializationSchema

PEOPLE_CSV = 'id|name|tags\n1|Alice|a,b\n# a comment\n2|"Bob|Jr"|\n3||x\n'
SCHEMA = (
    CsvSchema.builder()
    .add_number_column("id", number_type=Types.INT())
    .add_string_column("name")
    .add_array_column("tags", ",")
    .set_column_separator("|")
    .set_allow_comments()
    .set_use_header()
    .set_strict_headers()
    .build()
)
OUT_TYPE = Types.ROW_NAMED(
    ["id", "name", "tags"], [Types.INT(), Types.STRING(), Types.LIST(Types.STRING())]
)
EXPECTED_JSON = [
    '{"id":10,"name":"ALICE","tags":["a","b"]}',
    '{"id":20,"name":"BOB|JR","tags":[]}',
    '{"id":30,"name":"","tags":["x"]}',
]
EXPECTED_CSV = ["10|ALICE|a,b", '20|"BOB|JR"|', "30||x"]


def csv_to_json_job(env, src: Path, out: Path) -> None:  # noqa: ANN001
    """Read rows with CsvReaderFormat, write them back with CsvBulkWriters and as JSON text."""
    source = FileSource.for_record_stream_format(
        CsvReaderFormat.for_schema(SCHEMA), str(src)
    ).build()
    rows = env.from_source(source, WatermarkStrategy.no_watermarks(), "csv-source")
    upper = rows.map(
        lambda r: Row(id=r.id * 10, name=r.name.upper(), tags=r.tags), output_type=OUT_TYPE
    )
    config = OutputFileConfig.builder().with_part_suffix(".csv").build()
    upper.sink_to(
        FileSink.for_bulk_format(str(out / "csv"), CsvBulkWriters.for_schema(SCHEMA))
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .with_output_file_config(config)
        .build()
    )
    json_schema = JsonRowSerializationSchema.builder().with_type_info(OUT_TYPE).build()
    upper.map(lambda r: json_schema.serialize(r).decode(), output_type=Types.STRING()).print("json")
