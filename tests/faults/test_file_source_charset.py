"""A file the FileSource cannot decode names the file and the line (issue 26: "UnicodeDecodeError
... byte 0xe9" without the file's name, restarting in silence on Spark).

Flink's Java reader would replace the bytes (``InputStreamReader``'s default); pyflowkit keeps
Python's strict decoding and says which file, which line and what to set: on the simulated
cluster, and on Spark (a monitored directory read by Spark's file source) in the JobClient's
exception and the CLI's status line, not only on stderr.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pyflowkit.common import Duration, WatermarkStrategy
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import FileSource, StreamFormat
from pyflowkit.errors import IllegalArgumentException, JobExecutionException
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.spark.executor import TextProgressLine
from tests.faults.helpers import chain_of


def _run(directory: Path, charset: str | None) -> object:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.set_restart_strategy(RestartStrategies.no_restart())
    fmt = (
        StreamFormat.text_line_format()
        if charset is None
        else StreamFormat.text_line_format(charset)
    )
    source = FileSource.for_record_stream_format(fmt, str(directory)).build()
    env.from_source(source, WatermarkStrategy.no_watermarks(), "files").print()
    run = MiniCluster(echo_print=False).submit(env)
    run.run()
    return run


@pytest.fixture()
def latin1_dir(tmp_path: Path) -> Path:
    (tmp_path / "ok.txt").write_text("one\ntwo\n", encoding="utf-8")
    (tmp_path / "zz-latin1.txt").write_bytes("caf\xe9\nna\xefve\n".encode("latin-1"))
    return tmp_path


def test_an_undecodable_file_fails_naming_the_file_and_line(latin1_dir: Path) -> None:
    run = _run(latin1_dir, None)
    assert run.job_status is JobStatus.FAILED
    error = next(c for c in chain_of(run.failure_cause) if isinstance(c, IllegalArgumentException))
    text = str(error)
    assert f"({str(latin1_dir / 'zz-latin1.txt')!r}) at line 1:" in text
    assert "'utf-8' codec can't decode byte 0xe9" in text
    assert "The file is not UTF-8: give its charset" in text


def test_the_right_charset_reads_it(latin1_dir: Path) -> None:
    run = _run(latin1_dir, "ISO-8859-1")
    assert run.job_status is JobStatus.FINISHED
    assert sorted(line.split("> ", 1)[-1] for line in run.printed()) == [
        "café",
        "naïve",
        "one",
        "two",
    ]


@pytest.mark.spark
def test_on_spark_the_job_client_and_status_line_name_the_file(spark, latin1_dir: Path) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.enable_checkpointing(100)
    env.set_restart_strategy(RestartStrategies.no_restart())
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(latin1_dir))
        .monitor_continuously(Duration.of_millis(100))
        .build()
    )
    env.from_source(source, WatermarkStrategy.no_watermarks(), "files").print()
    client = env.execute_async(spark=spark)
    stream = io.StringIO()
    client.job.listeners.append(TextProgressLine(stream))
    assert client.job.wait(timeout=300) == "FAILED"
    said = (
        f"({str(latin1_dir / 'zz-latin1.txt')!r}) at line 1: 'utf-8' codec can't decode byte 0xe9"
    )
    rule = "The file is not UTF-8: give its charset, e.g. StreamFormat.text_line_format("
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("Flink Streaming Job: FAILED") and said in last and rule in last
    vertex = "Source: files -> Sink: Print to Std. Out (1/1)"  # the chain the split failed in
    assert last.endswith(f"in {vertex}")
    with pytest.raises(JobExecutionException) as info:
        client.get_job_execution_result().result()
    assert said in str(info.value) and rule in str(info.value)
    assert f"failed in {vertex} on Spark. Recovery is suppressed by NoRestart" in str(info.value)
