"""A streaming job on a real Spark standalone cluster (master + one worker on 127.0.0.1, from
pyspark's own distribution): an endless source's running counts run for a few micro-batches,
``stop_with_savepoint`` stops the job FINISHED, the printed counts are each key's running count
without gap or repeat, and a job resumed from the savepoint on the same cluster goes on from
there. Master and worker are stopped by pid."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.spark.standalone import REPO, standalone_cluster

pytestmark = [pytest.mark.spark, pytest.mark.cluster, pytest.mark.slow]

DRIVER = textwrap.dedent(
    """
    import sys, time
    from pyspark import cloudpickle
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment
    from tests.spark_streaming import _standalone_job
    cloudpickle.register_pickle_by_value(_standalone_job)

    master, checkpoints, savepoint, resume = sys.argv[1:5]
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    conf = Configuration()
    settings = {
        "spark.master": master,
        "pyflowkit.spark.streaming-query": "always",
        "pyflowkit.spark.streaming.max-records-per-batch": "6",
        "state.checkpoints.dir": checkpoints,
    }
    if resume == "resume":
        settings["execution.savepoint.path"] = savepoint
        savepoint += "-2"
    for key, value in settings.items():
        conf.set_string(key, value)
    env.configure(conf)
    env.enable_checkpointing(500)
    _standalone_job.running_counts(env)
    client = env.execute_async()
    job = client.job
    deadline = time.monotonic() + 180
    while (job.batches < 3 or len(job.print_lines) < 9) and time.monotonic() < deadline:
        assert job.poll(0.2) == "RUNNING", job.error
    print("SAVEPOINT", client.stop_with_savepoint(savepoint).result())
    print("STATUS", client.get_job_status().result().name)
    print("BATCHES", job.batches)
    print("MASTER", job.session.sparkContext.master)
    for line in job.print_lines:
        print("LINE", line)
    """
)


def _counts(lines: list[str]) -> dict[str, list[int]]:
    """Per key, the counts printed (in print order)."""
    out: dict[str, list[int]] = {}
    for line in lines:
        key, count = line.split("> ", 1)[1].strip("()").split(",")
        out.setdefault(key, []).append(int(count))
    return out


def _run_driver(env: dict[str, str], master_url: str, tmp_path: Path, mode: str) -> list[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            DRIVER,
            master_url,
            str(tmp_path / "chk"),
            str(tmp_path / "savepoint"),
            mode,
        ],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert f"MASTER {master_url}" in lines
    assert "STATUS FINISHED" in lines
    assert int(next(line for line in lines if line.startswith("BATCHES ")).split()[1]) >= 3
    return [line[5:] for line in lines if line.startswith("LINE ")]


def test_streaming_job_on_a_standalone_cluster_stops_with_a_savepoint(tmp_path) -> None:
    with standalone_cluster(tmp_path) as cluster:
        first = _counts(_run_driver(cluster.env, cluster.master_url, tmp_path, "first"))
        assert set(first) == {"a", "b", "c"}
        for counts in first.values():  # each key's running count, no gap, no repeat
            assert counts == list(range(1, len(counts) + 1))
        assert (tmp_path / "savepoint" / "_pyflowkit_savepoint.json").is_file()
        second = _counts(_run_driver(cluster.env, cluster.master_url, tmp_path, "resume"))
        for key, counts in second.items():  # resumed: the counts go on from the savepoint's
            start = len(first.get(key, [])) + 1
            assert counts == list(range(start, start + len(counts)))
