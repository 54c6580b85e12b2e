"""Rendering works with the system `dot` and, on a pip-only install, with `graphviz-pure`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from pyflowkit.render import graphviz_backend as gb

REPO_ROOT = Path(__file__).resolve().parents[1]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# Always 6-digit hex colours: dot 2.43 fills 3-digit ones (#eef) black.
DOT = """digraph G {
  rankdir=LR;
  node [shape=box, style=filled, fillcolor="#eeeeff", color="#333366"];
  subgraph cluster_v1 { label="Source: Collection Source -> Map"; src; map; }
  src [label="Source: Collection Source"];
  map [label="Map"];
  sink [label="Sink: Print to Std. Out", fillcolor="#ccffcc"];
  src -> map [label="FORWARD"];
  map -> sink [label="HASH"];
}
"""

REAL_WHICH = shutil.which
PURE = REAL_WHICH(gb.ENGINE_PURE) or REAL_WHICH(
    gb.ENGINE_PURE,
    path=os.pathsep.join([sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]),
)
SYSTEM_DOT = REAL_WHICH("dot")
needs_pure = pytest.mark.skipif(PURE is None, reason="graphviz-pure is not installed")
needs_dot = pytest.mark.skipif(
    SYSTEM_DOT is None, reason="no system `dot` (apt-get install graphviz)"
)


def _hide(*names: str):
    """A ``shutil.which`` that pretends ``names`` are not installed."""

    def which(cmd, mode=os.F_OK | os.X_OK, path=None):
        return None if cmd in names else REAL_WHICH(cmd, mode=mode, path=path)

    return which


@pytest.fixture(autouse=True)
def _no_forced_engine(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(gb.ENGINE_ENV_VAR, raising=False)
    yield
    # configure_graphviz() mutates a module global of `graphviz`: restore the default.
    mod = sys.modules.get("graphviz.backend.dot_command")
    if mod is not None:
        mod.DOT_BINARY = Path("dot")


def _check_svg(svg: bytes) -> None:
    text = svg.decode("utf-8")
    assert "<svg" in text
    for label in ("Source: Collection Source", "Map", "Sink: Print to Std. Out", "HASH"):
        assert label in text
    assert 'fill="#eeeeff"' in text.lower() and 'fill="#ccffcc"' in text.lower()
    nodes = re.findall(r'<g id="node\d+" class="node">.*?</g>', text, flags=re.S)
    assert len(nodes) == 3
    for node in nodes:  # a colour the engine did not understand comes out black
        assert 'fill="black"' not in node and 'fill="#000000"' not in node


@needs_pure
def test_pip_only_path_uses_graphviz_pure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", _hide("dot"))
    assert gb.which_engine() == "graphviz-pure"
    graphviz = gb.configure_graphviz()
    assert Path(graphviz.backend.dot_command.DOT_BINARY).name == "graphviz-pure"
    _check_svg(gb.render(DOT, "svg"))
    assert gb.render(DOT, "png").startswith(PNG_MAGIC)
    # The python graphviz objects work too once configured (what _repr_mimebundle_ relies on).
    assert "image/svg+xml" in graphviz.Source(DOT)._repr_mimebundle_()


@needs_pure
def test_pip_only_path_in_a_venv_without_dot_on_path() -> None:
    """A fresh interpreter whose PATH holds only the venv's bin dir (no system `dot`)."""
    bin_dir = Path(sys.executable).parent
    if (bin_dir / "dot").exists():
        pytest.skip("the venv has its own `dot`")
    code = (
        "import json; from pyflowkit.render import graphviz_backend as gb; "
        "svg = gb.render(open(0).read(), 'svg'); png = gb.render('digraph { a -> b }', 'png'); "
        "print(json.dumps([gb.which_engine(), svg.decode(), png[:8].hex()]))"
    )
    env = {k: v for k, v in os.environ.items() if k != gb.ENGINE_ENV_VAR}
    env["PATH"] = str(bin_dir)
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=DOT,
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    engine, svg, png_head = json.loads(proc.stdout)
    assert engine == "graphviz-pure"
    _check_svg(svg.encode())
    assert bytes.fromhex(png_head) == PNG_MAGIC


@needs_dot
def test_system_dot_is_preferred() -> None:
    assert gb.which_engine() == "dot"
    engine, path = gb.find_engine()
    assert path == Path(SYSTEM_DOT)
    graphviz = gb.configure_graphviz()
    assert Path(graphviz.backend.dot_command.DOT_BINARY) == Path(SYSTEM_DOT)
    _check_svg(gb.render(DOT, "svg"))
    assert gb.render(DOT, "png").startswith(PNG_MAGIC)


@needs_dot
@needs_pure
def test_engine_can_be_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(gb.ENGINE_ENV_VAR, "graphviz-pure")
    assert gb.which_engine() == "graphviz-pure"
    _check_svg(gb.render(DOT, "svg"))


def test_forced_engine_must_be_known(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(gb.ENGINE_ENV_VAR, "neato")
    with pytest.raises(ValueError, match="PYFLOWKIT_GRAPHVIZ_ENGINE"):
        gb.which_engine()


def test_clear_error_when_no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", _hide("dot", "graphviz-pure"))
    with pytest.raises(gb.GraphvizNotFoundError) as excinfo:
        gb.render(DOT, "svg")
    message = str(excinfo.value)
    assert "apt-get install graphviz" in message and "pip install graphviz-pure" in message
    with pytest.raises(gb.GraphvizNotFoundError):
        gb.which_engine()


def test_unsupported_format_is_rejected() -> None:
    with pytest.raises(ValueError, match="'pdf'"):
        gb.render(DOT, "pdf")


@pytest.mark.skipif(SYSTEM_DOT is None and PURE is None, reason="no Graphviz at all")
def test_invalid_dot_raises_render_error() -> None:
    with pytest.raises(gb.GraphvizRenderError, match="could not render"):
        gb.render("digraph { a -> ", "svg")


def test_backend_import_does_not_import_graphviz() -> None:
    code = (
        "import sys, pyflowkit.render.graphviz_backend; "
        "print(any(m == 'graphviz' or m.startswith('graphviz.') for m in sys.modules))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
