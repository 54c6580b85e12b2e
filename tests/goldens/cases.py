"""The cases the PyFlink goldens cover: each (pipeline, runtime mode) with how to compare its output.

Shared by ``tools/record_pyflink_goldens.py`` (which runs them on real PyFlink) and
``test_pyflink_goldens.py`` (which runs them on pyflowkit). A case's ``module`` is the staged
module name the recorder imports on PyFlink; ``source`` is the file in this repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tests.pipelines.catalog import CATALOG
from tests.pipelines.spec import Order

ROOT = Path(__file__).resolve().parent.parent.parent
PROGRAMS = Path(__file__).resolve().parent / "programs"
EXAMPLES = {"word_count": ("STREAMING", "BATCH")}


def _literal(path: Path, name: str, default: Any) -> Any:
    """A module-level constant of a program, read without importing it (it imports pyflink)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return default


def _defines(path: Path, name: str) -> bool:
    return any(
        isinstance(n, ast.FunctionDef) and n.name == name for n in ast.parse(path.read_text()).body
    )


def catalog_compare(pipeline: Any, mode: str) -> str:
    """``exact`` when Flink orders every sink totally; ``sorted`` when placement is by key
    (deterministic); ``sorted_no_subtask`` when a round robin starts at a random channel."""
    sinks = pipeline.expected(mode).values()
    if all(s.order is Order.TOTAL for s in sinks):
        return "exact"
    if all(s.subtasks is not None or s.parallelism == 1 for s in sinks):
        return "sorted"
    return "sorted_no_subtask"


def program_cases() -> list[dict[str, Any]]:
    out = []
    for path in sorted(PROGRAMS.glob("*.py")):
        kind = "collect" if _defines(path, "collect") else "print"
        for mode in _literal(path, "MODES", ("STREAMING",)):
            out.append(
                {
                    "id": f"program__{path.stem}__{mode}",
                    "source": str(path.relative_to(ROOT)),
                    "module": f"programs.{path.stem}",
                    "entry": kind if kind == "collect" else "build",
                    "mode": mode,
                    "kind": kind,
                    # BATCH sorts keyed input by the key's serialized bytes: an engine detail
                    "compare": _literal(
                        path, "COMPARE", "exact" if mode == "STREAMING" else "sorted"
                    ),
                }
            )
    return out


def catalog_cases() -> list[dict[str, Any]]:
    return [
        {
            "id": f"catalog__{p.name}__{mode}",
            "source": "tests/pipelines/catalog.py",
            "module": "tests.pipelines.catalog",
            "entry": f"catalog:{p.name}",
            "mode": mode,
            "kind": "print",
            "compare": catalog_compare(p, mode),
            "notes": p.notes,
        }
        for p in CATALOG
        for mode in p.modes
        if p.bounded  # unbounded ones use a Python SourceFunction, which PyFlink does not have
    ]


def example_cases() -> list[dict[str, Any]]:
    return [
        {
            "id": f"example__{name}__{mode}",
            "source": f"pyflowkit/examples/{name}.py",
            "module": f"examples.{name}",
            "entry": "build",
            "mode": mode,
            "kind": "print",
            "compare": "sorted",
        }
        for name, modes in EXAMPLES.items()
        for mode in modes
    ]


def all_cases() -> list[dict[str, Any]]:
    """Every case, with the notes of ``NOTES`` (by id without the mode) appended."""
    cases = program_cases() + example_cases() + catalog_cases()
    for case in cases:
        note = NOTES.get(case["id"].rsplit("__", 1)[0])
        if note:
            case["notes"] = f"{case.get('notes', '')} {note}".strip()
    return cases


# What a golden shows about Flink 1.20 against pyflowkit's Flink 1.11 model (by id without mode).
NOTES: dict[str, str] = {}
