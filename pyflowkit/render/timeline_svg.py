"""A Gantt chart of every subtask's ExecutionState over simulated time (and the JobStatus on top).

No Flink counterpart (the web UI's job timeline shows vertices only). Input: state changes as
``JobRun.state_history()`` gives them (``subject``, ``time``, ``to``), JobMaster side. The bars are
drawn in milliseconds inside a nested SVG whose viewBox ends at ``now``, so a row's markup only
changes when its state does (rows can be cached between steps).
"""

from __future__ import annotations

from html import escape
from typing import Any

from pyflowkit.render.palette import STATE_PALETTE

ROW = 22  # px per subject
LABEL = 240  # px for the subjects' names
STATE = 110  # px on the right for the current state's name
FONT = 14
AXIS = 24  # px for the time axis
OPEN_END = 10**9  # ms: the current state's bar runs to the viewBox's edge

Row = tuple[str, str, list[tuple[int, str]]]


def _bars(r: int, label: str, changes: list[tuple[int, str]]) -> str:
    out = []
    for i, (start, state) in enumerate(changes):
        end = changes[i + 1][0] if i + 1 < len(changes) else OPEN_END
        out.append(
            f'<rect class="pfk-tl-bar" data-state="{state}" x="{start}" y="{r * ROW + 2}" '
            f'width="{end - start}" height="{ROW - 4}" fill="{STATE_PALETTE.get(state, "#ffffff")}">'
            f"<title>{escape(label)}: {state} from {start} ms</title></rect>"
        )
    return "".join(out)


def timeline_svg(
    rows: list[Row], now: int, width: int = 1100, cache: dict[Any, str] | None = None
) -> str:
    """``rows``: (row id, label, [(time, state) …] in time order) → SVG; bars end at ``now``.

    ``cache`` keeps each row's bars between calls (keyed by row, position and changes count).
    """
    span = max(now, 1)
    inner = width - LABEL - STATE
    height = AXIS + ROW * max(len(rows), 1) + 4
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pfk-timeline-svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" '
        f'font-size="{FONT}"><rect width="{width}" height="{height}" fill="#ffffff"/>'
    ]
    for k in range(5):
        t = round(span * k / 4)
        x = LABEL + inner * k / 4
        anchor = "start" if k == 0 else "end" if k == 4 else "middle"
        out.append(
            f'<line x1="{x:.1f}" y1="{AXIS - 4}" x2="{x:.1f}" y2="{height}" stroke="#d9d9d9"/>'
            f'<text x="{x:.1f}" y="{AXIS - 8}" text-anchor="{anchor}" fill="#404040">{t} ms</text>'
        )
    bars = []
    for r, (row_id, label, changes) in enumerate(rows):
        key = (row_id, r, len(changes))
        row = cache.get(key) if cache is not None else None
        if row is None:
            row = _bars(r, label, changes)
            if cache is not None:
                cache[key] = row
        bars.append(row)
        y = AXIS + r * ROW + ROW - 6
        current = changes[-1][1] if changes else ""
        out.append(
            f'<text class="pfk-tl-label" x="4" y="{y}">{escape(label)}</text>'
            f'<text class="pfk-tl-state" x="{width - 4}" y="{y}" text-anchor="end">{current}</text>'
        )
    out.append(
        f'<svg x="{LABEL}" y="{AXIS}" width="{inner}" height="{ROW * max(len(rows), 1)}" '
        f'viewBox="0 0 {span} {ROW * max(len(rows), 1)}" preserveAspectRatio="none">'
        + "".join(bars)
        + "</svg></svg>"
    )
    return "".join(out)


def timeline_rows(history: list[dict[str, Any]]) -> list[Row]:
    """Rows from ``state_history()`` dicts (JobMaster side only), the JobStatus first."""
    rows: dict[str, list[tuple[int, str]]] = {}
    for h in history:
        if h.get("component") not in (None, "JobMaster"):
            continue
        subject = str(h["subject"])
        changes = rows.setdefault(subject, [])
        if not changes and h.get("from"):
            changes.append((0, h["from"]))
        changes.append((int(h["time"]), h["to"]))
    ordered = sorted(rows, key=lambda s: (not s.startswith("job "), s))
    return [(s, "JobStatus" if s.startswith("job ") else s, rows[s]) for s in ordered]
