"""CLI misuse: output paths checked before any work, programs that exit early; one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pyflowkit.cli import main

PIPELINE = """
from pyflowkit.datastream import StreamExecutionEnvironment
env = StreamExecutionEnvironment.get_execution_environment()
env.from_collection([1, 2]).map(lambda x: x + 1).print()
env.execute("ok job")
"""
SIDE_EFFECT = (
    """
from pathlib import Path
Path(__file__).with_name("ran.txt").write_text("the program ran")
"""
    + PIPELINE
)

# (case id, argv built from the tmp dir, files to create first, fragments of the one-line error)
CASES: list[tuple[str, list[str], dict[str, str], list[str]]] = [
    ("-o under /proc", ["graph", "{job}", "-o", "/proc/x.svg"], {}, ["-o /proc/x.svg", "/proc"]),
    ("-o with a trailing slash", ["graph", "{job}", "-o", "{tmp}/out/"], {}, ["ends with '/'"]),
    (
        "-o an existing directory",
        ["graph", "{job}", "-o", "{tmp}/d"],
        {"d/keep": ""},
        ["is a directory"],
    ),
    (
        "-o below a file",
        ["graph", "{job}", "-o", "{tmp}/f.txt/x.svg"],
        {"f.txt": "x"},
        ["is not a directory"],
    ),
    ("-o unknown suffix", ["graph", "{job}", "-o", "{tmp}/x.bmp"], {}, ["cannot tell the format"]),
    ("png to stdout", ["graph", "{job}", "--format", "png"], {}, ["png output is binary"]),
    (
        "demo --out a file",
        ["demo", "--out", "{tmp}/f.txt"],
        {"f.txt": "x"},
        ["exists and is not a directory"],
    ),
    (
        "demo --out under /proc",
        ["demo", "--out", "/proc/demo"],
        {},
        ["--out /proc/demo", "cannot create files"],
    ),
    ("run: no such file", ["run", "{tmp}/nope.py"], {}, ["nope.py: no such file"]),
    ("explain a directory", ["explain", "{tmp}/d"], {"d/keep": ""}, ["not a file"]),
]


def fill(arg: str, tmp: Path, job: Path) -> str:
    return arg.replace("{tmp}", str(tmp)).replace("{job}", str(job))


@pytest.mark.parametrize("argv,files,fragments", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_output_paths_checked_before_the_program_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv, files, fragments
) -> None:
    job = tmp_path / "job.py"
    job.write_text(SIDE_EFFECT)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert main([fill(a, tmp_path, job) for a in argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pyflowkit {argv[0]}: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fill(fragment, tmp_path, job) in err, err
    # nothing ran, nothing written (no probe file left behind either)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before
    # and the same command with a good output path works
    if argv[0] == "graph":
        assert main(["graph", str(job), "-o", str(tmp_path / "g" / "ok.dot")]) == 0
        assert (tmp_path / "g" / "ok.dot").read_text().startswith("digraph")


EXITS: list[tuple[str, str, str]] = [
    (
        "os._exit(0) first",
        "import os\nos._exit(0)\n",
        "built no pipeline (job.py called os._exit(0)",
    ),
    ("os._exit(4)", "import os\nos._exit(4)\n", "job.py called os._exit(4)"),
    (
        "sys.exit(0) first",
        "import sys\nsys.exit(0)\n",
        "built no pipeline (job.py called sys.exit(0)",
    ),
    ("sys.exit() first", "import sys\nsys.exit()\n", "built no pipeline (job.py called sys.exit()"),
    (
        "a pipeline with no sink",
        "from pyflowkit.datastream import StreamExecutionEnvironment\n"
        "StreamExecutionEnvironment.get_execution_environment()\n",
        "built no pipeline",
    ),
]


@pytest.mark.parametrize("source,fragment", [c[1:] for c in EXITS], ids=[c[0] for c in EXITS])
@pytest.mark.parametrize("command", ["graph", "run"])
def test_program_that_exits_without_a_pipeline_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, fragment: str, command: str
) -> None:
    job = tmp_path / "job.py"
    job.write_text(source)
    saved_exit = os._exit
    args = [command, str(job)] + (["--target", "local"] if command == "run" else [])
    assert main(args) == 1
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err
    assert os._exit is saved_exit  # restored for the rest of the process


def test_os_exit_after_building_a_pipeline_still_draws_it(tmp_path: Path, capsys) -> None:
    job = tmp_path / "job.py"
    job.write_text(
        "import os\nfrom pyflowkit.datastream import StreamExecutionEnvironment\n"
        "env = StreamExecutionEnvironment.get_execution_environment()\n"
        "env.from_collection([1]).print()\nos._exit(0)\n"
    )
    assert main(["graph", str(job), "--level", "stream", "--format", "dot"]) == 0
    assert "Print to Std. Out" in capsys.readouterr().out


def test_run_of_a_job_that_keeps_restarting_is_one_line(tmp_path: Path, capsys) -> None:
    job = tmp_path / "job.py"
    job.write_text(
        "from pyflowkit.datastream import StreamExecutionEnvironment\n"
        "def parse(v):\n"
        "    raise ValueError(f'bad {v}')\n"
        "env = StreamExecutionEnvironment.get_execution_environment()\n"
        "env.set_parallelism(1)\n"
        "env.enable_checkpointing(100)\n"
        "env.from_collection([1, 2]).map(parse).print()\n"
        "env.execute('loop job')\n"
    )
    assert main(["run", str(job), "--target", "local"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("pyflowkit run: error: RestartGuardException: Job 'loop job' (")
    assert "restarted 101 times during this run and keeps failing: ValueError: bad 1" in err
    assert "raised by parse (job.py, line 3)" in err and "env.set_restart_strategy(" in err
