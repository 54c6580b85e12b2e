"""PyFlink compatibility: signatures (keyword names) and PyFlink's own word-count example.

Signatures were compared with PyFlink 1.17.2 (``pyflink/datastream``, ``pyflink/common``).
"""

from __future__ import annotations

import inspect
import runpy
import sys
from pathlib import Path

import pytest

from pyflowkit.datastream import (
    AllWindowedStream,
    ConnectedStreams,
    DataStream,
    KeyedStream,
    StreamExecutionEnvironment,
    WindowedStream,
    window,
)
from pyflowkit.datastream.environment_capture import capture_environments
from pyflowkit.errors import ProgramAbortException

SIGNATURES = [
    (StreamExecutionEnvironment.from_collection, ["collection", "type_info"]),
    (StreamExecutionEnvironment.add_source, ["source_func", "source_name", "type_info"]),
    (
        StreamExecutionEnvironment.from_source,
        ["source", "watermark_strategy", "source_name", "type_info"],
    ),
    (StreamExecutionEnvironment.read_text_file, ["file_path", "charset_name"]),
    (StreamExecutionEnvironment.enable_checkpointing, ["interval", "mode"]),
    (StreamExecutionEnvironment.execute, ["job_name"]),
    (StreamExecutionEnvironment.execute_async, ["job_name"]),
    (StreamExecutionEnvironment.set_restart_strategy, ["restart_strategy_configuration"]),
    (StreamExecutionEnvironment.get_execution_environment, ["configuration"]),
    (DataStream.map, ["func", "output_type"]),
    (DataStream.flat_map, ["func", "output_type"]),
    (DataStream.filter, ["func"]),
    (DataStream.project, ["field_indexes"]),
    (DataStream.process, ["func", "output_type"]),
    (DataStream.key_by, ["key_selector", "key_type"]),
    (DataStream.partition_custom, ["partitioner", "key_selector"]),
    (DataStream.assign_timestamps_and_watermarks, ["watermark_strategy"]),
    (DataStream.get_side_output, ["output_tag"]),
    (DataStream.print, ["sink_identifier"]),
    (DataStream.add_sink, ["sink_func"]),
    (DataStream.sink_to, ["sink"]),
    (DataStream.execute_and_collect, ["job_execution_name", "limit"]),
    (DataStream.window_all, ["window_assigner"]),
    (DataStream.count_window_all, ["size", "slide"]),
    (DataStream.set_buffer_timeout, ["timeout_millis"]),
    (DataStream.slot_sharing_group, ["slot_sharing_group"]),
    (KeyedStream.sum, ["position_to_sum"]),
    (KeyedStream.min_by, ["position_to_min_by"]),
    (KeyedStream.count_window, ["size", "slide"]),
    (KeyedStream.window, ["window_assigner"]),
    (WindowedStream.reduce, ["reduce_function", "window_function", "output_type"]),
    (
        WindowedStream.aggregate,
        ["aggregate_function", "window_function", "accumulator_type", "output_type"],
    ),
    (WindowedStream.apply, ["window_function", "output_type"]),
    (WindowedStream.process, ["process_window_function", "output_type"]),
    (AllWindowedStream.process, ["process_window_function", "output_type"]),
    (WindowedStream.allowed_lateness, ["time_ms"]),
    (WindowedStream.side_output_late_data, ["output_tag"]),
    (AllWindowedStream.reduce, ["reduce_function", "window_function", "output_type"]),
    (ConnectedStreams.key_by, ["key_selector1", "key_selector2", "key_type"]),
    (ConnectedStreams.map, ["func", "output_type"]),
    (window.CountTrigger.of, ["window_size"]),
    (window.CountEvictor.of, ["max_count", "do_evict_after"]),
    (window.TumblingEventTimeWindows.of, ["size", "offset"]),
    (window.SlidingProcessingTimeWindows.of, ["size", "slide", "offset"]),
    (window.EventTimeSessionWindows, ["session_gap"]),
    (window.ProcessingTimeSessionWindows.with_gap, ["size"]),
    (window.DynamicEventTimeSessionWindows.with_dynamic_gap, ["extractor"]),
    (window.ContinuousEventTimeTrigger.of, ["interval"]),
]


@pytest.mark.parametrize(("fn", "names"), SIGNATURES, ids=[f.__qualname__ for f, _ in SIGNATURES])
def test_signatures_match_pyflink(fn, names) -> None:
    # pyflowkit's additions are keyword-only (e.g. execute(..., *, spark=None)), beside PyFlink's
    params = [
        name
        for name, p in inspect.signature(fn).parameters.items()
        if name != "self" and p.kind is not inspect.Parameter.KEYWORD_ONLY
    ]
    assert params == names


def test_defaults_match_pyflink() -> None:
    add_source = inspect.signature(StreamExecutionEnvironment.add_source).parameters
    assert add_source["source_name"].default == "Custom Source"
    assert inspect.signature(KeyedStream.count_window).parameters["slide"].default == 0
    assert (
        inspect.signature(window.TumblingEventTimeWindows.of).parameters["offset"].default is None
    )
    assert (
        inspect.signature(StreamExecutionEnvironment.read_text_file)
        .parameters["charset_name"]
        .default
        == "UTF-8"
    )


WORD_COUNT = Path(__file__).parent.parent / "connectors" / "pyflink_word_count.py"


def test_pyflink_word_count_compiles_with_only_imports_changed(monkeypatch, capsys) -> None:
    """PyFlink's word_count.py (tests/connectors/pyflink_word_count.py, imports changed only),
    run as ``__main__`` without arguments: the default-input job graph."""
    monkeypatch.setattr(sys, "argv", [str(WORD_COUNT)])
    with capture_environments() as capture:
        with pytest.raises(ProgramAbortException):
            runpy.run_path(str(WORD_COUNT), run_name="__main__")
    env = capture.last_environment()
    assert capture.job_names == [None]
    assert env.get_runtime_mode().name == "BATCH"
    job = env.get_job_graph()
    assert [(v.name, v.parallelism) for v in job.vertices] == [
        ("Source: Collection Source -> Flat Map -> Map", 1),
        ("Keyed Reduce -> Sink: Print to Std. Out", 1),
    ]
    assert [e.ship_strategy.name for e in job.vertices[1].inputs] == ["HASH"]
    assert "Printing result to stdout" in capsys.readouterr().out


def test_pyflink_word_count_imports_are_pyflinks_with_pyflowkit_only() -> None:
    imports = [
        line
        for line in WORD_COUNT.read_text().splitlines()
        if line.startswith(("from ", "import "))
    ]
    assert imports == [
        "import argparse",
        "import logging",
        "import sys",
        "from pyflowkit.common import WatermarkStrategy, Encoder, Types",
        "from pyflowkit.datastream import StreamExecutionEnvironment, RuntimeExecutionMode",
        "from pyflowkit.datastream.connectors import (FileSource, StreamFormat, FileSink, "
        "OutputFileConfig,",
    ]


def test_capture_records_environments_and_job_names() -> None:
    with capture_environments() as capture:
        env = StreamExecutionEnvironment.get_execution_environment()
        env.from_collection([1]).print()
        with pytest.raises(ProgramAbortException):
            env.execute("my job")
    assert capture.environments == [env] and capture.job_names == ["my job"]
    assert len(env.get_transformations()) == 1  # kept for inspection
    outside = StreamExecutionEnvironment.get_execution_environment()
    assert outside._capture is None


def test_missing_executor_is_a_clear_error(monkeypatch) -> None:
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import stream_execution_environment as see
    from pyflowkit.errors import IllegalStateException

    monkeypatch.setitem(see.EXECUTION_TARGETS, "local", "pyflowkit.runtime.no_such_executor")
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string("execution.target", "local")
    )
    env.from_collection([1]).print()
    with pytest.raises(
        IllegalStateException, match="execution.target 'local' is not available yet"
    ):
        env.execute()
    # as Flink's execute(): getStreamGraph(jobName, clearTransformations=true) ran before the
    # executor lookup failed
    assert env.get_transformations() == []


def test_state_descriptor_accessors_as_pyflink() -> None:
    from pyflowkit.datastream.functions import AggregateFunction
    from pyflowkit.datastream.state import AggregatingStateDescriptor, ReducingStateDescriptor

    class Count(AggregateFunction):
        def create_accumulator(self):
            return 0

        def add(self, value, accumulator):
            return accumulator + 1

        def get_result(self, accumulator):
            return accumulator

    def add(a, b):
        return a + b

    assert ReducingStateDescriptor("sum", add).get_reduce_function() is add
    count = Count()
    assert AggregatingStateDescriptor("n", count).get_agg_function() is count
