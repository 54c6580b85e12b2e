"""Tables a class can read on a projector: every cell in full (no "…"), text left-aligned, no index.

No Flink counterpart: a pandas display helper for the notebooks.
"""

from __future__ import annotations

from typing import Any

STYLE = [
    {"selector": "th", "props": [("text-align", "left"), ("font-size", "14px")]},
    {"selector": "td", "props": [("text-align", "left"), ("font-size", "14px")]},
]


def readable(frame: Any) -> Any:
    """A pandas ``Styler`` of ``frame``: full cell text, left-aligned, 14 px, index hidden."""
    return frame.style.hide(axis="index").set_table_styles(STYLE).format(na_rep="")
