"""A malformed ``--master`` / ``spark.master`` is one clear line (issue 26: ``--master bogus://x``
printed JVM stack lines and ``[JAVA_GATEWAY_EXITED]``).

Spark's behaviour, said before a JVM starts: the rule is spark-submit's ("Master must either be
yarn or start with spark, k8s, or local") and SparkContext's ("Could not parse Master URL").
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from pyflowkit.spark.preflight import SparkEnvironmentError, check_master_url
from tests.conftest import REPO_ROOT

JOB = (
    "from pyflowkit.datastream import StreamExecutionEnvironment\n"
    "env = StreamExecutionEnvironment.get_execution_environment()\n"
    "env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()\n"
    "env.execute('tens')\n"
)

# (master, what the one line says)
BAD = [
    ("bogus://x", "Master must either be yarn or start with spark, k8s, or local"),
    ("mesos://host:5050", "Master must either be yarn or start with spark, k8s, or local"),
    ("local[abc]", "Could not parse Master URL: 'local[abc]'"),
    ("local[0]", "Could not parse Master URL: 'local[0]'"),
    ("localhost", "Could not parse Master URL: 'localhost'"),
]
GOOD = [
    "local",
    "local[2]",
    "local[*]",
    "local[2,3]",
    "local-cluster[2,1,1024]",
    "spark://host:7077",
    "yarn",
    "k8s://https://host:443",
    "sc://host:15002",
]


@pytest.mark.parametrize(("master", "said"), BAD)
def test_a_bad_master_is_refused_before_a_jvm_starts(master, said) -> None:
    with pytest.raises(SparkEnvironmentError) as info:
        check_master_url(master)
    assert str(info.value).startswith(f"Invalid spark.master {master!r}: ")
    assert said in str(info.value)


@pytest.mark.parametrize("master", GOOD)
def test_masters_spark_accepts_pass(master) -> None:
    check_master_url(master)


@pytest.mark.parametrize(("master", "said"), BAD[:1] + BAD[2:3])
def test_the_cli_prints_one_line_with_the_default_environment(tmp_path, master, said) -> None:
    """``pyflowkit run`` as a user runs it: pre-warm on (it starts a warm-up of that master)."""
    script = tmp_path / "tens.py"
    script.write_text(JOB)
    env = {k: v for k, v in os.environ.items() if k != "PYFLOWKIT_SPARK_PREWARM"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    done = subprocess.run(
        [sys.executable, "-m", "pyflowkit", "run", str(script), "--master", master],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(
        f"pyflowkit run: error: tens.py on spark: SparkEnvironmentError: Invalid spark.master "
        f"{master!r}: "
    )
    assert said in lines[0]
    assert "JAVA_GATEWAY_EXITED" not in done.stderr
