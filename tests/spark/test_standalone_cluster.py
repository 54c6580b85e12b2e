"""A real Spark standalone cluster (master + one worker on 127.0.0.1, from pyspark's own
distribution) runs a pipeline given ``spark.master = spark://127.0.0.1:PORT``; both are stopped by pid.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.spark.standalone import REPO, standalone_cluster

pytestmark = [pytest.mark.spark, pytest.mark.cluster, pytest.mark.slow]


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
    with standalone_cluster(tmp_path) as cluster:
        out = subprocess.run(
            [sys.executable, "-c", DRIVER, cluster.master_url],
            env=cluster.env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert f"MASTER {cluster.master_url}" in lines
    records = [eval(line[4:]) for line in lines if line.startswith("REC ")]
    from tests.spark.test_host import flink_subtask  # the driver follows the same default

    words = ["a", "b", "hello", "a", "b", "a"] * 5
    expected = sorted(
        (w, n, flink_subtask(w, 2)) for w in set(words) for n in range(1, words.count(w) + 1)
    )
    assert sorted(records) == expected
