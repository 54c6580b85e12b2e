"""FileSource.for_bulk_file_format (a Python BulkFormat read in batches, restored by position),
file enumerators and the split assigner."""

from __future__ import annotations

import struct
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors import (
    FileEnumeratorProvider,
    FileSource,
    FileSplitAssignerProvider,
    StreamFormat,
)
from pyflowkit.datastream.connectors.file_system import BulkFormat
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster
from pyflowkit.runtime.predicates import all_tasks_in, checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionalListSink, TransactionStore


class Int32Batches(BulkFormat):
    """Big-endian int32 records, read 3 at a time."""

    def read_batches(self, path: str) -> Any:
        data = Path(path).read_bytes()
        values = [v for (v,) in struct.iter_unpack(">i", data)]
        for i in range(0, len(values), 3):
            yield values[i : i + 3]

    def get_produced_type(self) -> Any:
        return Types.INT()


def _files(tmp_path: Path, n_files: int = 4, per_file: int = 10) -> list[int]:
    values = []
    for f in range(n_files):
        chunk = [f * 100 + i for i in range(per_file)]
        (tmp_path / f"f{f}.bin").write_bytes(b"".join(struct.pack(">i", v) for v in chunk))
        values.extend(chunk)
    (tmp_path / ".hidden.bin").write_bytes(struct.pack(">i", -1))
    (tmp_path / "_tmp.bin").write_bytes(struct.pack(">i", -2))
    return values


def test_bulk_format_reads_every_record_of_visible_files(tmp_path: Path) -> None:
    values = _files(tmp_path)
    source = FileSource.for_bulk_file_format(Int32Batches(), str(tmp_path)).build()
    assert source.get_produced_type() == Types.INT()
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    out: list[int] = []
    env.from_source(source, WatermarkStrategy.no_watermarks(), "bulk").add_sink(out.append)
    MiniCluster(echo_print=False).submit(env).run()
    assert sorted(out) == sorted(values)


def test_bulk_format_task_failure_resumes_at_the_position(tmp_path: Path) -> None:
    values = _files(tmp_path, per_file=30)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    store = TransactionStore()
    source = FileSource.for_bulk_file_format(Int32Batches(), str(tmp_path)).build()
    env.from_source(source, WatermarkStrategy.no_watermarks(), "bulk").add_sink(
        TransactionalListSink(store)
    )
    run = MiniCluster(echo_print=False, source_batch=1, seed=2).submit(env)
    run.run_until(checkpoint_completed())
    run.run_until(all_tasks_in(ExecutionState.RUNNING))
    vertex = next(v.name for v in run.job_graph.vertices if "bulk" in v.name)
    run.fail_task(vertex, 0, cause=RuntimeError("injected"))
    run.run_until(job_finished())
    assert run.job_status is JobStatus.FINISHED
    assert any("from latest valid checkpoint" in e.message for e in run.trace)
    store.commit_final_transactions()
    assert Counter(store.committed) == Counter(values)


def test_enumerators_and_assigner_configure_the_source(tmp_path: Path) -> None:
    _files(tmp_path)
    fmt = StreamFormat.text_line_format()
    default = FileSource.for_record_stream_format(fmt, str(tmp_path)).build()
    assert repr(default.file_enumerator) == "NonSplittingRecursiveEnumerator"
    source = (
        FileSource.for_bulk_file_format(Int32Batches(), str(tmp_path))
        .set_file_enumerator(FileEnumeratorProvider.default_splittable_file_enumerator())
        .set_split_assigner(FileSplitAssignerProvider.locality_aware_split_assigner())
        .build()
    )
    assert "BlockSplittingRecursiveEnumerator, LocalityAwareSplitAssigner" in repr(source)
    # a local file is one block: one split per visible file, handed out in enumeration order
    reader0 = source.create_reader(0, 2)
    reader1 = source.create_reader(1, 2)
    assert [Path(s.path).name for s in reader0.splits] == ["f0.bin", "f2.bin"]
    assert [Path(s.path).name for s in reader1.splits] == ["f1.bin", "f3.bin"]
    with pytest.raises(IllegalArgumentException, match="needs a FileEnumeratorProvider"):
        FileSource.for_record_stream_format(fmt, str(tmp_path)).set_file_enumerator("all")
    with pytest.raises(IllegalArgumentException, match="needs a FileSplitAssignerProvider"):
        FileSource.for_record_stream_format(fmt, str(tmp_path)).set_split_assigner(None)
    with pytest.raises(IllegalArgumentException, match="needs a BulkFormat"):
        FileSource.for_bulk_file_format(fmt, str(tmp_path))
