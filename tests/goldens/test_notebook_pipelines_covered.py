"""Every classroom notebook's pipeline has a real-PyFlink golden, and the golden's program is what
the notebook runs (issue #22: the oracle covers the notebooks' pipelines).

A notebook builds its pipelines in ``%%pipeline NAME`` cells; ``tests/goldens/programs/
notebookNN_NAME.py`` is that pipeline as a PyFlink program. Every statement of the program's
``build`` must be a statement of the notebook's cells for NAME (compared as unparsed syntax trees, so an
edit to either side that changes the dataflow fails here until the golden is re-recorded).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PROGRAMS = ROOT / "tests" / "goldens" / "programs"
GOLDENS = ROOT / "tests" / "goldens" / "pyflink"

# Pipelines built outside a ``%%pipeline`` cell: notebook → (name, the cell that builds it).
PLAIN_CELL_PIPELINES = {"08": ("rows", "compare_versions(env)")}
# Pipelines whose golden is not a notebook program, with the golden that covers them.
COVERED_ELSEWHERE = {
    ("07", "alerts"): "example__alerts_geohash__STREAMING",  # the bundled example, its own golden
}


def _statements(source: str) -> list[str]:
    """Top-level statements, unparsed from their syntax trees (so layout and comments do not
    count; environment creation left out: the programs receive ``env``)."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and "get_execution_environment" in ast.unparse(node.value):
            continue
        out.append(ast.unparse(node))
    return out


def notebook_pipelines(path: Path) -> dict[str, list[str]]:
    """Each pipeline name of a notebook → the statements of the cells that build it."""
    number = path.name[:2]
    cells = json.loads(path.read_text())["cells"]
    out: dict[str, list[str]] = {}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        if source.startswith("%%pipeline "):
            header, _, body = source.partition("\n")
            name = header.split()[1]
            out.setdefault(name, []).extend(_statements(body))
        elif number in PLAIN_CELL_PIPELINES and PLAIN_CELL_PIPELINES[number][1] in source:
            plain = "\n".join(line for line in source.splitlines() if not line.startswith("%"))
            out.setdefault(PLAIN_CELL_PIPELINES[number][0], []).extend(_statements(plain))
    return out


def program_statements(path: Path) -> list[str]:
    build = next(n for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef))
    return [ast.unparse(n) for n in build.body]


CASES = [
    (path.name[:2], name, statements)
    for path in NOTEBOOKS
    for name, statements in notebook_pipelines(path).items()
]


def test_the_notebooks_build_pipelines() -> None:
    names = {(number, name) for number, name, _ in CASES}
    assert ("01", "wc") in names and ("05", "recovery") in names and ("08", "rows") in names
    assert len(names) == len(CASES) >= 14


@pytest.mark.parametrize(
    ("number", "name", "statements"), CASES, ids=[f"{n}_{p}" for n, p, _ in CASES]
)
def test_each_notebook_pipeline_has_a_golden_of_the_same_program(
    number: str, name: str, statements: list[str]
) -> None:
    if (number, name) in COVERED_ELSEWHERE:
        assert (GOLDENS / f"{COVERED_ELSEWHERE[number, name]}.json").exists()
        return
    program = PROGRAMS / f"notebook{number}_{name}.py"
    assert program.exists(), f"notebook {number}'s pipeline {name!r} has no golden program"
    assert list(GOLDENS.glob(f"program__notebook{number}_{name}__*.json")), (
        f"re-run tools/record_pyflink_goldens.py --missing for {program.name}"
    )
    missing = [s for s in program_statements(program) if s not in statements]
    assert not missing, (
        f"{program.name} runs statements notebook {number}'s {name!r} cells do not: "
        + " | ".join(missing)
    )
