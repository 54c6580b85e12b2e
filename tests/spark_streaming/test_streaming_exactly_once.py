"""Exactly-once sinks on streaming Spark: a query killed mid-stream by a UDF that raises once
(a marker file remembers it) restarts from its checkpoint; the FileSink's finished part files and
a two-phase-commit sink's committed transactions then hold exactly the uninterrupted output.
A transaction is named by the sink subtask's checkpoint (= micro-batch) count, so a replayed
micro-batch pre-commits and commits the same transaction again, which is a no-op."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Configuration, Encoder, Types
from pyflowkit.common.job_status import JobStatus
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import FileSink, RollingPolicy
from pyflowkit.datastream.functions import MapFunction, SourceFunction
from pyflowkit.runtime.two_phase_commit import TwoPhaseCommitSinkFunction
from tests.connectors.helpers import part_files

pytestmark = pytest.mark.spark

EVENTS = [f"e{i:02d}" for i in range(24)]


class FailOnce(MapFunction):
    """Raises once, the first time it sees ``at`` (a marker file remembers it failed)."""

    def __init__(self, marker: str, at: str) -> None:
        self.marker = marker
        self.at = at

    def map(self, value: str) -> str:
        if value == self.at and not os.path.exists(self.marker):
            Path(self.marker).write_text("failed once")
            raise RuntimeError("injected failure")
        return value.upper()


class FileTransactionSink(TwoPhaseCommitSinkFunction):
    """A ``TwoPhaseCommitSinkFunction`` on a directory (the "external system"): pre-commit writes
    ``pending/<txn>.json``, commit publishes ``committed/<txn>.json`` (once: idempotent), abort
    drops the pending file. Transaction ``txn-<n>`` is the subtask's n-th since the job started;
    the last one is committed at end of input (Flink's final checkpoint, FLIP-147)."""

    def __init__(self, directory: str) -> None:
        super().__init__()
        self.directory = directory
        self.seq = 0

    def initialize_state(self, context: Any) -> None:
        self.seq = 0
        if context.is_restored():
            state = context.get_operator_state_store().get_list_state("state")
            for entry in state.get():
                self.seq = max(self.seq, entry["pending_transaction"]["seq"])
        super().initialize_state(context)

    def _path(self, kind: str, txn: dict[str, Any]) -> Path:
        folder = Path(self.directory, kind)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{txn['id']}.json"

    def begin_transaction(self) -> dict[str, Any]:
        self.seq += 1
        return {"id": f"txn-{self.seq:04d}", "seq": self.seq, "records": []}

    def invoke_txn(self, transaction: Any, value: Any, context: Any) -> None:
        transaction["records"].append(value)

    def pre_commit(self, transaction: Any) -> None:
        self._path("pending", transaction).write_text(json.dumps(transaction["records"]))

    def commit(self, transaction: Any) -> None:
        final = self._path("committed", transaction)
        if not final.exists():
            tmp = final.with_suffix(".tmp")
            tmp.write_text(json.dumps(transaction["records"]))
            os.replace(tmp, final)
        self._path("pending", transaction).unlink(missing_ok=True)

    def abort(self, transaction: Any) -> None:
        self._path("pending", transaction).unlink(missing_ok=True)

    def finish_transaction(self, transaction: Any) -> None:
        self.commit(transaction)


class Events(SourceFunction):
    """EVENTS, with a pause before each (so a query can be killed mid-stream)."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    def run(self, ctx: Any) -> Any:
        for event in EVENTS:
            time.sleep(self.pause)
            yield event


def _committed(directory: Path) -> Counter:
    out: Counter = Counter()
    for f in sorted((directory / "committed").glob("*.json")):
        out.update(json.loads(f.read_text()))
    return out


def test_file_sink_and_two_phase_commit_exactly_once_after_a_failure(spark, tmp_path) -> None:
    from pyflowkit.spark.executor import execute

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    configuration = Configuration()
    for key, value in {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.trigger": "available-now",
        "pyflowkit.spark.streaming.max-records-per-batch": "3",
        "state.checkpoints.dir": str(tmp_path / "chk"),
    }.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    files, transactions = tmp_path / "files", tmp_path / "txn"
    upper = (
        env.add_source(Events(0.0), "Events", Types.STRING())
        .key_by(lambda e: e, key_type=Types.STRING())
        .map(FailOnce(str(tmp_path / "marker"), at="e13"), output_type=Types.STRING())
    )
    upper.sink_to(
        FileSink.for_row_format(str(files), Encoder.simple_string_encoder())
        .with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy())
        .build()
    )
    upper.add_sink(FileTransactionSink(str(transactions))).set_parallelism(1)
    result = execute(env, spark=spark, print_output=False)
    assert (tmp_path / "marker").exists()  # it did fail once, mid-stream
    assert result.job_status == "FINISHED"
    expected = Counter(e.upper() for e in EVENTS)
    lines = Counter(line for f in part_files(files) for line in f.read_text().splitlines())
    assert lines == expected
    assert len(part_files(files)) > 2  # a part per subtask and micro-batch with records
    assert _committed(transactions) == expected
    assert not list((transactions / "pending").glob("*.json"))  # nothing left pre-committed
    assert len(list((transactions / "committed").glob("*.json"))) > 2


def _sinks_env(conf: dict[str, str], tmp_path: Path, pause: float) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    configuration = Configuration()
    for key, value in {
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "3",
        **conf,
    }.items():
        configuration.set_string(key, value)
    env.configure(configuration)
    upper = (
        env.add_source(Events(pause), "Events", Types.STRING())
        .key_by(lambda e: e, key_type=Types.STRING())
        .map(str.upper, output_type=Types.STRING())
    )
    upper.sink_to(
        FileSink.for_row_format(str(tmp_path / "files"), Encoder.simple_string_encoder())
        .with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy())
        .build()
    )
    upper.add_sink(FileTransactionSink(str(tmp_path / "txn"))).set_parallelism(1)
    upper.print("p")
    return env


def _part_lines(tmp_path: Path) -> Counter:
    return Counter(
        line for f in part_files(tmp_path / "files") for line in f.read_text().splitlines()
    )


def test_stop_with_savepoint_commits_the_sinks_and_resuming_completes_exactly_once(
    spark, tmp_path
) -> None:
    """Flink commits a stop-with-savepoint's pre-committed output before the job ends: the part
    files and transactions hold exactly what the stopped job printed; the job resumed from the
    savepoint completes the output, each record once."""
    client = _sinks_env({}, tmp_path, pause=0.1).execute_async(spark=spark)
    job = client.job
    deadline = time.monotonic() + 120
    while len(job.print_lines) < 6 and time.monotonic() < deadline:
        assert job.poll(0.1) == "RUNNING", job.error
    savepoint = str(tmp_path / "savepoint")
    client.stop_with_savepoint(savepoint).result()
    assert client.get_job_status().result() is JobStatus.FINISHED
    printed = Counter(line.split("> ", 1)[1] for line in job.print_lines)
    assert 6 <= sum(printed.values()) < len(EVENTS)
    assert _part_lines(tmp_path) == printed  # committed at the stop, nothing more
    assert _committed(tmp_path / "txn") == printed

    resumed = _sinks_env(
        {
            "pyflowkit.spark.streaming.trigger": "available-now",
            "execution.savepoint.path": savepoint,
        },
        tmp_path,
        pause=0.0,
    )
    assert resumed.execute(spark=spark).job_status == "FINISHED"
    expected = Counter(e.upper() for e in EVENTS)
    assert _part_lines(tmp_path) == expected
    assert _committed(tmp_path / "txn") == expected
