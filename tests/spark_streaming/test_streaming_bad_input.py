"""Bad input to the streaming executor gets an error naming the rule and the fix, before any
query starts (no Spark session needed): an unbounded source in BATCH mode (Flink's own text), an
unwritable checkpoint directory, another state store provider, a savepoint of another job or not
a savepoint at all."""

from __future__ import annotations

import os

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.spark.executor import runs_as_streaming_query
from pyflowkit.spark.streaming_job import checkpoint_location
from pyflowkit.spark.streaming_plan import ROCKSDB_PROVIDER, ensure_rocksdb
from pyflowkit.spark.streaming_progress import StreamingProgress, watermark_text
from pyflowkit.spark.streaming_savepoint import METADATA, restore_into, write_savepoint


class Numbers(SourceFunction):
    def run(self, ctx):
        yield from range(3)


def _graph(mode: RuntimeExecutionMode | None = None, mapped: bool = False, parallelism: int = 2):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if mode is not None:
        env.set_runtime_mode(mode)
    ds = env.add_source(Numbers(), "Numbers", Types.INT())
    if mapped:
        ds = ds.map(lambda x: x + 1, Types.INT())
    ds.key_by(lambda x: x % 2, key_type=Types.INT()).reduce(lambda a, b: a + b).print()
    return env.get_job_graph()


def test_unbounded_source_in_batch_mode_gets_flinks_error() -> None:
    with pytest.raises(ValueError) as info:
        runs_as_streaming_query(_graph(RuntimeExecutionMode.BATCH), {})
    assert str(info.value).startswith(
        "Detected an UNBOUNDED source with the 'execution.runtime-mode' set to 'BATCH'. This "
        "combination is not allowed, please set the 'execution.runtime-mode' to STREAMING or "
        "AUTOMATIC."
    )
    assert "'Source: Numbers'" in str(info.value)


def test_unbounded_jobs_and_forced_bounded_jobs_run_as_streaming_queries() -> None:
    assert runs_as_streaming_query(_graph(), {})
    assert runs_as_streaming_query(_graph(RuntimeExecutionMode.AUTOMATIC), {})
    env = StreamExecutionEnvironment.get_execution_environment()
    env.from_collection([1, 2]).print()
    bounded = env.get_job_graph()
    assert not runs_as_streaming_query(bounded, {})
    assert runs_as_streaming_query(bounded, {"pyflowkit.spark.streaming-query": "always"})


def test_unwritable_checkpoint_dir_names_the_key(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ValueError) as info:
        checkpoint_location({"state.checkpoints.dir": str(blocker / "chk")}, "abc")
    assert "Cannot write checkpoints to" in str(info.value)
    assert "Set 'state.checkpoints.dir' to a writable directory" in str(info.value)
    path, temporary = checkpoint_location({"state.checkpoints.dir": str(tmp_path)}, "job1")
    assert path == os.path.join(str(tmp_path), "job1") and not temporary
    path, temporary = checkpoint_location({}, "job2")
    assert temporary and os.path.isdir(path)


class _Conf:
    def __init__(self, value):
        self.values = (
            {} if value is None else {"spark.sql.streaming.stateStore.providerClass": value}
        )

    def get(self, key, default=None):
        return self.values.get(key, default)

    def set(self, key, value):
        self.values[key] = value


class _Session:
    def __init__(self, value):
        self.conf = _Conf(value)


def test_rocksdb_provider_is_set_or_another_one_refused() -> None:
    session = _Session(None)
    ensure_rocksdb(session)
    assert session.conf.values["spark.sql.streaming.stateStore.providerClass"] == ROCKSDB_PROVIDER
    hdfs = "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider"
    with pytest.raises(ValueError) as info:
        ensure_rocksdb(_Session(hdfs))
    assert "need the RocksDB state store" in str(info.value)
    assert f"Set it to {ROCKSDB_PROVIDER}" in str(info.value)


def test_savepoint_of_another_job_or_no_savepoint_is_refused(tmp_path) -> None:
    checkpoint = tmp_path / "chk"
    (checkpoint / "commits").mkdir(parents=True)
    (checkpoint / "commits" / "3").write_text("v1")
    savepoint = str(tmp_path / "sp")
    write_savepoint(str(checkpoint), savepoint, _graph(), "job-a")
    assert os.path.isfile(os.path.join(savepoint, METADATA))
    with pytest.raises(ValueError, match="is not empty"):
        write_savepoint(str(checkpoint), savepoint, _graph(), "job-a")
    restored = tmp_path / "restored"
    data = restore_into(savepoint, str(restored), _graph())
    assert data["last_batch"] == 3 and (restored / "commits" / "3").exists()
    assert not (restored / METADATA).exists()
    with pytest.raises(ValueError) as info:
        restore_into(savepoint, str(tmp_path / "other"), _graph(mapped=True))
    assert "Cannot map checkpoint/savepoint state for operator" in str(info.value)
    assert "because the operator is not available in the new program" in str(info.value)
    with pytest.raises(ValueError, match="not a savepoint of a pyflowkit streaming job"):
        restore_into(str(checkpoint), str(tmp_path / "x"), _graph())


def test_savepoint_at_another_parallelism_is_refused_before_anything_is_copied(tmp_path) -> None:
    checkpoint = tmp_path / "chk"
    (checkpoint / "commits").mkdir(parents=True)
    savepoint = str(tmp_path / "sp")
    write_savepoint(str(checkpoint), savepoint, _graph(parallelism=3), "job-a")
    target = tmp_path / "restored"
    with pytest.raises(ValueError) as info:
        restore_into(savepoint, str(target), _graph(parallelism=1))
    message = str(info.value)
    assert "the parallelism changed ('Keyed Reduce -> Sink: Print to Std. Out' 3 → 1" in message
    assert "restores only at the parallelism it was saved at" in message
    assert not target.exists()
    restore_into(savepoint, str(target), _graph(parallelism=3))  # same parallelism: restores
    assert (target / "commits").is_dir()


def test_progress_line_in_flinks_words() -> None:
    assert watermark_text(None) == "No Watermark"
    assert watermark_text(-(2**63)) == "No Watermark"
    assert watermark_text(2**63 - 1) == "MAX_WATERMARK"
    p = StreamingProgress("clicks", "id", "RUNNING", batch_id=4, batch_duration_ms=812)
    p.source_records_per_second = 1234.4
    p.watermarks = {"Keyed Reduce -> Sink: Print to Std. Out": 17}
    p.state_rows, p.printed_lines = 2048, 99
    assert p.line() == (
        "clicks: RUNNING · batch 4 (812 ms), 1,234 records/s · watermark 17 at Keyed Reduce -> "
        "Sink: Print to Std. Out · 2,048 state rows · 99 lines printed"
    )
    assert p.to_dict()["watermarks"] == {"Keyed Reduce -> Sink: Print to Std. Out": "17"}


class _Query:
    lastProgress = {  # noqa: N815 (Spark's name)
        "batchId": 7,
        "numInputRows": 3,
        "batchDuration": 500,
        "inputRowsPerSecond": 6.0,
        "processedRowsPerSecond": 6.0,
        "sources": [
            {
                "startOffset": '{"batch": 6, "subtasks": [{"pos": 100}, {"pos": 90}]}',
                "endOffset": {"batch": 7, "subtasks": [{"pos": 1100}, {"pos": 1090}]},
            }
        ],
        "stateOperators": [{"numRowsTotal": 12}, {"numRowsTotal": 30, "memoryUsedBytes": 5}],
    }


class _Job:
    job_name, job_id, status, batches, restarts = "j", "id", "RUNNING", 8, 0
    checkpoint_location = "/chk"
    query = _Query()

    def flink_watermarks(self):
        return {"Keyed Reduce": 41}

    def printed_tail(self, n):
        return 5, ["a", "b"]

    def metric_values(self):
        return {"Map (1/2)": {"Map.n": 3}}


def test_progress_counts_spark_own_sources_by_their_input_rows() -> None:
    """Spark's file/socket source: no reader positions in its offsets, Spark counts its rows."""

    class FileQuery(_Query):
        lastProgress = {  # noqa: N815 (Spark's name)
            **_Query.lastProgress,
            "sources": [
                {
                    "startOffset": {"logOffset": 2},
                    "endOffset": {"logOffset": 3},
                    "numInputRows": 40,
                },
                {"startOffset": 4, "endOffset": 9, "numInputRows": 5},  # a socket source
                *_Query.lastProgress["sources"],
            ],
        }

    class FileJob(_Job):
        query = FileQuery()

    p = StreamingProgress.of(FileJob())
    assert p.source_records == 2045 and p.source_records_per_second == 4090.0


def test_progress_of_a_job_counts_source_records_from_the_offsets() -> None:
    p = StreamingProgress.of(_Job())
    assert (p.batch_id, p.input_rows, p.batch_duration_ms) == (7, 3, 500)
    assert p.source_records == 2000 and p.source_records_per_second == 4000.0
    assert p.state_rows == 42 and p.state_memory_bytes == 5
    assert p.watermarks == {"Keyed Reduce": 41} and p.latest_lines == ["a", "b"]
    assert p.metrics == {"Map (1/2)": {"Map.n": 3}} == p.to_dict()["metrics"]


def test_savepoint_whose_operator_ids_match_another_job_is_refused(tmp_path) -> None:
    """Flink's operator ids come from the graph's shape, so two different jobs can share them;
    the savepoint's operator names tell them apart."""
    checkpoint = tmp_path / "chk"
    checkpoint.mkdir()
    savepoint = str(tmp_path / "sp")
    write_savepoint(str(checkpoint), savepoint, _graph(), "job-a")
    env = StreamExecutionEnvironment.get_execution_environment()
    ds = env.add_source(Numbers(), "Numbers", Types.INT())
    ds.key_by(lambda x: x % 2, key_type=Types.INT()).map(lambda x: x, Types.INT()).print()
    with pytest.raises(ValueError) as info:
        restore_into(savepoint, str(tmp_path / "new"), env.get_job_graph())
    assert "a savepoint of another job" in str(info.value)
    assert "is 'Map' in this job but was 'Keyed Reduce'" in str(info.value)
    assert "(in 'Keyed Reduce -> Sink: Print to Std. Out')" in str(info.value)


class _Running:
    """A started query that has run no batch yet."""

    lastProgress = None
    status = {"isTriggerActive": False}

    def awaitTermination(self, timeout):
        return False

    def exception(self):
        return None


def test_drain_of_a_job_reading_sparks_own_socket_source_is_refused_before_it_stops() -> None:
    from pyflowkit.spark.streaming_job import StreamingJob, StreamingSettings

    env = StreamExecutionEnvironment.get_execution_environment()
    env.socket_text_stream("localhost", 9999).map(str.upper, Types.STRING()).print()
    job = StreamingJob(None, env.get_job_graph(), {}, StreamingSettings())
    job.status, job.query = "RUNNING", _Running()
    with pytest.raises(ValueError) as info:
        job.stop_with_savepoint("/tmp/never-written", drain=True)
    assert "reads Spark's own socket source, which cannot emit MAX_WATERMARK and end" in str(
        info.value
    )
    assert "Use drain=False" in str(info.value)
    assert job.status == "RUNNING" and not os.path.exists("/tmp/never-written")


def test_cut_logs_keeps_commits_and_plans_to_the_last_emitted_batch(tmp_path) -> None:
    from pyflowkit.spark.streaming_savepoint import cut_logs, last_batch, planned_batch

    for log, batches in (("commits", range(0, 6)), ("offsets", range(0, 7))):
        (tmp_path / log).mkdir()
        for b in batches:
            (tmp_path / log / str(b)).write_text("v1")
            (tmp_path / log / f".{b}.crc").write_text("crc")
    cut_logs(str(tmp_path), 3)
    assert last_batch(str(tmp_path)) == 3 and planned_batch(str(tmp_path)) == 3
    assert sorted(os.listdir(tmp_path / "commits")) == sorted(
        [str(b) for b in range(4)] + [f".{b}.crc" for b in range(4)]
    )
    assert not (tmp_path / "offsets" / ".5.crc").exists()
