"""A Gantt chart of every subtask's ExecutionState over simulated time (and the JobStatus on top),
with markers for completed and failed checkpoints and for restores, and a legend of its colours.

No Flink counterpart (the web UI's job timeline shows vertices only). Input: state changes as
``JobRun.state_history()`` gives them (``subject``, ``time``, ``to``), JobMaster side. The bars are
drawn inside a nested SVG in *display* milliseconds: simulated time, except that every restart wait
(the JobStatus RESTARTING while the restart strategy's delay runs) is compressed to a short stretch
with a break mark, so the wait does not dominate the chart. A row's markup only changes when its
state (or the compression) does, so rows are cached between steps.
"""

from __future__ import annotations

from bisect import bisect_right
from html import escape
from typing import Any

from pyflowkit.render.palette import STATE_PALETTE, STATE_TEXT
from pyflowkit.render.sim_time import sim_time

ROW = 22  # px per subject
LABEL = 240  # px for the subjects' names
STATE = 120  # px on the right for the current state's name
FONT = 14
AXIS = 24  # px for the time axis
MARKS = 22  # px for the checkpoint/restore markers' labels, under the axis
OPEN_END = 10**9  # ms: the current state's bar runs to the viewBox's edge
#: A compressed restart wait takes this share of the rest of the chart's time (at most its own).
WAIT_SHARE = 0.06
#: Marker kinds: (symbol, colour, legend text).
MARKERS = {
    "completed": ("✓", "#006b4e", "checkpoint completed"),
    "failed": ("✗", "#8f0d23", "checkpoint failed"),
    "restored": ("⟲", "#251463", "restored"),
}
#: The order of states in the legend (the ones the chart uses are shown).
LEGEND_ORDER = (
    "CREATED",
    "SCHEDULED",
    "DEPLOYING",
    "INITIALIZING",
    "RUNNING",
    "FINISHED",
    "CANCELING",
    "CANCELLING",
    "CANCELED",
    "FAILING",
    "FAILED",
    "RESTARTING",
    "RECONCILING",
    "SUSPENDED",
)

Row = tuple[str, str, list[tuple[int, str]]]
#: A marker: (simulated ms, kind, label) with kind a key of ``MARKERS``.
Marker = tuple[int, str, str]


class TimeAxis:
    """Simulated ms → display ms: identity, but each (start, end) wait shrunk to ``WAIT_SHARE``."""

    def __init__(self, waits: list[tuple[int, int]], now: int) -> None:
        waits = sorted((a, min(b, now)) for a, b in waits if min(b, now) > a)
        waited = sum(b - a for a, b in waits)
        rest = max(now - waited, 1)
        self.waits = [(a, b, min(b - a, max(1, round(rest * WAIT_SHARE)))) for a, b in waits]
        self.starts = [a for a, _, _ in self.waits]
        self.now = now
        self.span = max(self.map(now), 1)

    def key(self) -> tuple[Any, ...]:
        return tuple(self.waits)

    def map(self, t: int) -> float:
        """Display ms of simulated ``t``."""
        if t >= OPEN_END:
            return float(OPEN_END)
        shift = 0.0
        for a, b, short in self.waits[: bisect_right(self.starts, t)]:
            if t >= b:
                shift += (b - a) - short
            else:  # inside the wait: proportionally
                return t - shift - (t - a) + short * (t - a) / (b - a)
        return t - shift


def _bars(r: int, label: str, changes: list[tuple[int, str]], axis: TimeAxis) -> str:
    out = []
    for i, (start, state) in enumerate(changes):
        end = changes[i + 1][0] if i + 1 < len(changes) else OPEN_END
        x0, x1 = axis.map(start), axis.map(end)
        out.append(
            f'<rect class="pfk-tl-bar" data-state="{state}" x="{x0:g}" y="{r * ROW + 2}" '
            f'width="{x1 - x0:g}" height="{ROW - 4}" fill="{STATE_PALETTE.get(state, "#ffffff")}" '
            'stroke="#8c8c8c" vector-effect="non-scaling-stroke">'
            f"<title>{escape(label)}: {state} from {sim_time(start)}</title></rect>"
        )
    return "".join(out)


def restart_waits(rows: list[Row]) -> list[tuple[int, int]]:
    """The (start, end) of every RESTARTING stretch of the JobStatus row (end: OPEN_END if open)."""
    waits = []
    for row_id, _, changes in rows:
        if row_id != "job" and not row_id.startswith("job "):
            continue
        for i, (start, state) in enumerate(changes):
            if state == "RESTARTING":
                end = changes[i + 1][0] if i + 1 < len(changes) else OPEN_END
                waits.append((start, end))
    return waits


def _legend(states: list[str], markers: list[Marker], width: int) -> tuple[str, int]:
    """The legend's items (state chips, then marker kinds), wrapped to ``width``; (svg, height)."""
    items: list[tuple[int, str]] = []
    for state in states:
        w = 9 * len(state) + 16
        items.append(
            (
                w,
                f'<g class="pfk-tl-legend-item" data-state="{state}"><rect x="{{x}}" y="{{y}}" '
                f'width="{w}" height="20" rx="3" fill="{STATE_PALETTE.get(state, "#ffffff")}" '
                f'stroke="#404040"/><text x="{{tx}}" y="{{ty}}" text-anchor="middle" '
                f'fill="{STATE_TEXT.get(state, "#000000")}">{state}</text></g>',
            )
        )
    for kind in dict.fromkeys(k for _, k, _ in markers):
        symbol, colour, text = MARKERS[kind]
        label = escape(f"{symbol} {text}")
        items.append(
            (
                8 * len(label) + 12,
                f'<text class="pfk-tl-legend-mark pfk-tl-legend-{kind}" x="{{x}}" y="{{ty}}" '
                f'fill="{colour}" '
                f'font-weight="700">{label}</text>',
            )
        )
    out, x, y = [], 4, 0
    for w, markup in items:
        if x + w > width - 4 and x > 4:
            x, y = 4, y + 24
        out.append(markup.format(x=x, y=y, tx=f"{x + w / 2:g}", ty=y + 15))
        x += w + 6
    return "".join(out), (y + 24 if items else 0)


def timeline_svg(
    rows: list[Row],
    now: int,
    width: int = 1100,
    cache: dict[Any, str] | None = None,
    markers: list[Marker] | None = None,
) -> str:
    """``rows``: (row id, label, [(time, state) …] in time order) → SVG; bars end at ``now``.

    ``markers``: checkpoints completed/failed and restores, drawn as vertical lines with a symbol.
    ``cache`` keeps each row's bars between calls (keyed by row, position, changes count, waits).
    """
    markers = markers or []
    axis = TimeAxis(restart_waits(rows), now)
    span = axis.span
    inner = width - LABEL - STATE
    top = AXIS + MARKS
    bars_h = ROW * max(len(rows), 1)
    used = {state for _, _, changes in rows for _, state in changes}
    legend, legend_h = _legend([s for s in LEGEND_ORDER if s in used], markers, width)
    height = top + bars_h + 6 + legend_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="pfk-timeline-svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-family="system-ui, sans-serif" '
        f'font-size="{FONT}"><rect class="pfk-tl-bg" width="{width}" height="{height}" '
        'fill="#ffffff"/>'
    ]

    def px(t: int) -> float:
        return LABEL + inner * axis.map(t) / span

    ticks = [0, now] + [b for a, b, _ in axis.waits if b < now] + [a for a, _, _ in axis.waits]
    ticks = sorted(set(ticks))
    placed: list[float] = []
    for t in ticks:  # axis labels at 0, now, and where each wait starts and ends: no overlap
        x = px(t)
        if any(abs(x - p) < 70 for p in placed):
            continue
        placed.append(x)
        anchor = "start" if t == 0 else "end" if t == now else "middle"
        out.append(
            f'<line class="pfk-tl-grid" x1="{x:.1f}" y1="{AXIS - 4}" x2="{x:.1f}" '
            f'y2="{top + bars_h}" stroke="#d9d9d9"/><text class="pfk-tl-tick" x="{x:.1f}" y="{AXIS - 8}" '
            f'text-anchor="{anchor}" fill="#404040">{sim_time(t)}</text>'
        )
    for a, b, _ in axis.waits:  # the break marks of compressed waits
        x0, x1 = px(a), px(b)
        mid = (x0 + x1) / 2
        out.append(
            f'<g class="pfk-tl-wait" data-start="{a}" data-end="{b}"><title>restart wait: '
            f"{sim_time(b - a)} of simulated time, drawn compressed</title>"
            f'<rect class="pfk-tl-veil" x="{x0:.1f}" y="{top}" width="{max(x1 - x0, 1):.1f}" '
            f'height="{bars_h}" fill="#ffffff" fill-opacity="0.55"/>'
            f'<path class="pfk-tl-break" d="M{mid - 4:.1f},{top - 2} l8,6 l-8,6 l8,6" fill="none" stroke="#404040" '
            f'stroke-width="2"/></g>'
        )
    mark_x: list[float] = []
    for t, kind, label in markers:
        symbol, colour, text = MARKERS[kind]
        x = px(t)
        out.append(
            f'<g class="pfk-tl-marker pfk-tl-{kind}" data-time="{t}"><title>{escape(text)} '
            f"{escape(label)} at {sim_time(t)}</title>"
            f'<line x1="{x:.1f}" y1="{AXIS + 2}" x2="{x:.1f}" y2="{top + bars_h}" '
            f'stroke="{colour}" stroke-width="2"/>'
        )
        if all(abs(x - p) >= 30 for p in mark_x):  # a label only where it does not overlap
            mark_x.append(x)
            out.append(
                f'<text x="{x + 3:.1f}" y="{AXIS + MARKS - 6}" fill="{colour}" '
                f'font-weight="700">{symbol}{escape(label)}</text>'
            )
        out.append("</g>")
    bars = []
    for r, (row_id, label, changes) in enumerate(rows):
        key = (row_id, r, len(changes), axis.key())
        row = cache.get(key) if cache is not None else None
        if row is None:
            row = _bars(r, label, changes, axis)
            if cache is not None:
                cache[key] = row
        bars.append(row)
        y = top + r * ROW + ROW - 6
        current = changes[-1][1] if changes else ""
        out.append(
            f'<text class="pfk-tl-label" x="4" y="{y}">{escape(label)}</text>'
            f'<text class="pfk-tl-state" x="{width - 4}" y="{y}" text-anchor="end">{current}</text>'
        )
    out.append(
        f'<svg x="{LABEL}" y="{top}" width="{inner}" height="{bars_h}" '
        f'viewBox="0 0 {span:g} {bars_h}" preserveAspectRatio="none">' + "".join(bars) + "</svg>"
    )
    out.append(f'<g class="pfk-tl-legend" transform="translate(0,{top + bars_h + 6})">')
    out.append(legend + "</g>")
    out.append("</svg>")
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
