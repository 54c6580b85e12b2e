"""Bad input: a clear one-line message, exit code 1, never a traceback."""

from __future__ import annotations

import subprocess
import sys

from pyflowkit.cli import main


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyflowkit", *args], capture_output=True, text=True, timeout=120
    )


def test_missing_file(tmp_path, capsys):
    assert main(["graph", str(tmp_path / "nope.py")]) == 1
    err = capsys.readouterr().err
    assert err == f"pyflowkit graph: error: {tmp_path / 'nope.py'}: no such file\n"


def test_directory_instead_of_file(tmp_path, capsys):
    assert main(["explain", str(tmp_path)]) == 1
    assert "not a file" in capsys.readouterr().err


def test_script_without_pipeline(write_script, capsys):
    script = write_script("x = 1\n")
    assert main(["graph", str(script)]) == 1
    assert "job.py built no pipeline" in capsys.readouterr().err


def test_script_with_a_python_error_names_the_line(write_script, capsys):
    script = write_script("import math\n\nprint(undefined_name)\n")
    assert main(["graph", str(script)]) == 1
    err = capsys.readouterr().err
    assert err == (
        "pyflowkit graph: error: job.py failed (line 3): NameError: "
        "name 'undefined_name' is not defined\n"
    )


def test_pipeline_error_shows_flinks_message(write_script, capsys):
    script = write_script(
        """
        from pyflowkit.datastream import StreamExecutionEnvironment
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(2)
        env.from_collection([1, 2]).forward().map(lambda x: x).print()
        env.execute()
        """
    )
    assert main(["graph", str(script)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pyflowkit graph: error: job.py")
    assert "Forward partitioning does not allow change of parallelism." in err
    assert "Traceback" not in err


def test_script_exit_status(write_script, capsys):
    script = write_script("import sys\nsys.exit(3)\n")
    assert main(["explain", str(script)]) == 1
    assert "job.py exited with status 3" in capsys.readouterr().err


def test_subprocess_error_has_no_traceback(write_script):
    script = write_script("raise RuntimeError('boom')\n")
    result = run_cli("graph", str(script))
    assert result.returncode == 1
    assert result.stderr == "pyflowkit graph: error: job.py failed (line 1): RuntimeError: boom\n"
    assert result.stdout == ""


def test_subprocess_success(pipeline_file):
    result = run_cli("graph", str(pipeline_file), "--level", "stream", "--format", "dot")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('digraph "cli job" {')
    assert '"sn_' in result.stdout


def test_no_subcommand_is_a_usage_error():
    result = run_cli()
    assert result.returncode == 2
    assert "the following arguments are required: COMMAND" in result.stderr
