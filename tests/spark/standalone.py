"""A real Spark standalone cluster for tests: a master and one worker on 127.0.0.1, started from
pyspark's own distribution and stopped by pid (``standalone_cluster``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class StandaloneCluster:
    master_url: str  # spark://127.0.0.1:PORT
    env: dict[str, str]  # the environment drivers run with (PYTHONPATH, PYSPARK_PYTHON, …)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.5)
    raise TimeoutError(f"timed out waiting for {what}")


def alive_workers(ui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=2) as r:
            return int(json.load(r).get("aliveworkers", 0))
    except OSError:
        return 0


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def stop_process(proc: subprocess.Popen | None) -> None:
    """SIGTERM, then SIGKILL after 30 s; waits until the process is gone."""
    if proc is None:
        return
    os.kill(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def standalone_cluster(tmp_path: Path) -> Iterator[StandaloneCluster]:
    """Start a master and a worker (2 cores, 1 GB), wait until the worker registered, yield;
    then stop both by pid and check they are gone. Logs go to ``tmp_path/cluster.log``."""
    port, ui, worker_ui = free_port(), free_port(), free_port()
    env = dict(os.environ)
    env.update(
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYTHONPATH=str(REPO),
        SPARK_LOG_DIR=str(tmp_path),
        SPARK_WORKER_DIR=str(tmp_path / "work"),
    )
    master_url = f"spark://127.0.0.1:{port}"
    with open(tmp_path / "cluster.log", "w") as log:

        def start(*args: str) -> subprocess.Popen:
            return subprocess.Popen(
                [spark_class(), *args], env=env, stdout=log, stderr=subprocess.STDOUT
            )

        master = start(
            "org.apache.spark.deploy.master.Master",
            *("--host", "127.0.0.1", "--port", str(port), "--webui-port", str(ui)),
        )
        worker = None
        try:
            wait_for(lambda: listening(port), 60, "the master")
            worker = start(
                "org.apache.spark.deploy.worker.Worker",
                master_url,
                *("--host", "127.0.0.1", "--cores", "2", "--memory", "1g"),
                *("--webui-port", str(worker_ui)),
            )
            wait_for(lambda: alive_workers(ui) == 1, 90, "the worker to register")
            yield StandaloneCluster(master_url, env)
        finally:
            stop_process(worker)
            stop_process(master)
    assert master.poll() is not None and (worker is None or worker.poll() is not None)
