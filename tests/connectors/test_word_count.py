"""PyFlink's own word_count.py (imports changed only): compiled, then run end to end."""

from __future__ import annotations

import datetime

from pyflowkit.common import Configuration
from pyflowkit.reference.local_driver import run_local
from tests.connectors.helpers import (
    TEXT,
    final_word_counts,
    part_files,
    run_word_count_program,
)


def _bucket_for(millis: int) -> str:
    stamp = datetime.datetime.fromtimestamp(millis / 1000, tz=datetime.timezone.utc).astimezone()
    return stamp.strftime("%Y-%m-%d--%H")


def test_default_input_compiles_to_flinks_job_graph(monkeypatch, capsys) -> None:
    env = run_word_count_program(monkeypatch)
    assert env.get_runtime_mode().name == "BATCH"
    job = env.get_job_graph()
    assert [(v.name, v.parallelism) for v in job.vertices] == [
        ("Source: Collection Source -> Flat Map -> Map", 1),
        ("Keyed Reduce -> Sink: Print to Std. Out", 1),
    ]
    assert [e.ship_strategy.name for e in job.vertices[1].inputs] == ["HASH"]
    out = capsys.readouterr().out
    assert "Executing word_count example with default input data set." in out
    assert "Printing result to stdout" in out


def test_file_input_and_output_compile_to_flinks_vertex_names(monkeypatch, tmp_path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXT) + "\n")
    env = run_word_count_program(monkeypatch, "--input", str(src), "--output", str(tmp_path / "o"))
    job = env.get_job_graph()
    assert [(v.name, v.parallelism, v.invokable_class) for v in job.vertices] == [
        ("Source: file_source -> Flat Map -> Map", 1, "SourceOperatorStreamTask"),
        ("Keyed Reduce -> Sink Writer: Sink -> Sink Committer: Sink", 1, "OneInputStreamTask"),
    ]
    assert [e.ship_strategy.name for e in job.vertices[1].inputs] == ["HASH"]
    stream_graph = env.get_stream_graph()
    classes = [n.operator_factory.operator_class for n in stream_graph.nodes.values()]
    assert classes[0] == "SourceOperator"
    assert classes[-2:] == ["StatefulWriterOperator", "BatchCommitterOperator"]
    assert not (tmp_path / "o").exists()  # compiling writes nothing


def test_only_output_prints_nothing_and_reads_the_default_data(monkeypatch, tmp_path) -> None:
    env = run_word_count_program(monkeypatch, "--output", str(tmp_path / "o"))
    names = [v.name for v in env.get_job_graph().vertices]
    assert names == [
        "Source: Collection Source -> Flat Map -> Map",
        "Keyed Reduce -> Sink Writer: Sink -> Sink Committer: Sink",
    ]


def test_word_count_runs_through_the_local_driver_and_writes_flinks_layout(
    monkeypatch, tmp_path
) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXT) + "\n")
    out_dir = tmp_path / "out"
    env = run_word_count_program(monkeypatch, "--input", str(src), "--output", str(out_dir))
    run_local(env, start_time=1_600_000_000_000)
    files = part_files(out_dir)
    bucket = _bucket_for(1_600_000_000_000)
    assert [p.relative_to(out_dir).as_posix() for p in files] == [f"{bucket}/prefix-0-0.ext"]
    assert files[0].read_text().splitlines() == final_word_counts(TEXT)  # BATCH mode
    assert not [p for p in out_dir.rglob(".*")]  # no in-progress file left behind


def test_word_count_runs_on_the_simulated_cluster_via_execute(monkeypatch, tmp_path) -> None:
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXT) + "\n")
    out_dir = tmp_path / "out"
    env = run_word_count_program(monkeypatch, "--input", str(src), "--output", str(out_dir))
    env.configure(Configuration().set_string("execution.target", "local"))
    env._capture = None  # the program's own execute() was captured; now run it for real
    result = env.execute()
    assert result.get_job_id() is not None
    files = part_files(out_dir)
    assert len(files) == 1 and files[0].name == "prefix-0-0.ext"
    lines = files[0].read_text().splitlines()
    # the program sets BATCH execution mode: one final count per word, in no order Flink
    # promises across keys (under 1.20 the keyed input is a BLOCKING result)
    assert sorted(lines) == sorted(final_word_counts(TEXT))
    final = {}
    for line in lines:
        word, n = line[1:-1].rsplit(",", 1)
        final[word] = int(n)
    words = " ".join(TEXT).split()
    assert final == {w: words.count(w) for w in set(words)}
