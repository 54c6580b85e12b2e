"""The layering rules of DESIGN.md, checked on the import statements of every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pyflowkit"

# package → pyflowkit packages it must never import (at module level or lazily)
FORBIDDEN = {
    "common": {
        "datastream",
        "graph",
        "operators",
        "state",
        "runtime",
        "spark",
        "render",
        "notebook",
        "cli",
    },
    "graph": {"runtime", "spark", "notebook", "cli"},
    "operators": {"runtime", "spark", "render", "notebook", "cli"},
    "state": {"runtime", "spark", "render", "notebook", "cli"},
    "runtime": {"spark", "render", "notebook", "cli"},
    "spark": {"runtime", "render", "notebook", "cli"},
    "render": {"runtime", "spark", "notebook", "cli"},
}
# third-party modules only these packages may import; lazily (inside functions), except in
# pyflowkit.notebook, which is itself loaded only by %load_ext or an explicit import
HEAVY = {
    "pyspark": {"spark"},
    "IPython": {"notebook", "render"},
    "ipywidgets": {"notebook"},
    "anywidget": {"notebook"},
    "graphviz": {"render"},
}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(imported module, is_module_level) for every import in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, id(node) in top_level) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, id(node) in top_level))
    return found


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "_widgets" not in p.parts)


def _package_of(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_respects_the_layers(path: Path) -> None:
    package = _package_of(path)
    for module, module_level in _imports(path):
        parts = module.split(".")
        if parts[0] == "pyflowkit" and len(parts) > 1:
            assert parts[1] not in FORBIDDEN.get(package, set()), (
                f"pyflowkit/{path.relative_to(PACKAGE)} imports {module}: the {package} layer "
                f"must not import pyflowkit.{parts[1]} (DESIGN.md, Layers)"
            )
        allowed = HEAVY.get(parts[0])
        if allowed is not None:
            assert package in allowed, f"{path.name}: only {sorted(allowed)} may import {module}"
            assert not module_level or package == "notebook", (
                f"{path.name} imports {module} at module level; import lazily"
            )
