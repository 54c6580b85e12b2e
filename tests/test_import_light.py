"""`import pyflowkit` (and the PyFlink-shaped modules) must not drag in heavy dependencies.

DESIGN.md: only `spark` imports pyspark, only `notebook`/`render` import IPython, ipywidgets,
anywidget or graphviz, and all of them lazily. Each check runs in a fresh interpreter.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pyspark", "py4j", "IPython", "ipywidgets", "anywidget", "graphviz")
MODULES = ("pyflowkit", "pyflowkit.datastream", "pyflowkit.common")

_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""


def _module_exists(name: str) -> bool:
    """Whether ``name`` exists as a module file or package, checked without importing it."""
    spec = importlib.util.find_spec("pyflowkit")
    if spec is None or not spec.submodule_search_locations:
        return False
    if name == "pyflowkit":
        return True
    rel = Path(*name.split(".")[1:])
    for location in spec.submodule_search_locations:
        base = Path(location) / rel
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return True
    return False


def loaded_modules_after_import(name: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSTARTUP", "PYTHONINSPECT")}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, name],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"`import {name}` failed:\n{proc.stderr}"
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("name", MODULES)
def test_import_does_not_load_heavy_dependencies(name: str) -> None:
    if not _module_exists(name):
        pytest.skip(f"{name} does not exist yet")
    loaded = loaded_modules_after_import(name)
    assert name in loaded
    heavy = sorted(m for m in loaded if m.split(".", 1)[0] in HEAVY)
    assert heavy == [], f"`import {name}` imported heavy modules eagerly: {heavy}"
