"""Find the widgets' front-end files: ``pyflowkit/_widgets`` in a wheel, ``<repo>/widgets`` in a checkout.

No Flink counterpart.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path

REPO_WIDGETS = Path(__file__).resolve().parents[2] / "widgets"


def widget_file(name: str) -> Path:
    """Path of a front-end file (``graph_view.js``, ``widgets.css``…), wheel first, then repo."""
    packaged = importlib.resources.files("pyflowkit") / "_widgets" / name
    if packaged.is_file():
        return Path(str(packaged))
    if (REPO_WIDGETS / name).is_file():
        return REPO_WIDGETS / name
    raise FileNotFoundError(
        f"widget front-end file {name!r} not found in pyflowkit/_widgets (installed wheel) "
        f"nor in {REPO_WIDGETS} (source checkout); reinstall pyflowkit"
    )


def widget_bundle(*names: str) -> str:
    """One ES module from several front-end files (no build step): each file's
    ``export default`` line is dropped except the last file's, so their functions share a scope."""
    texts = [widget_file(name).read_text(encoding="utf-8") for name in names]
    kept = [
        "\n".join(line for line in text.splitlines() if not line.startswith("export default"))
        for text in texts[:-1]
    ]
    return "\n".join([*kept, texts[-1]])


def widget_styles(*names: str) -> str:
    """One style sheet from several CSS files, in order (later rules win at equal specificity)."""
    return "\n".join(widget_file(name).read_text(encoding="utf-8") for name in names)
