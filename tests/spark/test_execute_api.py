"""``env.execute(spark=...)``, ``execute_async``/``execute_and_collect`` with a session, and the
Flink ``Configuration`` keys (``execution.target``, ``spark.master``, ``spark.*``) reaching Spark."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.datastream import StreamExecutionEnvironment

pytestmark = pytest.mark.spark


def keyed_sum(env: StreamExecutionEnvironment):
    env.set_parallelism(2)
    return (
        env.from_collection([("a", 1), ("b", 2), ("a", 3)])
        .key_by(lambda t: t[0], key_type=Types.STRING())
        .reduce(lambda x, y: (x[0], x[1] + y[1]))
    )


def test_execute_with_spark_session_runs_on_it_even_with_local_target(spark, capsys) -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")  # an explicit session implies Spark
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    keyed_sum(env).print()
    result = env.execute("on given session", spark=spark)
    assert result.spark_plan is not None and result.spark_plan.job_name == "on given session"
    assert result.get_job_execution_result().get_net_runtime() >= 0
    assert spark.sparkContext._jsc is not None  # the given session is still alive
    out = capsys.readouterr().out.splitlines()
    assert sorted(line.split("> ", 1)[1] for line in out) == ["('a', 1)", "('a', 4)", "('b', 2)"]
    assert env.get_transformations() == []  # execute() cleared them, as Flink does


def test_execute_and_collect_and_execute_async_with_spark_session(spark) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    collected = keyed_sum(env).execute_and_collect("collect on spark", spark=spark)
    assert sorted(collected) == [("a", 1), ("a", 4), ("b", 2)]
    limited = keyed_sum(env).execute_and_collect(limit=1, spark=spark)
    assert len(limited) == 1
    env2 = StreamExecutionEnvironment.get_execution_environment()
    env2.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
    client = env2.execute_async("async on spark", spark=spark)
    result = client.get_job_execution_result().result()
    assert sorted(line.split("> ", 1)[-1] for line in result.print_lines) == ["10", "20", "30"]


def test_local_target_without_session_stays_on_the_mini_cluster() -> None:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.from_collection([1, 2]).map(lambda x: x + 1).print()
    result = env.execute("local")
    assert getattr(result, "spark_plan", None) is None


_SESSION_CONF_SCRIPT = """
import json
from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyspark.sql import SparkSession

def job(env):
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda x: x * 2).print()

out = {}
conf = Configuration()
conf.set_string("execution.target", "spark")
conf.set_string("spark.master", "local[1]")
conf.set_string("spark.sql.shuffle.partitions", "3")
conf.set_string("spark.app.name", "from-get-execution-environment")
env = StreamExecutionEnvironment.get_execution_environment(conf)
job(env)
r = env.execute("a")
s = SparkSession.getActiveSession()
out["first"] = [s.sparkContext.master, s.conf.get("spark.sql.shuffle.partitions"),
                s.sparkContext.appName, sorted(r.print_lines)]
env = StreamExecutionEnvironment.get_execution_environment()
conf = Configuration()
conf.set_string("spark.master", "local[2]")
conf.set_string("spark.pyflowkit.test.marker", "configured")
env.configure(conf)
job(env)
r = env.execute("b")
s = SparkSession.getActiveSession()
out["second"] = [s.sparkContext.master, s.conf.get("spark.pyflowkit.test.marker"),
                 sorted(r.print_lines)]
print("RESULT " + json.dumps(out))
"""


def test_configuration_keys_reach_the_spark_session() -> None:
    """``spark.master`` and any ``spark.*`` key, given to ``get_execution_environment`` or
    ``configure``, configure the session (own process: one SparkContext per JVM)."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_SESSION_CONF_SCRIPT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    out = json.loads(line[len("RESULT ") :])
    assert out["first"] == ["local[1]", "3", "from-get-execution-environment", ["2", "4", "6"]]
    assert out["second"] == ["local[2]", "configured", ["2", "4", "6"]]
