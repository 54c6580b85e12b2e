"""The default a user gets, end to end: Spark pre-warm ON (``tests/conftest.py`` turns it off for
every other test, for speed), ``%load_ext pyflowkit`` then an immediate Spark run (issue 26).

Notebook 06 used to fail here with "No operator registered for Flink operator class
'StreamSource'. Known: ." — the warm-up thread and the user's run both reached the operator
registry while its first load was still importing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.notebook.test_notebooks import NOTEBOOKS, SPARK_TAG

REPO = Path(__file__).resolve().parents[2]
#: the word count's running updates, as ``subtask> record`` lines less the subtask
WORD_COUNT = sorted(
    str(t)
    for t in [("to", 1), ("be", 1), ("or", 1), ("not", 1), ("to", 2), ("be", 2)]
    + [("that", 1), ("is", 1), ("the", 1), ("question", 1)]
)
JVM_LINE = "Using incubator modules"  # what the JVM itself prints on every start (env-notes §2)


def default_environment(tmp_path: Path) -> dict[str, str]:
    """The test process's environment less the test-wide switches: what a user's kernel has."""
    env = {k: v for k, v in os.environ.items() if k != "PYFLOWKIT_SPARK_PREWARM"}
    env["PYTHONPATH"] = str(REPO)
    env["PYFLOWKIT_SPARK_JVM_LOG"] = str(tmp_path / "spark-jvm.log")
    return env


def _records(lines: list[str]) -> list[str]:
    return sorted(line.split("> ", 1)[1] for line in lines)


@pytest.mark.spark
@pytest.mark.slow
def test_load_ext_with_prewarm_then_an_immediate_spark_run(tmp_path):
    """IPython shell, pre-warm on (the default), ``%pipeline run wc --target spark`` at once."""
    program = textwrap.dedent(
        """
        import json
        from IPython.testing.globalipapp import get_ipython
        from pyflowkit.spark import warmup

        shell = get_ipython()
        shell.run_line_magic("load_ext", "pyflowkit")
        assert warmup.enabled() and warmup.warmup_for() is not None, "no warm-up started"
        shell.run_cell('''%%pipeline wc
        env.set_parallelism(2)
        lines = env.from_collection(["to be or not to be", "that is the question"])
        counts = (
            lines.flat_map(lambda line: line.split())
            .map(lambda w: (w, 1))
            .key_by(lambda t: t[0])
            .reduce(lambda a, b: (a[0], a[1] + b[1]))
        )
        counts.print()
        ''')
        outcome = shell.run_cell("spark_result = %pipeline run wc --target spark")
        result = shell.user_ns.get("spark_result")
        records = None if result is None else result.results["Sink: Print to Std. Out"]
        print("RESULT " + json.dumps({
            "error": repr(outcome.error_in_exec) if outcome.error_in_exec else None,
            "records": None if records is None else sorted(str(r) for r in records),
            "warmed": warmup.warmup_for().result(300).reason,
        }))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program],
        cwd=tmp_path,
        env=default_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "No operator registered" not in done.stdout + done.stderr
    line = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")][-1]
    got = json.loads(line[len("RESULT ") :])
    assert got["error"] is None, got
    assert _records(got["records"]) == WORD_COUNT
    assert got["warmed"] == "%load_ext pyflowkit"
    # the warm-up's JVM wrote its stderr to the log file, not to the user's stderr
    assert JVM_LINE not in done.stderr
    assert JVM_LINE in (tmp_path / "spark-jvm.log").read_text()


def _execute_default(nb, tmp_path: Path):
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    client = NotebookClient(
        nb, km=km, timeout=300, resources={"metadata": {"path": str(NOTEBOOKS)}}
    )
    client.execute(env=default_environment(tmp_path))
    return nb


def _errors(nb) -> list:
    """Error outputs, less those of cells tagged ``raises-exception`` (a lesson's wrong cell)."""
    return [
        o
        for c in nb.cells
        if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
        for o in c.outputs
        if o.output_type == "error"
    ]


def _stderr_streams(nb) -> list[str]:
    return [
        o.text
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream" and o.name == "stderr"
    ]


_WAIT_FOR_WARM_UP = (
    "from pyflowkit.spark.warmup import warmup_for\n"
    "print('warm-up:', warmup_for().result(300).reason)"
)


@pytest.mark.spark
@pytest.mark.slow
def test_notebook_06_under_nbclient_with_the_default_environment(tmp_path):
    import nbformat

    nb = nbformat.read(NOTEBOOKS / "06_running_on_spark.ipynb", as_version=4)
    _execute_default(nb, tmp_path)
    errors = _errors(nb)
    assert not errors, "\n".join(errors[0].traceback)
    text = json.dumps(nb.dict())
    assert "No operator registered" not in text
    # the notebook's own check: Spark and the simulated cluster printed the same records
    last_code = [c for c in nb.cells if c.cell_type == "code"][-1]
    assert last_code.outputs[-1].data["text/plain"] == "True"
    assert not [s for s in _stderr_streams(nb) if JVM_LINE in s]


@pytest.mark.spark
@pytest.mark.slow
def test_a_notebook_that_never_uses_spark_shows_no_jvm_stderr(tmp_path):
    """Notebook 01 (no Spark cell) with pre-warm on: the warm-up runs to its end in the
    background (a last cell waits for it), and no cell shows a stderr stream from the JVM."""
    import nbformat

    nb = nbformat.read(NOTEBOOKS / "01_word_count_cell_by_cell.ipynb", as_version=4)
    nb.cells = [c for c in nb.cells if SPARK_TAG not in c.metadata.get("tags", [])]
    nb.cells.append(nbformat.v4.new_code_cell(_WAIT_FOR_WARM_UP))
    _execute_default(nb, tmp_path)
    errors = _errors(nb)
    assert not errors, "\n".join(errors[0].traceback)
    assert nb.cells[-1].outputs[0].text.strip() == "warm-up: %load_ext pyflowkit"
    assert _stderr_streams(nb) == []
    assert JVM_LINE in (tmp_path / "spark-jvm.log").read_text()
