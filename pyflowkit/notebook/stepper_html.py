"""The Stepper as static HTML and SVG, for nbconvert, GitHub and any viewer without a kernel.

No Flink counterpart.
"""

from __future__ import annotations

from html import escape
from typing import Any

from pyflowkit.render.themed_html import svg_element


def stepper_html(
    coloured_svg: str,
    job_status: str,
    step_count: int,
    tasks: list[dict[str, Any]],
    checkpoints: dict[str, Any],
) -> str:
    """JobStatus, the coloured ExecutionGraph (``static_svg``), the subtasks' states and the
    checkpoint history."""
    status = escape(job_status or "not submitted")
    rows = "".join(
        f"<tr><td>{escape(str(r['name']))}</td><td>{escape(str(r['state']))}</td></tr>"
        for r in tasks
    )
    return (
        f"<div class='pfk-static'><b>JobStatus: {status}</b> · step {step_count}"
        f"{svg_element(coloured_svg)}"
        f"<table><tr><th>subtask</th><th>state</th></tr>{rows}</table>"
        f"{checkpoint_table(checkpoints)}</div>"
    )


def checkpoint_table(pane: dict[str, Any]) -> str:
    """The checkpoint history as a static HTML table (empty when there is none)."""
    history, columns = pane.get("history") or [], pane.get("columns") or []
    if not history:
        return ""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(r.get(c, '')))}</td>" for c in columns) + "</tr>"
        for r in history
    )
    return f"<b>Checkpoints</b><table class='pfk-ck-history'><tr>{head}</tr>{body}</table>"
