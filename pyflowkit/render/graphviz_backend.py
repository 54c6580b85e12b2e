"""Pick the Graphviz layout program: the system ``dot`` if on PATH, else pip's ``graphviz-pure``.

No Flink counterpart: this is the plumbing under every ``.to_svg()`` and ``_repr_mimebundle_``.
The python ``graphviz`` package is imported lazily, so importing this module stays cheap.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

ENGINE_DOT = "dot"
ENGINE_PURE = "graphviz-pure"
ENGINES = (ENGINE_DOT, ENGINE_PURE)
FORMATS = ("svg", "png")

#: Set to ``dot`` or ``graphviz-pure`` to force one layout program instead of auto-detection.
ENGINE_ENV_VAR = "PYFLOWKIT_GRAPHVIZ_ENGINE"


class GraphvizNotFoundError(RuntimeError):
    """Neither the system ``dot`` nor ``graphviz-pure`` can be found."""


class GraphvizRenderError(RuntimeError):
    """The layout program rejected the DOT source or failed to produce output."""


def _search_path() -> str:
    """PATH plus this interpreter's scripts dir (a venv used without activating it)."""
    dirs = [os.environ.get("PATH", "")]
    for extra in (sysconfig.get_path("scripts"), str(Path(sys.executable).parent)):
        if extra and extra not in dirs:
            dirs.append(extra)
    return os.pathsep.join(d for d in dirs if d)


def _find(engine: str) -> Path | None:
    if engine == ENGINE_DOT:
        found = shutil.which("dot")  # the system Graphviz: only the real PATH counts
    else:
        found = shutil.which(ENGINE_PURE, path=_search_path())
    return Path(found) if found else None


def _not_found(detail: str) -> GraphvizNotFoundError:
    return GraphvizNotFoundError(
        f"{detail} pyflowkit renders graphs with Graphviz: install the system package "
        "(Debian/Ubuntu: `apt-get install graphviz`, macOS: `brew install graphviz`, "
        "conda: `conda install graphviz`) or the pip fallback (`pip install graphviz-pure`)."
    )


def find_engine() -> tuple[str, Path]:
    """Return ``(engine name, executable path)``; ``dot`` wins over ``graphviz-pure``."""
    forced = os.environ.get(ENGINE_ENV_VAR, "").strip()
    if forced:
        if forced not in ENGINES:
            raise ValueError(f"{ENGINE_ENV_VAR}={forced!r}: expected one of {', '.join(ENGINES)}")
        path = _find(forced)
        if path is None:
            raise _not_found(f"{ENGINE_ENV_VAR}={forced} but `{forced}` was not found.")
        return forced, path
    for engine in ENGINES:
        path = _find(engine)
        if path is not None:
            return engine, path
    raise _not_found("Neither `dot` (on PATH) nor `graphviz-pure` was found.")


def which_engine() -> str:
    """Name of the layout program that ``render`` will use: ``"dot"`` or ``"graphviz-pure"``."""
    return find_engine()[0]


def configure_graphviz() -> ModuleType:
    """Import the python ``graphviz`` package, point it at the chosen program and return it.

    After this call ``graphviz.Source``/``Digraph`` (``pipe``, ``render``, ``_repr_mimebundle_``)
    work on a pip-only install: ``graphviz-pure`` ships no ``dot`` command, so the module global
    ``graphviz.backend.dot_command.DOT_BINARY`` is set to the absolute path of the program found.
    """
    _, path = find_engine()
    import graphviz
    import graphviz.backend.dot_command as dot_command

    dot_command.DOT_BINARY = path
    return graphviz


def render(dot_source: str, fmt: str = "svg") -> bytes:
    """Lay out ``dot_source`` with the ``dot`` algorithm and return the ``svg`` or ``png`` bytes."""
    if fmt not in FORMATS:
        raise ValueError(f"unsupported format {fmt!r}: expected one of {', '.join(FORMATS)}")
    graphviz = configure_graphviz()
    try:
        return graphviz.pipe("dot", fmt, dot_source.encode("utf-8"), quiet=True)
    except graphviz.CalledProcessError as exc:
        stderr = exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else ""
        engine = which_engine()
        raise GraphvizRenderError(
            f"{engine} could not render the DOT source (exit {exc.returncode}): {stderr.strip()}"
        ) from exc
