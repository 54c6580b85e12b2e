"""A real Spark standalone cluster (master + one worker on 127.0.0.1, from pyspark's own
distribution) runs a pipeline given ``spark.master = spark://127.0.0.1:PORT``; both are stopped by pid.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.spark, pytest.mark.cluster, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spark_class() -> str:
    import pyspark

    return str(Path(pyspark.__file__).parent / "bin" / "spark-class")


def wait_for(predicate, timeout: float, what: str) -> None:
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


DRIVER = textwrap.dedent(
    """
    import sys
    from pyspark import cloudpickle
    from tests.spark import _host_ops
    from tests.spark.test_host import source, one, keyed, collect_sink, job
    from pyflowkit.spark.executor import execute
    cloudpickle.register_pickle_by_value(_host_ops)

    class Env:  # what execute() reads from a StreamExecutionEnvironment
        def __init__(self, graph, conf):
            self.graph, self.conf = graph, conf
        def get_job_graph(self, job_name=None):
            return self.graph
        def get_configuration(self):
            return self.conf

    words = ["a", "b", "hello", "a", "b", "a"] * 5
    graph = job([collect_sink(keyed(source(words), 2), 2)], parallelism=2)
    result = execute(Env(graph, {"spark.master": sys.argv[1]}), print_output=False)
    import pyspark.sql
    master = pyspark.sql.SparkSession.getActiveSession().sparkContext.master
    print("MASTER", master)
    for rec in sorted(result.results["Sink: Collect"]):
        print("REC", rec)
    """
)


def test_pipeline_runs_on_a_standalone_cluster(tmp_path) -> None:
    port, ui, worker_ui = free_port(), free_port(), free_port()
    env = dict(os.environ)
    env.update(
        SPARK_LOCAL_IP="127.0.0.1",
        PYSPARK_PYTHON=sys.executable,
        PYTHONPATH=str(REPO),
        SPARK_LOG_DIR=str(tmp_path),
        SPARK_WORKER_DIR=str(tmp_path / "work"),
    )
    log = open(tmp_path / "cluster.log", "w")  # noqa: SIM115
    master = subprocess.Popen(
        [
            spark_class(),
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(ui),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    worker = None
    try:
        wait_for(lambda: alive_workers(ui) >= 0 and _listening(port), 60, "the master")
        worker = subprocess.Popen(
            [
                spark_class(),
                "org.apache.spark.deploy.worker.Worker",
                f"spark://127.0.0.1:{port}",
                "--host",
                "127.0.0.1",
                "--cores",
                "2",
                "--memory",
                "1g",
                "--webui-port",
                str(worker_ui),
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        wait_for(lambda: alive_workers(ui) == 1, 90, "the worker to register")
        out = subprocess.run(
            [sys.executable, "-c", DRIVER, f"spark://127.0.0.1:{port}"],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        lines = out.stdout.splitlines()
        assert f"MASTER spark://127.0.0.1:{port}" in lines
        records = [eval(line[4:]) for line in lines if line.startswith("REC ")]
        from pyflowkit.state.key_groups import assign_key_to_parallel_operator

        words = ["a", "b", "hello", "a", "b", "a"] * 5
        expected = sorted(
            (w, n, assign_key_to_parallel_operator(w, 128, 2))
            for w in set(words)
            for n in range(1, words.count(w) + 1)
        )
        assert sorted(records) == expected
    finally:
        for proc in (worker, master):
            if proc is not None:
                os.kill(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()
        log.close()
    assert master.poll() is not None and (worker is None or worker.poll() is not None)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
