"""The local Spark service from the shell, as users meet it: ``python word_count.py`` with no
master configured starts it (one stderr line says so), a second run reuses it with the same
results, ``pyflowkit spark status/start`` describe it, and it stops itself when idle (one JVM
start for all of it)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pyflowkit.examples import word_count
from pyflowkit.spark import service

pytestmark = [pytest.mark.spark, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
PROGRAM = REPO / "pyflowkit" / "examples" / "word_count.py"
IDLE_MINUTES = 0.25  # 15 s: long enough between two runs on a loaded machine, short to wait for


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        args, env=env, cwd=REPO, capture_output=True, text=True, timeout=600, check=False
    )


def recorded(directory: Path) -> dict:
    [state_dir] = [d for d in directory.iterdir() if d.is_dir()]
    return json.loads((state_dir / "service.json").read_text())


def test_a_second_program_reuses_the_service_a_first_one_started(tmp_path) -> None:
    pytest.importorskip("grpc", reason="Spark Connect needs grpcio (the test extra)")
    base = tmp_path / "services"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", service.SERVICE_ENV)
    }
    env.update(
        PYTHONPATH=str(REPO),
        PYFLOWKIT_SPARK_SERVICE_DIR=str(base),
        PYFLOWKIT_SPARK_SERVICE_IDLE=str(IDLE_MINUTES),
    )
    cli = [sys.executable, "-m", "pyflowkit", "spark"]
    try:
        first = run([sys.executable, str(PROGRAM)], env)
        assert first.returncode == 0, first.stderr[-3000:]
        started = recorded(base)
        status = run([*cli, "status"], env)
        again = run([*cli, "start"], env)
        second = run([sys.executable, str(PROGRAM)], env)
        assert second.returncode == 0, second.stderr[-3000:]
        after = recorded(base)
        deadline = time.time() + 180  # idle: no program connected for IDLE_MINUTES
        while time.time() < deadline and list(base.glob("*/service.json")):
            time.sleep(1)
        idle_status = run([*cli, "status"], env)
    finally:
        for directory in base.iterdir() if base.exists() else ():
            if directory.is_dir():
                service.stop(directory)

    announce = [line for line in first.stderr.splitlines() if "local Spark service" in line]
    port = started["port"]
    assert announce == [
        f"pyflowkit: starting a local Spark service (Spark Connect on 127.0.0.1:{port}, idle "
        "timeout 0.25 min) so that later programs start in seconds; pyflowkit spark stop ends it"
    ]
    assert "local Spark service" not in second.stderr
    for result in (first, second):  # the word counts of the embedded session, per key in order
        lines = [line for line in result.stdout.splitlines() if re.match(r"\d> \(", line)]
        assert word_count.check_printed(lines)
        assert len(lines) == sum(word_count.expected_output().values())
    assert (after["pid"], after["jvm_pid"], after["port"]) == (
        started["pid"],
        started["jvm_pid"],
        port,
    )  # reused, not restarted
    assert status.returncode == 0
    out = status.stdout
    assert f"Spark service: running, pid {started['pid']} (JVM pid {started['jvm_pid']})" in out
    assert f"url:          sc://localhost:{port} (Spark Connect, 127.0.0.1 only" in out
    assert re.search(r"uptime: +\d+ (s|min)", out) and re.search(r"idle: +\d+ s \(stops", out)
    assert "service.log" in out and "token" not in out.split("token in")[0].split("url:")[0]
    assert again.stdout.startswith("Already running: the local Spark service")
    assert idle_status.stdout.startswith("No local Spark service runs")
    for pid in (started["pid"], started["jvm_pid"]):
        assert not service._pid_alive(pid)
    [log] = base.glob("*/service.log")
    assert f"stopping: idle for {IDLE_MINUTES:g} min" in log.read_text()
