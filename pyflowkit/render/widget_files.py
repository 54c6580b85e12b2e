"""Find the widgets' front-end files: ``pyflowkit/_widgets`` in a wheel, ``<repo>/widgets`` in a checkout.

No Flink counterpart. In the render layer because its static outputs embed the theme style sheets
(``themed_html``); ``pyflowkit.notebook.assets`` builds the widgets' modules from the same files.
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
