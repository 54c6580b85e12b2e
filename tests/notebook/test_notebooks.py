"""Every classroom notebook runs top to bottom under nbclient (IPC kernel), without error outputs,
in the environment a user's kernel has (Spark pre-warm on)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
WIDGET = "application/vnd.jupyter.widget-view+json"
SVG = "image/svg+xml"
#: notebook → mime types its outputs must contain
EXPECTED = {
    "01_word_count_cell_by_cell.ipynb": {SVG, "text/html"},
    "02_chaining_rules.ipynb": {SVG, "text/html"},
    "03_job_submission_step_by_step.ipynb": {SVG, WIDGET},
    "04_checkpoints.ipynb": {SVG, WIDGET, "text/html"},
    "05_failure_and_recovery.ipynb": {SVG, WIDGET, "text/html"},
    "06_running_on_spark.ipynb": {SVG, WIDGET, "text/html"},
    "07_geohash_alerts_end_to_end.ipynb": {SVG, WIDGET, "text/html"},
    "08_what_changed_since_1_11.ipynb": {"text/html", "text/markdown"},
    "09_back_pressure.ipynb": {SVG, WIDGET, "text/html"},
    "10_unaligned_checkpoints.ipynb": {SVG, WIDGET, "text/html"},
}
#: notebooks that need Spark throughout
SPARK = {"06_running_on_spark.ipynb"}
#: cells tagged so need Spark: they run only in the notebook's ``-spark`` variant
SPARK_TAG = "spark"


def spark_cells(nb) -> list:
    return [c for c in nb.cells if SPARK_TAG in c.metadata.get("tags", [])]


def execute(path: Path, tmp_path: Path, with_spark: bool = True):
    import nbformat
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if not with_spark:
        nb.cells = [c for c in nb.cells if SPARK_TAG not in c.metadata.get("tags", [])]
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    # the kernel gets the environment a user's kernel has: tests/conftest.py turns Spark's
    # pre-warm off for the test process, a user's %load_ext pre-warms when the notebook uses Spark
    env = {k: v for k, v in os.environ.items() if k != "PYFLOWKIT_SPARK_PREWARM"}
    NotebookClient(
        nb, km=km, timeout=300, resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute(env=env)
    return nb


def params():
    import nbformat

    spark_marks = [pytest.mark.spark, pytest.mark.slow]
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        if path.name in SPARK:
            yield pytest.param(path, True, id=path.stem, marks=spark_marks)
        elif spark_cells(nbformat.read(path, as_version=4)):
            yield pytest.param(path, False, id=path.stem)
            yield pytest.param(path, True, id=f"{path.stem}-spark", marks=spark_marks)
        else:
            yield pytest.param(path, False, id=path.stem)


def test_every_notebook_is_listed():
    assert {p.name for p in NOTEBOOKS.glob("*.ipynb")} == set(EXPECTED)


@pytest.mark.parametrize(("path", "with_spark"), list(params()))
def test_notebook_runs_clean(path: Path, with_spark: bool, tmp_path: Path):
    nb = execute(path, tmp_path, with_spark)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and "Learning goal" in first.source
    assert "What you saw" in nb.cells[-1].source
    mimes: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if "raises-exception" in cell.metadata.get("tags", []):
            assert errors, f"{path.name}: the tagged cell should raise:\n{cell.source}"
            assert "Nothing changed" in "\n".join(errors[0].traceback)
            continue
        assert not errors, f"{path.name}: {cell.source}\n" + "\n".join(errors[0].traceback)
        for output in cell.outputs:
            mimes |= set(output.get("data", {}))
    assert EXPECTED[path.name] <= mimes, mimes


def test_committed_notebooks_have_no_outputs():
    import nbformat

    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), path.name


def test_what_changed_notebook_compares_a_1_11_environment():
    import nbformat

    nb = nbformat.read(NOTEBOOKS / "08_what_changed_since_1_11.ipynb", as_version=4)
    sources = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert 'set_string("pyflowkit.flink-version", "1.11")' in sources
    assert "changes = compare_versions(env)" in sources
    assert "%load_ext" not in sources  # plain Python: the environment names its own version


def test_geohash_notebook_checks_both_runtimes_against_plain_python():
    import nbformat

    nb = nbformat.read(NOTEBOOKS / "07_geohash_alerts_end_to_end.ipynb", as_version=4)
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    assert any("--target local" in s for s in sources)
    assert [s for s in sources if "--target spark" in s] == [
        c.source for c in spark_cells(nb) if "--target spark" in c.source
    ]
    asserts = [s for s in sources if "assert" in s and "expected" in s]
    assert len(asserts) == 2 and any("spark_alerts" in s for s in asserts)


def test_back_pressure_notebooks_compare_measured_checkpoints():
    """09 makes back pressure with a slow sink and measures a checkpoint against a fast sink; 10
    puts unaligned checkpoints beside aligned ones (same job, seed and record cost)."""
    import nbformat

    def sources(name: str) -> str:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        return "\n".join(c.source for c in nb.cells if c.cell_type == "code")

    nine, ten = sources("09_back_pressure.ipynb"), sources("10_unaligned_checkpoints.ipynb")
    assert '--record-cost "Sink: slow sink=3" --metrics' in nine
    assert "fast = %pipeline step slow --seed 3\n" in nine
    assert "enable_unaligned_checkpoints()" in ten and "in_flight_data" in ten
