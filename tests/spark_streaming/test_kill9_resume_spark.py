"""``kill -9`` of a running streaming job's Spark JVM (and its program), then a new program
resumes from the retained checkpoint (``execution.savepoint.path`` = the query's checkpoint
location, Flink's ``-s`` of a retained checkpoint): the FileSink holds every record exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.connectors.helpers import part_files
from tests.spark_streaming._kill9_job import RECORDS

pytestmark = [pytest.mark.spark, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


def _program(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYFLOWKIT_SPARK_PREWARM": "0"}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.spark_streaming._kill9_job", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )


def _descendants(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid=,ppid="], capture_output=True, text=True).stdout
    children: dict[int, list[int]] = {}
    for line in out.splitlines():
        child, parent = (int(x) for x in line.split())
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _is_java(pid: int) -> bool:
    try:
        return "java" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()
    except OSError:
        return False


def test_kill_9_of_the_jvm_then_resume_from_the_retained_checkpoint(tmp_path: Path) -> None:
    checkpoints, files = tmp_path / "chk", tmp_path / "files"
    first = _program(str(checkpoints), str(files), "0.05")
    deadline = time.monotonic() + 300
    commits: list[Path] = []
    while time.monotonic() < deadline and len(commits) < 3 and first.poll() is None:
        time.sleep(0.5)
        commits = [p for p in checkpoints.glob("*/commits/*") if p.name.isdigit()]
    assert len(commits) >= 3 and first.poll() is None, "the first program made no progress"
    jvms = [p for p in _descendants(first.pid) if _is_java(p)]
    assert jvms
    for pid in jvms:
        os.kill(pid, signal.SIGKILL)  # the JVM dies mid-stream, as with kill -9
    os.killpg(first.pid, signal.SIGKILL)  # and the program with it
    first.wait(30)
    (location,) = [p for p in checkpoints.iterdir() if p.is_dir()]
    before = Counter(line for f in part_files(files) for line in f.read_text().splitlines())
    assert 0 < sum(before.values()) < RECORDS  # killed mid-stream

    second = _program(str(checkpoints / "resumed"), str(files), "0", str(location))
    out, _ = second.communicate(timeout=600)
    assert second.returncode == 0 and "RESULT" in out and "FINISHED" in out
    lines = Counter(line for f in part_files(files) for line in f.read_text().splitlines())
    assert lines == Counter(f"N{i}" for i in range(RECORDS))  # nothing lost, nothing twice
