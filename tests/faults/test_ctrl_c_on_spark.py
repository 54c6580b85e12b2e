"""Ctrl-C during ``env.execute()`` on Spark (issue 26: the query was cancelled but ``execute()``
returned a normal ``JobExecutionResult``, and a py4j traceback went to stderr).

Flink's behaviour as a Python user meets it: the interrupt reaches the program as
``KeyboardInterrupt`` (after the job is cancelled), stderr holds nothing else. A real SIGINT is
sent to a real program once its job has produced output, bounded and unbounded.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.conftest import REPO_ROOT

pytestmark = [pytest.mark.spark, pytest.mark.slow]

PROGRAM = textwrap.dedent(
    """
    import sys, time
    from pyflowkit.common import Configuration, Types
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.datastream.functions import SourceFunction

    class Endless(SourceFunction):
        def run(self, ctx):
            i = 0
            while True:
                time.sleep(0.05)
                i += 1
                yield i

    MARKER = sys.argv[2]

    def slowly(x):
        open(MARKER, "a").close()  # the job is running on Spark
        time.sleep(0.5)
        return x

    conf = Configuration()
    conf.set_string("spark.master", "local[2]")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    if sys.argv[1] == "unbounded":
        env.add_source(Endless(), "Endless", Types.INT()).map(slowly, Types.INT()).print()
    else:
        env.from_collection(list(range(400)), Types.INT()).map(slowly, Types.INT()).print()
    print("STARTING", flush=True)
    try:
        result = env.execute("interrupted")
        print("RETURNED", result, flush=True)
    except KeyboardInterrupt as exc:
        print("INTERRUPTED", exc, flush=True)
    """
)


@pytest.mark.parametrize("kind", ["unbounded", "bounded"])
def test_ctrl_c_cancels_then_raises_keyboard_interrupt(tmp_path, kind) -> None:
    script = tmp_path / "job.py"
    script.write_text(PROGRAM)
    err_path = tmp_path / "stderr.txt"
    marker = tmp_path / "running"
    env = {k: v for k, v in os.environ.items() if k != "PYFLOWKIT_SPARK_PREWARM"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    with open(err_path, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, str(script), kind, str(marker)],
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 600
        try:
            while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert marker.exists(), err_path.read_text()
            time.sleep(1.0)
            proc.send_signal(signal.SIGINT)
            rest, _ = proc.communicate(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
    out = rest.splitlines()
    stderr = err_path.read_text()
    assert proc.returncode == 0, stderr
    assert not [line for line in out if line.startswith("RETURNED")]
    interrupted = [line for line in out if line.startswith("INTERRUPTED")]
    assert len(interrupted) == 1, (out, stderr)
    assert re.fullmatch(
        r"INTERRUPTED Job 'interrupted' \([0-9a-f]{32}\) was cancelled \(Ctrl-C\)\.",
        interrupted[0],
    ), interrupted
    assert "Traceback" not in stderr and "py4j" not in stderr.lower(), stderr
