"""``pyflowkit run FILE.py``: the captured job runs on the MiniCluster or on Spark; print output,
Flink's ``flink run`` summary, a progress line for Spark, one clear error line and exit 1."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from pyflowkit.cli import main

FAILING = """
from pyflowkit.datastream import StreamExecutionEnvironment

def boom(x):
    return 1 // (x - 2)

env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.from_collection([1, 2, 3]).map(boom).print()
env.execute("bad job")
"""

SUMMARY = re.compile(
    r"Program execution finished\nJob with JobID [0-9a-f]{32} has finished\.\nJob Runtime: \d+ ms\n"
)


PLACED_1_20 = ["1> ('a', 1)", "1> ('b', 2)"]  # PyFlink 1.20: both keys on subtask 1
PLACED_1_11 = ["1> ('b', 2)", "2> ('a', 1)"]  # Flink 1.11: murmur(String.hashCode)


def printed_records(out: str) -> list[str]:
    return sorted(line for line in out.splitlines() if re.match(r"\d+> ", line))


def test_run_on_the_mini_cluster_prints_output_and_flink_summary(pipeline_file, capsys) -> None:
    assert main(["run", str(pipeline_file), "--target", "local"]) == 0
    captured = capsys.readouterr()
    # a program run by the CLI follows PyFlink 1.20 (KEY_BY_ROW: keyed by Row.of(pickled key))
    assert printed_records(captured.out) == PLACED_1_20
    assert SUMMARY.search(captured.out), captured.out
    assert "after execute: never printed" not in captured.out
    assert "[Spark]" not in captured.err


def test_a_program_that_names_its_flink_version_keeps_it(write_script, capsys) -> None:
    from tests.cli.conftest import PIPELINE

    pinned = PIPELINE.replace(
        "get_execution_environment()",
        "get_execution_environment(Configuration().set_string('pyflowkit.flink-version', '1.11'))",
    )
    path = write_script("from pyflowkit.common import Configuration\n" + pinned, "pinned.py")
    assert main(["run", str(path), "--target", "local"]) == 0
    assert printed_records(capsys.readouterr().out) == PLACED_1_11


def test_run_failure_on_the_mini_cluster_is_one_line_exit_1(write_script, capsys) -> None:
    path = write_script(FAILING, "bad.py")
    assert main(["run", str(path), "--target", "local"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "pyflowkit run: error: Job 'bad job' failed on the MiniCluster in operator 'Map' of "
        "Map -> Sink: Print to Std. Out (1/2) (attempt #0): "
        "ZeroDivisionError: integer division or modulo by zero (bad.py line 5)"
    ]


def test_master_needs_the_spark_target(pipeline_file, capsys) -> None:
    assert main(["run", str(pipeline_file), "--target", "local", "--master", "local[2]"]) == 1
    assert capsys.readouterr().err.strip() == (
        "pyflowkit run: error: --master applies to --target spark, not --target local"
    )


def test_missing_file_is_one_line(tmp_path, capsys) -> None:
    assert main(["run", str(tmp_path / "nope.py")]) == 1
    assert capsys.readouterr().err.strip().endswith("nope.py: no such file")


def test_unreachable_master_is_one_clear_line(pipeline_file, capsys) -> None:
    # nothing listens on port 9 of 127.0.0.1: the preflight check fails before Spark starts
    assert main(["run", str(pipeline_file), "--master", "spark://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("pyflowkit run: error: job.py on spark: ")
    assert "127.0.0.1:9" in err[0]


@pytest.mark.spark
@pytest.mark.slow
def test_run_on_spark_subprocess_output_progress_and_failure(pipeline_file, write_script) -> None:
    """The console script on the embedded Spark session: records, summary, final progress line;
    a failing UDF gives one error line naming the subtask and the user's line (no JVM noise)."""
    bad = write_script(FAILING, "bad.py")
    ok = subprocess.run(
        [sys.executable, "-m", "pyflowkit", "run", str(pipeline_file), "--master", "local[2]"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ok.returncode == 0, ok.stderr
    assert printed_records(ok.stdout) == PLACED_1_20
    assert SUMMARY.search(ok.stdout), ok.stdout
    progress = [line for line in ok.stderr.splitlines() if line.startswith("[Spark]")]
    assert len(progress) == 1 and progress[0].startswith("[Spark] FINISHED: jobs ")
    failed = subprocess.run(
        [sys.executable, "-m", "pyflowkit", "run", str(bad)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert failed.returncode == 1
    errors = [line for line in failed.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1, failed.stderr
    assert re.fullmatch(
        r"pyflowkit run: error: Job 'bad job' \([0-9a-f]{32}\) failed in "
        r"Map -> Sink: Print to Std. Out \(\d/2\) on Spark: "
        r"ZeroDivisionError: integer division or modulo by zero \(bad.py line 5\)",
        errors[0],
    )
    assert "at org.apache.spark" not in failed.stderr
    assert "[Spark] FAILED: jobs " in failed.stderr
