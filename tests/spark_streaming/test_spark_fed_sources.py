"""Sources that run on Spark's own stream sources: a monitored FileSource (Spark's file stream
source enumerates the files; a resumed query never reads a committed file again) and
socket_text_stream (Spark's socket source), each feeding the source vertex's chain."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections import Counter
from typing import Any

import pytest

from pyflowkit.common import Configuration, Duration, Types, WatermarkStrategy
from pyflowkit.common.job_status import JobStatus
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import FileSource, StreamFormat
from pyflowkit.errors import IllegalArgumentException

pytestmark = pytest.mark.spark


def _env(parallelism: int, **conf: str) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.enable_checkpointing(300)  # the micro-batch trigger
    configuration = Configuration()
    for key, value in conf.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    return env


def _wait_for(job: Any, count: int, timeout: float = 120.0) -> list[str]:
    deadline = time.monotonic() + timeout
    while len(job.print_lines) < count and time.monotonic() < deadline:
        assert job.poll(0.2) == "RUNNING", job.error
    return list(job.print_lines)


def _drop(directory: Any, name: str, lines: list[str]) -> None:
    """Write a file the way a producer should: under a hidden name, then renamed in place."""
    hidden = directory / f".{name}.tmp"
    hidden.write_text("".join(f"{line}\n" for line in lines))
    os.replace(hidden, directory / name)


def _per_subtask(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in lines:
        subtask, body = line.split("> ", 1)
        out.setdefault(subtask, []).append(body)
    return out


def _file_job(env: StreamExecutionEnvironment, directory: Any) -> None:
    source = (
        FileSource.for_record_stream_format(StreamFormat.text_line_format(), str(directory))
        .monitor_continuously(Duration.of_millis(100))
        .build()
    )
    env.from_source(source, WatermarkStrategy.no_watermarks(), "files").map(
        lambda s: s.upper(), output_type=Types.STRING()
    ).print()


def test_monitored_file_source_reads_new_files_and_resumes_without_rereading(
    spark, tmp_path
) -> None:
    directory = tmp_path / "in"
    (directory / "sub").mkdir(parents=True)
    _drop(directory, "a.txt", ["a0", "a1", "a2"])
    _drop(directory / "sub", "b.txt", ["b0", "b1"])
    env = _env(2)
    _file_job(env, directory)
    client = env.execute_async(spark=spark)
    job = client.job
    assert "Spark file stream source" in str(job.plan)
    first = _wait_for(job, 5)
    # splits in Flink's enumeration order: a.txt is split 0 (subtask 1), sub/b.txt split 1
    assert _per_subtask(first) == {"1": ["A0", "A1", "A2"], "2": ["B0", "B1"]}
    _drop(directory, "c.txt", ["c0", "c1"])  # split 2 → subtask 1 again
    lines = _wait_for(job, 7)
    assert _per_subtask(lines)["1"] == ["A0", "A1", "A2", "C0", "C1"]
    savepoint = str(tmp_path / "savepoint")
    client.stop_with_savepoint(savepoint).result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    assert len(job.print_lines) == 7

    resumed = _env(2, **{"execution.savepoint.path": savepoint})
    _file_job(resumed, directory)
    second = resumed.execute_async(spark=spark)
    _drop(directory, "d.txt", ["d0", "d1", "d2"])  # split 3 → subtask 2
    again = _wait_for(second.job, 3)
    time.sleep(1.5)  # a few more micro-batches: nothing committed comes again
    second.job.poll(0)
    assert _per_subtask(list(second.job.print_lines)) == {"2": ["D0", "D1", "D2"]}
    assert again == ["2> D0", "2> D1", "2> D2"]
    second.cancel().result()


class LineServer:
    """Accepts one connection and sends ``lines`` one by one, then keeps it open."""

    def __init__(self, lines: list[str]) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.lines = lines
        self.done = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        with self.server:
            conn, _ = self.server.accept()
            with conn:
                for line in self.lines:
                    conn.sendall(f"{line}\n".encode())
                    time.sleep(0.05)
                self.done.wait(120)


LINES = ["to be or", "not to be", "that is", "the question to be"]


def test_socket_text_stream_runs_on_sparks_socket_source(spark) -> None:
    server = LineServer(LINES)
    env = _env(2)
    (
        env.socket_text_stream("127.0.0.1", server.port)
        .flat_map(
            lambda line: [(w, 1) for w in line.split()],
            output_type=Types.TUPLE([Types.STRING(), Types.INT()]),
        )
        .key_by(lambda w: w[0], key_type=Types.STRING())
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    client = env.execute_async(spark=spark)
    try:
        words = [w for line in LINES for w in line.split()]
        lines = _wait_for(client.job, len(words))
        assert "Spark socket source" in str(client.job.plan)
    finally:
        server.done.set()
        client.cancel().result()
    counts: dict[str, int] = {}
    expected = []
    for w in words:
        counts[w] = counts.get(w, 0) + 1
        expected.append(f"({w},{counts[w]})")
    bodies = [line.split("> ", 1)[1] for line in lines]
    assert Counter(bodies) == Counter(expected)
    for w in counts:  # per key in order: the lines reached the chain in arrival order
        mine = [b for b in bodies if b.startswith(f"({w},")]
        assert mine == [f"({w},{i})" for i in range(1, counts[w] + 1)]


def test_socket_source_on_spark_refuses_what_sparks_socket_source_cannot_do(spark) -> None:
    env = _env(1)
    env.socket_text_stream("127.0.0.1", 9, "|").print()
    with pytest.raises(IllegalArgumentException, match="splits lines at"):
        env.execute_async(spark=spark)
    env = _env(1)
    env.socket_text_stream("127.0.0.1", 9, "\n", 3).print()
    with pytest.raises(IllegalArgumentException, match="does not reconnect"):
        env.execute_async(spark=spark)


def test_a_socket_with_nothing_listening_fails_on_spark_naming_source_and_address(spark) -> None:
    """Issue 26, run for real: Spark's socket source finds nothing listening (checkpointing on).
    As Flink's ``SocketTextStreamFunction`` fails with ``ConnectException`` and restarts per its
    strategy, the job restarts once (fixed delay, 1 attempt) and then FAILS, the JobClient naming
    the source and the address, without Spark's query dump."""
    from pyflowkit.common.restart_strategy import RestartStrategies
    from pyflowkit.errors import JobExecutionException

    with socket.socket() as probe:  # a free port: bound, then closed, so nothing listens on it
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = _env(1)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1, 10))
    env.socket_text_stream("127.0.0.1", port).print()
    client = env.execute_async(spark=spark)
    assert client.job.wait(timeout=180) == "FAILED"
    said = (
        "java.net.ConnectException: Connection refused in Source: Socket Stream (1/1): nothing "
        f"listens on 127.0.0.1:{port} (start the server first, e.g. nc -lk {port})"
    )
    assert client.last_failure == said
    assert client.job.restarts == 1 and client.job.print_lines == []
    with pytest.raises(JobExecutionException) as info:
        client.get_job_execution_result().result()
    assert said in str(info.value)
    for dump in ("=== Streaming Query ===", "Logical Plan", "JVM stacktrace"):
        assert dump not in str(info.value)


def test_monitored_csv_file_source_over_a_directory_and_a_file(spark, tmp_path) -> None:
    from pyflowkit.datastream.formats.csv import CsvReaderFormat, CsvSchema

    directory = tmp_path / "in"
    (directory / "sub").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    _drop(directory, "a.csv", ["1,a", "2,b"])
    _drop(directory / "sub", "x.csv", ["3,c"])
    _drop(tmp_path, "single.csv", ["9,z"])
    _drop(tmp_path / "other", "single.csv", ["8,y"])  # same name, not the monitored file
    schema = CsvSchema.builder().add_number_column("id").add_string_column("name").build()
    source = (
        FileSource.for_record_stream_format(
            CsvReaderFormat.for_schema(schema), str(directory), str(tmp_path / "single.csv")
        )
        .monitor_continuously(Duration.of_millis(100))
        .build()
    )
    env = _env(1)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "csv").map(
        lambda row: f"{row[0]}:{row[1]}", output_type=Types.STRING()
    ).print()
    client = env.execute_async(spark=spark)
    try:
        lines = _wait_for(client.job, 4)
        time.sleep(1.0)  # later micro-batches add nothing
        client.job.poll(0)
        lines = list(client.job.print_lines)
    finally:
        client.cancel().result()
    # the CsvReaderFormat's rows, paths in Flink's enumeration order (the first path's files,
    # then the second path)
    assert lines == ["1:a", "2:b", "3:c", "9:z"]
