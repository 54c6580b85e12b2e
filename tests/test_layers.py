"""The layering rules of DESIGN.md, checked on the import statements of every module.

Each layer lists the pyflowkit packages it may import (at module level or lazily); anything not
listed is refused. ``datastream`` is split: its definition modules (the user-function, state,
window and side-output classes that operators implement against) sit low, the API itself
(environment, streams) sits above the graph compiler.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pyflowkit"
REPO_ROOT = PACKAGE.parent

# pyflowkit.datastream modules that only define what user code implements (PyFlink's module
# paths): they import nothing of pyflowkit but errors, common and each other
DEFINITIONS = (
    "pyflowkit.datastream.functions",
    "pyflowkit.datastream.state",
    "pyflowkit.datastream.window",
    "pyflowkit.datastream.state_ttl_config",
    "pyflowkit.datastream.output_tag",
)
# what the graph layer reads of the operators: their descriptions, never an implementation
OPERATOR_DESCRIPTIONS = (
    "pyflowkit.operators.chaining_strategy",
    "pyflowkit.operators.boundedness",
    "pyflowkit.operators.factory",
)
# modules below every layer (they import nothing of pyflowkit): every layer may import them
BASE = {"errors", "java_semantics", "metrics"}
EVERYTHING = {
    "errors", "java_semantics", "metrics", "common", "state", "operators", "task", "graph", "datastream", "cep",
    "reference",
    "runtime", "spark", "render", "notebook", "cli", "examples",
}  # fmt: skip

# layer → pyflowkit packages (or exact modules, dotted) it may import besides BASE
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "java_semantics": set(),
    "metrics": set(),
    "common": {"errors"},
    "state": {"errors", "common", *DEFINITIONS},
    "operators": {"errors", "common", "state", *DEFINITIONS},
    "graph": {"errors", "common", "state", *OPERATOR_DESCRIPTIONS},
    "datastream": {"errors", "common", "state", "operators", "graph"},
    "cep": {"errors", "common", "state", "operators", "graph", "datastream"},
    # the one StreamTask core every host wraps: chain, lifecycle, input side (watermark valve, key
    # context, end of input), RecordWriterOutput routing, the execution-mode rule
    "task": {"errors", "common", "state", "operators", "graph", *DEFINITIONS},
    # the hosts of the same task core: the reference driver, the simulated cluster, Spark
    "reference": {"errors", "common", "state", "operators", "task", "graph", *DEFINITIONS},
    "runtime": {"errors", "common", "state", "operators", "task", "graph", *DEFINITIONS},
    "spark": {"errors", "common", "state", "operators", "task", "graph", *DEFINITIONS},
    "render": {"errors", "common", "graph"},
    "notebook": EVERYTHING - {"cli"},
    "cli": EVERYTHING - {"notebook"},
    "examples": {"errors", "common", "datastream", "cep", "runtime", "spark", "render"},
    # the package root re-exports the public API (lazily), wires the render layer's display
    # hook and loads the notebook extension; pyflowkit.compare_versions (issue #24) runs the
    # simulated cluster, so the root may name that one runtime module (lazily)
    "__init__": {
        "datastream",
        "common",
        "render",
        "notebook",
        "pyflowkit.runtime.version_comparison",
    },
    "__main__": {"cli"},
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


def _dotted(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _within(module: str, names: set[str] | tuple[str, ...]) -> bool:
    """Whether ``module`` is one of the dotted ``names`` or inside one of them."""
    return any(module == n or module.startswith(n + ".") for n in names if "." in n)


def allowed(layer: str, module: str) -> bool:
    """Whether a module of ``layer`` may import the pyflowkit module ``module``."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] == layer:
        return True
    rules = ALLOWED[layer] if layer in BASE else ALLOWED[layer] | BASE
    return parts[1] in rules or _within(module, rules)


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_module_respects_the_layers(path: Path) -> None:
    package = _package_of(path)
    assert package in ALLOWED, f"pyflowkit/{package} is not a layer of DESIGN.md; add it here"
    for module, module_level in _imports(path):
        parts = module.split(".")
        if parts[0] == "pyflowkit":
            assert allowed(package, module), (
                f"pyflowkit/{path.relative_to(PACKAGE)} imports {module}: the {package} layer "
                f"may import only {sorted(ALLOWED[package])} (DESIGN.md, Layers)"
            )
        heavy = HEAVY.get(parts[0])
        if heavy is not None:
            assert package in heavy, f"{path.name}: only {sorted(heavy)} may import {module}"
            assert not module_level or package == "notebook", (
                f"{path.name} imports {module} at module level; import lazily"
            )


@pytest.mark.parametrize(
    "path",
    [p for p in _modules() if _within(_dotted(p), DEFINITIONS)],
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_definition_modules_import_only_errors_common_and_each_other(path: Path) -> None:
    for module, _ in _imports(path):
        if module.startswith("pyflowkit."):
            assert module.split(".")[1] in BASE | {"common"} or _within(module, DEFINITIONS), (
                f"pyflowkit/{path.relative_to(PACKAGE)} imports {module}: a definition module "
                "that the operators import must not pull in the DataStream API or the compiler"
            )


def test_the_operator_registry_loads_only_operator_modules() -> None:
    from pyflowkit.operators import registry

    assert all(m.startswith("pyflowkit.operators.") for m in registry._BUILTIN_MODULES)


# the one arrow taken by name: ``env.execute()`` finds its executor by ``execution.target``, as
# Flink's ``PipelineExecutorServiceLoader`` finds a ``PipelineExecutorFactory``
EXECUTORS = {"pyflowkit.runtime.local_executor", "pyflowkit.spark.executor"}


def _loaded_by_name(path: Path) -> list[str]:
    """Dotted pyflowkit module names written in a module that calls importlib (what it may load)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if not any(
        isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("importlib.import_module", "import_module", "__import__")
        for node in ast.walk(tree)
    ):
        return []
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"pyflowkit(\.\w+)+", node.value)
    ]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_loaded_by_name_respect_the_layers_too(path: Path) -> None:
    """No importlib detour around the arrows: lazy re-exports, the operators' registry and the
    executor lookup load only what the layer may import (or an executor, for the API)."""
    package = _package_of(path)
    for module in _loaded_by_name(path):
        assert allowed(package, module) or (package == "datastream" and module in EXECUTORS), (
            f"pyflowkit/{path.relative_to(PACKAGE)} loads {module} by name"
        )


_PROBE = """
import importlib, json, sys
importlib.import_module(sys.argv[1])
print(json.dumps(sorted(m for m in sys.modules if m.startswith("pyflowkit"))))
"""


def _loaded_after_import(name: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSTARTUP", "PYTHONINSPECT")}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, name],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_importing_an_operator_does_not_load_the_datastream_api_or_the_compiler() -> None:
    loaded = _loaded_after_import("pyflowkit.operators.simple")
    assert "pyflowkit.datastream.functions" in loaded  # the definitions it implements
    api = {
        m for m in loaded if m.startswith("pyflowkit.datastream.") and not _within(m, DEFINITIONS)
    }
    assert not api, f"importing pyflowkit.operators.simple loaded {sorted(api)}"
    above = {m for m in loaded if m.split(".")[1:2] in (["runtime"], ["spark"], ["notebook"])}
    assert not above, sorted(above)
    graph = {m for m in loaded if m.startswith("pyflowkit.graph.")}
    assert graph == {"pyflowkit.graph.renderable"}, sorted(graph)  # registered by import pyflowkit


def test_compiling_loads_no_operator_implementation() -> None:
    """The graph layer reads operator descriptions; the registry builds operators at run time."""
    loaded = _loaded_after_import("pyflowkit.graph.streaming_job_graph_generator")
    operators = {m for m in loaded if m.startswith("pyflowkit.operators.")}
    assert operators <= {
        *OPERATOR_DESCRIPTIONS,
        "pyflowkit.operators.registry",
        "pyflowkit.operators.user_code_copy",
    }, sorted(operators)


def test_a_graph_does_not_load_the_renderer_until_it_is_drawn() -> None:
    loaded = _loaded_after_import("pyflowkit.graph.stream_graph_generator")
    assert "pyflowkit.render.display_hook" in loaded  # registered by `import pyflowkit`
    assert not {m for m in loaded if m.startswith("pyflowkit.render.")} - {
        "pyflowkit.render.display_hook"
    }
    assert not {m for m in loaded if m.startswith("pyflowkit.datastream")}
