"""FileSource: enumeration, split assignment, positions, restore, continuous discovery."""

from __future__ import annotations

import pytest

from pyflowkit.common import Duration, Types, WatermarkStrategy
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.connectors.file_system import FileSource, StreamFormat
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.transformations import Boundedness
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.file_source import enumerate_files
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.source_operator import SourceOperator
from pyflowkit.operators.stream_source import InputStatus
from pyflowkit.reference.local_driver import run_local
from pyflowkit.state.time import MAX_WATERMARK


def _files(tmp_path, n: int, lines: int = 3) -> list[str]:
    paths = []
    for i in range(n):
        p = tmp_path / f"f{i}.txt"
        p.write_text("".join(f"f{i}-l{j}\n" for j in range(lines)))
        paths.append(str(p))
    return paths


def _source(*paths, continuous: Duration | None = None):
    builder = FileSource.for_record_stream_format(StreamFormat.text_line_format(), *paths)
    if continuous is not None:
        builder = builder.monitor_continuously(continuous)
    return builder.build()


def _operator(source, subtask=0, parallelism=1, clock=None, restored=None, strategy=None):
    op = SourceOperator(source, strategy)
    env = TaskEnvironment(
        subtask_index=subtask,
        parallelism=parallelism,
        processing_time_service=clock or ManualProcessingTimeService(),
    )
    out = CollectingOutput()
    op.setup(env, StreamConfig(operator_name="Source: files"), out)
    op.initialize_state(restored)
    op.open()
    return op, out


def test_enumeration_is_recursive_sorted_and_skips_hidden_files(tmp_path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "2.txt").write_text("x")
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / ".hidden").write_text("x")
    (tmp_path / "_tmp").mkdir()
    (tmp_path / "_tmp" / "3.txt").write_text("x")
    found = enumerate_files([str(tmp_path)])
    assert [p[len(str(tmp_path)) + 1 :] for p in found] == ["a.txt", "b/2.txt"]
    with pytest.raises(IllegalArgumentException, match="does not exist"):
        enumerate_files([str(tmp_path / "nope")])


def test_one_split_per_file_assigned_round_robin_to_subtasks(tmp_path) -> None:
    paths = _files(tmp_path, 5, lines=2)
    source = _source(str(tmp_path))
    per_subtask = []
    for i in range(2):
        op, out = _operator(source, i, 2)
        while op.emit_next(3) is not InputStatus.END_OF_INPUT:
            pass
        per_subtask.append(out.values)
    assert per_subtask[0] == ["f0-l0", "f0-l1", "f2-l0", "f2-l1", "f4-l0", "f4-l1"]
    assert per_subtask[1] == ["f1-l0", "f1-l1", "f3-l0", "f3-l1"]
    assert len(paths) == 5


def test_lines_split_on_lf_crlf_and_cr_in_the_charset(tmp_path) -> None:
    p = tmp_path / "mixed.txt"
    p.write_bytes("ä\r\nb\rc\nlast".encode("latin-1"))
    source = FileSource.for_record_stream_format(
        StreamFormat.text_line_format("ISO-8859-1"), str(p)
    ).build()
    op, out = _operator(source)
    assert op.emit_next(100) is InputStatus.END_OF_INPUT
    assert out.values == ["ä", "b", "c", "last"]
    assert out.watermarks == [MAX_WATERMARK]


def test_positions_are_checkpointed_and_restored_mid_file(tmp_path) -> None:
    _files(tmp_path, 2, lines=4)
    source = _source(str(tmp_path))
    op, out = _operator(source)
    op.emit_next(3)
    assert out.values == ["f0-l0", "f0-l1", "f0-l2"]
    snap = op.snapshot_state(1, 0)
    assert snap.operator_state["SourceReaderState"]["entries"] == [
        ["0", str(tmp_path / "f0.txt"), 3],
        ["1", str(tmp_path / "f1.txt"), 0],
    ]
    op2, out2 = _operator(source, restored=snap)
    while op2.emit_next(2) is not InputStatus.END_OF_INPUT:
        pass
    assert out2.values == ["f0-l3", "f1-l0", "f1-l1", "f1-l2", "f1-l3"]


def test_restored_splits_are_redistributed_on_rescale(tmp_path) -> None:
    from pyflowkit.state.key_groups import KeyGroupRange
    from pyflowkit.state.snapshot import assign_snapshot

    _files(tmp_path, 4, lines=2)
    source = _source(str(tmp_path))
    op, _ = _operator(source)  # one subtask owns all four splits
    op.emit_next(1)
    snap = op.snapshot_state(1, 0)
    values = []
    for i in range(2):
        restored = assign_snapshot([snap], i, 2, KeyGroupRange(0, 0))
        op_i, out_i = _operator(source, i, 2, restored=restored)
        while op_i.emit_next(10) is not InputStatus.END_OF_INPUT:
            pass
        values.append(out_i.values)
    everything = sorted(values[0] + values[1])
    assert everything == sorted(["f0-l1"] + [f"f{i}-l{j}" for i in range(1, 4) for j in range(2)])
    assert values[0] and values[1]  # both new subtasks got splits


def test_monitor_continuously_is_unbounded_and_discovers_new_files(tmp_path) -> None:
    _files(tmp_path, 1, lines=1)
    clock = ManualProcessingTimeService(0)
    source = _source(str(tmp_path), continuous=Duration.of_seconds(10))
    assert source.get_boundedness() is Boundedness.CONTINUOUS_UNBOUNDED
    op, out = _operator(source, clock=clock)
    assert op.emit_next(10) is InputStatus.MORE_AVAILABLE
    assert out.values == ["f0-l0"]
    (tmp_path / "new.txt").write_text("n1\nn2\n")
    clock.advance(9_999)
    op.emit_next(10)
    assert out.values == ["f0-l0"]  # not yet: the discovery interval has not passed
    clock.advance(1)
    assert op.emit_next(10) is InputStatus.MORE_AVAILABLE
    assert out.values == ["f0-l0", "n1", "n2"]
    assert out.watermarks == []


def test_builder_validation_and_bounded_default(tmp_path) -> None:
    path = _files(tmp_path, 1)[0]
    assert _source(path).get_boundedness() is Boundedness.BOUNDED
    builder = FileSource.for_record_stream_format(StreamFormat.text_line_format(), path)
    assert (
        builder.monitor_continuously(Duration.of_seconds(1))
        .process_static_file_set()
        .build()
        .get_boundedness()
        is Boundedness.BOUNDED
    )
    with pytest.raises(IllegalArgumentException, match="needs a Duration"):
        builder.monitor_continuously(1000)
    with pytest.raises(IllegalArgumentException, match="must be positive"):
        builder.monitor_continuously(Duration.of_millis(0))
    with pytest.raises(IllegalArgumentException, match="at least one path"):
        FileSource.for_record_stream_format(StreamFormat.text_line_format())
    with pytest.raises(IllegalArgumentException, match="needs a StreamFormat"):
        FileSource.for_record_stream_format("lines", path)
    with pytest.raises(IllegalArgumentException, match="unknown charset"):
        StreamFormat.text_line_format("no-such-charset")


def test_from_source_reads_files_in_parallel_end_to_end(tmp_path) -> None:
    _files(tmp_path, 3, lines=3)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    ds = env.from_source(_source(str(tmp_path)), WatermarkStrategy.no_watermarks(), "files")
    assert ds.get_type() == Types.STRING()
    ds.map(lambda s: s.upper(), output_type=Types.STRING()).print()
    job = env.get_job_graph()
    assert [(v.name, v.parallelism) for v in job.vertices] == [
        ("Source: files -> Map -> Sink: Print to Std. Out", 2)
    ]
    printed = run_local(env).printed
    assert sorted(printed) == sorted(
        [f"1> F{i}-L{j}" for i in (0, 2) for j in range(3)] + [f"2> F1-L{j}" for j in range(3)]
    )
