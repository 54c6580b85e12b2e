"""Stdout is the user's: on Spark only the job's own output reaches it, and a user's ``print()``
inside a function arrives on the driver's stdout in order per subtask (a fresh process, so the
gateway's shutdown at exit is part of what is checked)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]

PROGRAM = textwrap.dedent(
    """
    import logging, sys
    logging.basicConfig(level=logging.INFO, stream=sys.stdout)  # as a notebook or a user might
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment

    conf = Configuration()
    conf.set_string("execution.target", "spark")
    conf.set_string("spark.master", "local[2]")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)

    def shout(x):
        print(f"saw {x}", end="")
        print(" !")
        return x * 10

    env.from_collection(list(range(6))).rebalance().map(shout).print()
    env.execute("stdout")
    print("END")
    """
)


def test_only_the_jobs_output_and_user_prints_in_order_per_subtask(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(PROGRAM)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[-1] == "END"
    assert not any("py4j" in line or "clientserver" in line for line in lines), lines
    assert not any(
        line.startswith(("WARN", "INFO", "ERROR", "Setting default log")) for line in lines
    )
    body = lines[:-1]
    assert len(body) == 12
    user = [line for line in body if line.startswith("saw")]
    printed = [line for line in body if not line.startswith("saw")]
    assert sorted(user) == [f"saw {x} !" for x in range(6)]
    assert sorted(int(p.split("> ")[1]) for p in printed) == [10 * x for x in range(6)]
    # per subtask: the user's lines come in the order the subtask met its records
    for subtask in ("1", "2"):
        values = [int(p.split("> ")[1]) // 10 for p in printed if p.startswith(f"{subtask}>")]
        mine = [int(u.split()[1]) for u in user if int(u.split()[1]) in values]
        assert mine == values
