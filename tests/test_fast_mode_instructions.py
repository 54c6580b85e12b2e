"""tools/fast_mode_instructions.py counts what bench_runtime's shapes table times: the plain loop,
and the word count in fast mode with a discarding or a print sink; each child run does the whole
job (every word counted once, every running count printed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from pyflowkit.runtime import JobStatus

TOOL = Path(__file__).resolve().parent.parent / "tools" / "fast_mode_instructions.py"
spec = importlib.util.spec_from_file_location("fast_mode_instructions", TOOL)
assert spec is not None and spec.loader is not None
tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = tool
spec.loader.exec_module(tool)

WORDS = 2_000


def test_the_loop_counts_every_word_of_the_vocabulary(tmp_path) -> None:
    counts = tool.child("loop", 15, WORDS, tmp_path, callgrind=False)
    assert len(counts) == 15
    assert sum(n for _, n in counts.values()) == WORDS


def test_fast_mode_runs_the_whole_job_through_the_keyed_reduce(tmp_path) -> None:
    run = tool.child("fast", 1000, WORDS, tmp_path, callgrind=False)
    assert run.job_status is JobStatus.FINISHED
    reduced = [
        t.invokable.records_in
        for te in run.task_executors
        for t in te.tasks.values()
        if t.name.startswith("Keyed Reduce")
    ]
    assert len(reduced) == tool.PARALLELISM
    assert sum(reduced) == WORDS


def test_the_print_run_prints_a_running_count_per_word(tmp_path) -> None:
    run = tool.child("print", 15, WORDS, tmp_path, callgrind=False)
    assert run.job_status is JobStatus.FINISHED
    assert run.printed_count == WORDS


def test_a_directory_is_measured_as_it_is(tmp_path) -> None:
    assert tool._side(Path("."), str(tmp_path), tmp_path / "export") == (tmp_path, str(tmp_path))
