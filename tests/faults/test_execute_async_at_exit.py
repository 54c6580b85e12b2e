"""Local ``execute_async()`` never asked for its result (issue 26: it ran nothing and the program
exited 0 with an empty sink, without a word).

PyFlink's local job runs in the background without being asked; a job on the simulated cluster
advances only when its JobClient asks (its steps are what a class watches), so pyflowkit warns at
exit instead: one stderr line per such job naming it, its status and the call that runs it. The
exit code stays 0, as PyFlink's.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO_ROOT

JOB = textwrap.dedent(
    """
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import StreamExecutionEnvironment

    conf = Configuration().set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(1)
    env.from_collection([1, 2, 3]).map(lambda x: x * 10).print()
    """
)

# (case, what the program does after building the job, warned?, stdout)
CASES = [
    ("client kept, never asked", "client = env.execute_async('tens')\n", True, ""),
    ("client dropped at once", "env.execute_async('tens')\n", True, ""),
    (
        "a savepoint only",
        "client = env.execute_async('tens')\n"
        "client.trigger_savepoint(__import__('tempfile').mkdtemp()).result()\n",
        True,
        "10\n20\n30\n",  # stepped until every task RUNNING: the records went through
    ),
    (
        "result asked",
        "client = env.execute_async('tens')\nclient.get_job_execution_result().result()\n",
        False,
        "10\n20\n30\n",
    ),
    (
        "result asked, client dropped",
        "env.execute_async('tens').get_job_execution_result().result()\n",
        False,
        "10\n20\n30\n",
    ),
    ("cancelled", "client = env.execute_async('tens')\nclient.cancel().result()\n", False, ""),
]


@pytest.mark.parametrize(
    ("program", "warned", "stdout"), [pytest.param(*c[1:], id=c[0]) for c in CASES]
)
def test_an_unfinished_execute_async_job_is_named_at_exit(program, warned, stdout) -> None:
    done = subprocess.run(
        [sys.executable, "-c", JOB + program],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == stdout
    if warned:
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith("pyflowkit: job 'tens' (")
        assert "was submitted with execute_async() and is still RUNNING at exit" in lines[0]
        assert "job_client.get_job_execution_result().result()" in lines[0]
    else:
        assert done.stderr == ""
