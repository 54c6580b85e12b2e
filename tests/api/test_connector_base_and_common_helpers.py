"""connectors.base (Source / Sink wrappers, DeliveryGuarantee, sink preprocessing),
VoidNamespaceSerializer, Configuration.parse_list_value, SourceFunction/SinkFunction('java')."""

from __future__ import annotations

import math
from io import BytesIO
from pathlib import Path

import pytest

from pyflowkit.common import Configuration, Encoder
from pyflowkit.common.serializer import VoidNamespaceSerializer
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import (
    DeliveryGuarantee,
    FileSink,
    FileSource,
    NumberSequenceSource,
    Sink,
    Source,
    StreamFormat,
)
from pyflowkit.datastream.connectors.base import StreamTransformer, SupportsPreprocessing
from pyflowkit.datastream.connectors.file_system import BucketAssigner
from pyflowkit.datastream.functions import SinkFunction, SourceFunction
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.runtime import MiniCluster
from tests.connectors.helpers import part_files


def test_connector_sources_and_sinks_are_the_unified_bases(tmp_path: Path) -> None:
    assert isinstance(NumberSequenceSource(1, 3), Source)
    assert isinstance(
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), "x").build(), Source
    )
    fs = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder()).build()
    assert isinstance(fs, Sink) and isinstance(fs, SupportsPreprocessing)
    assert fs.get_transformer() is None
    assert [g.name for g in DeliveryGuarantee] == ["EXACTLY_ONCE", "AT_LEAST_ONCE", "NONE"]


def test_source_and_sink_wrap_another_and_run_it(tmp_path: Path) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    inner = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
    inner = inner.with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build()
    from pyflowkit.common import WatermarkStrategy

    ds = env.from_source(Source(NumberSequenceSource(1, 6)), WatermarkStrategy.no_watermarks(), "n")
    ds.map(str).sink_to(Sink(inner))
    MiniCluster(echo_print=False).submit(env).run()
    lines = sorted(int(x) for p in part_files(tmp_path) for x in p.read_text().split())
    assert lines == [1, 2, 3, 4, 5, 6]
    with pytest.raises(UnsupportedOperationException, match=r"Source\('com.acme.Src'\).*JVM"):
        Source("com.acme.Src")
    with pytest.raises(IllegalArgumentException, match=r"Sink\(sink\) needs a unified sink"):
        Sink(object())


def test_sink_to_applies_the_sinks_preprocessing(tmp_path: Path) -> None:
    class Upper(StreamTransformer):
        def apply(self, ds):  # noqa: ANN001, ANN201
            return ds.map(str.upper)

    class UpperSink(Sink, SupportsPreprocessing):
        def get_transformer(self) -> StreamTransformer:
            return Upper()

    inner = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
    inner = inner.with_bucket_assigner(BucketAssigner.base_path_bucket_assigner()).build()
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.from_collection(["a", "b"]).sink_to(UpperSink(inner))
    MiniCluster(echo_print=False).submit(env).run()
    assert [p.read_text() for p in part_files(tmp_path)] == ["A\nB\n"]


def test_void_namespace_serializer_writes_nothing_and_reads_void() -> None:
    ser = VoidNamespaceSerializer()
    stream = BytesIO()
    ser.serialize(b"", stream)
    assert stream.getvalue() == b""
    assert ser.deserialize(BytesIO(b"rest")) == b""
    assert ser == VoidNamespaceSerializer() and hash(ser) == hash(VoidNamespaceSerializer())


def test_parse_list_value_reads_yaml_sequences_else_splits_on_semicolons() -> None:
    parse = Configuration.parse_list_value
    assert parse("") == []
    assert parse("a.jar;b.jar") == ["a.jar", "b.jar"]
    assert parse("[a.jar, 'b c.jar', \"d\\te\", 'it''s']") == ["a.jar", "b c.jar", "d\te", "it's"]
    assert parse("- file:///x.jar\n- 2\n- [1, {k: v}]  # comment") == [
        "file:///x.jar",
        2,
        [1, {"k": "v"}],
    ]
    # the YAML 1.2 core schema: on/yes stay strings, 0o/0x are ints
    values = parse("[1, 0x1F, 0o17, -1.5e1, true, False, null, ~, on, yes, .inf]")
    assert values == [1, 31, 15, -15.0, True, False, None, None, "on", "yes", math.inf]
    assert parse("[http://h:8/a.jar]") == ["http://h:8/a.jar"]
    assert parse("[a, b]", standard_yaml=False) == ["[a, b]"]
    assert parse("{a: b}") == ["{a: b}"]  # no sequence: split on ';'
    with pytest.raises(ValueError, match=r"missing '\]'"):
        parse("[a, b")
    with pytest.raises(ValueError, match="is not an entry of the block sequence"):
        parse("- a\nb")


def test_source_and_sink_function_refuse_java_class_names() -> None:
    with pytest.raises(UnsupportedOperationException, match=r"SourceFunction\('com.a.Src'\)"):
        SourceFunction("com.a.Src")
    with pytest.raises(UnsupportedOperationException, match=r"SinkFunction\(.*needs a JVM"):
        SinkFunction(sink_func="com.a.Snk")

    class Named(SourceFunction):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

        def run(self, ctx):  # noqa: ANN001, ANN201
            ctx.collect(self.name)

    assert Named("x").name == "x"  # a subclass's own string argument is its own business
