"""Spark Connect: a local Connect server (pyspark's own ``SparkConnectServer``) on 127.0.0.1 runs
pipelines given ``spark.remote = sc://127.0.0.1:PORT``; results equal the MiniCluster's, a UDF
failure surfaces with the user's traceback; the server is stopped by pid."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.spark.standalone import free_port, listening, stop_process, wait_for

pytestmark = [pytest.mark.spark, pytest.mark.cluster, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]
CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"

CLIENT = textwrap.dedent(
    """
    import json, sys
    from pyflowkit.common import Configuration, Types
    from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from pyflowkit.errors import JobExecutionException

    LINES = ["to be or not to be", "that is the question", "to be is to do"]

    def word_count(conf, mode):
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(2)
        env.set_runtime_mode(mode)
        (env.from_collection(LINES, type_info=Types.STRING())
            .flat_map(lambda line: line.split(), output_type=Types.STRING())
            .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
            .key_by(lambda t: t[0], key_type=Types.STRING())
            .sum(1)
            .print())
        return env.execute("connect word count")

    remote = Configuration()
    remote.set_string("spark.remote", sys.argv[1])
    local = Configuration()
    local.set_string("execution.target", "local")
    out = {}
    for mode in (RuntimeExecutionMode.STREAMING, RuntimeExecutionMode.BATCH):
        on_connect = word_count(remote, mode)
        on_cluster = word_count(local, mode)
        out[mode.name] = [on_connect.print_lines, on_cluster.printed,
                          type(on_connect).__name__, on_connect.progress.status]
    from pyspark.sql import SparkSession
    out["session"] = type(SparkSession.getActiveSession()).__module__

    env = StreamExecutionEnvironment.get_execution_environment(remote)
    def boom(x):
        return 1 // (x - 2)
    env.from_collection([1, 2, 3]).map(boom).print()
    try:
        env.execute("failing on connect")
        out["failure"] = None
    except JobExecutionException as exc:
        out["failure"] = str(exc)
    print("RESULT " + json.dumps(out))
    """
)


def per_key(lines: list[str]) -> dict[str, list[str]]:
    """``2> (to,3)`` lines grouped by ``2> to`` in their order."""
    out: dict[str, list[str]] = {}
    for line in lines:
        prefix, _, record = line.partition("> ")
        out.setdefault(f"{prefix} {record[1:].split(',')[0]}", []).append(line)
    return out


def test_pipelines_run_on_a_spark_connect_server(tmp_path) -> None:
    pytest.importorskip("grpc", reason="Spark Connect needs grpcio (the test extra)")
    import pyspark

    submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    port = free_port()
    env = dict(os.environ)
    env.update(SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=sys.executable, PYTHONPATH=str(REPO))
    log4j = REPO / "pyflowkit" / "_spark_log4j2.properties"
    log = open(tmp_path / "connect.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [
            str(submit),
            "--class",
            CONNECT_SERVER,
            "--name",
            "pyflowkit Connect test",
            "--master",
            "local[2]",
            "--conf",
            f"spark.connect.grpc.binding.port={port}",
            "--conf",
            "spark.connect.grpc.binding.address=127.0.0.1",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            f"spark.driver.extraJavaOptions=-Dlog4j2.configurationFile=file:{log4j}",
        ],
        env=env,
        cwd=tmp_path,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for(lambda: listening(port) or server.poll() is not None, 120, "the Connect server")
        assert server.poll() is None, (tmp_path / "connect.log").read_text()[-3000:]
        client_env = {k: v for k, v in env.items() if k != "SPARK_REMOTE"}
        proc = subprocess.run(
            [sys.executable, "-c", CLIENT, f"sc://127.0.0.1:{port}"],
            env=client_env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
    finally:
        stop_process(server)
        log.close()
    assert server.poll() is not None
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT ") :])
    assert out["session"].startswith("pyspark.sql.connect")
    for mode in ("STREAMING", "BATCH"):
        on_connect, on_cluster, result_type, status = out[mode]
        assert result_type == "SparkJobExecutionResult" and status == "FINISHED"
        if mode == "BATCH":  # Flink's BATCH mode: the final value per key only
            on_cluster = [records[-1] for records in per_key(on_cluster).values()]
        assert sorted(on_connect) == sorted(on_cluster)
        assert per_key(on_connect) == per_key(on_cluster)  # Flink's order: per key, per subtask
    assert "(to,4)" in " ".join(out["BATCH"][0]) and len(out["BATCH"][0]) == 9
    failure = out["failure"]
    assert failure is not None and failure.startswith("Traceback (most recent call last):")
    assert re.search(r"line \d+, in boom\n", failure) and "ZeroDivisionError: integer" in failure
    assert "failed in Map -> Sink: Print to Std. Out (" in failure
