"""The sequence diagram as SVG: a header (the lifelines' names) and a body (one row per arrow).

No Flink counterpart. Draws a ``SequenceModel.to_dict()``; the widget shows the header fixed above
the scrolling body, a static render (``SequenceDiagram.to_svg()``) stacks both. Text is 14 px.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from html import escape
from typing import Any

from pyflowkit.render.palette import SEQUENCE_COLOURS

COLUMN = 180  # px between lifelines (the widest; the widget fits its lifelines to its width)
MIN_COLUMN = 120  # px: the narrowest column the widget lays out (a name box of ~14 characters)
ROW = 26  # px per arrow
CHAR = 7.6  # px per character of 14 px system-ui text (an upper estimate for cutting labels)
HEAD = 64  # px of the header (group band + name boxes of one or two lines)
HEAD3 = 84  # px of the header when a name needs three lines (a chained task at 8 lifelines)
#: A compact header (large font scales: zoomed, every unit counts twice): no group band row, the
#: names on one or two lines 16 px apart (a line's box is 16.3 px), 3 px around them: 22 px for
#: one line, 38 for two.
COMPACT_LINE = 16
COMPACT_PAD = 3
FONT = 14  # px, the smallest text drawn
LEFT = 52  # px for the step numbers
_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" class="{cls}" width="{w}" height="{h}" '
    'viewBox="0 0 {w} {h}" font-family="system-ui, sans-serif" font-size="{f}">'
)
_MARKERS = (
    "<defs>"
    + "".join(
        f'<marker id="pfk-arrow-{kind}" viewBox="0 0 10 10" refX="10" refY="5" '
        f'markerWidth="8" markerHeight="8" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        for kind, colour in SEQUENCE_COLOURS.items()
    )
    + "</defs>"
)


def text_px(text: str) -> float:
    """An upper estimate of ``text``'s width at 14 px by kind of character (DejaVu Sans, what
    system-ui is on Debian): ≈ 7.6 px a small letter, 10 px a capital (a label in capitals,
    "CANCELING → CANCELED", is wider than 7.6 px a character), 4.5 px a space."""
    em = 0.0
    for c in text:
        if c.isupper():
            em += 0.72
        elif c.islower():
            em += 0.54
        elif c.isdigit():
            em += 0.64
        elif c == " ":
            em += 0.32
        else:
            em += 0.84 if ord(c) > 127 else 0.5
    return em * FONT


def _fit(text: str, px: float) -> str:
    """Cut ``text`` to about ``px`` pixels at 14 px (:func:`text_px`), with "…" where cut."""
    if text_px(text) <= px:
        return text
    keep = 4
    while keep < len(text) - 1 and text_px(text[: keep + 1] + "…") <= px:
        keep += 1
    return text[:keep] + "…"


def _fit_method(label: str, px: float) -> str:
    """An arrow's label in ``px``: whole if it fits, else without the class of its
    ``Class.method`` (the arrow's title keeps it), cut only if that does not fit either."""
    if text_px(label) <= px:
        return label
    head, space, rest = label.partition(" ")
    if "." in head:
        label = head.rpartition(".")[2] + space + rest
    return _fit(label, px)


_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: A chained task's name: its first operator, the rest of the chain, its ``(i/n)`` and ``#attempt``.
_CHAIN = re.compile(r"^(.*?) → .*?((?: \(\d+/\d+\))?(?: #\d+)?)$")


def _two_lines(label: str, px: float) -> list[str]:
    """The label on one line, or split before its subtask ``(i/n)`` (or a word, or the camel-case
    word of a class name: ``Resource`` / ``Manager``) onto two."""
    if len(label) * CHAR <= px:
        return [label]
    cut = label.rfind(" (")
    spaces = [k for k, c in enumerate(label) if c == " "]
    both = [k for k in spaces if max(k, len(label) - k - 1) * CHAR <= px]
    if both and cut not in both:  # a cut where both lines fit whole, the most balanced
        cut = min(both, key=lambda k: abs(2 * k - len(label)))
    if cut <= 0:
        cut = label.rfind(" ", 0, int(px / CHAR) + 1)
    if cut > 0:
        return [_fit(label[:cut], px), _fit(label[cut + 1 :], px)]
    # one word: split at the camel-case boundary nearest its middle that fits both halves
    bounds = [m.start() for m in _CAMEL.finditer(label)]
    fitting = [b for b in bounds if max(b, len(label) - b) * CHAR <= px]
    if fitting:
        b = min(fitting, key=lambda b: abs(2 * b - len(label)))
        return [label[:b], label[b:]]
    return [_fit(label, px)]


def _three_lines(label: str, px: float) -> list[str] | None:
    """The label word-wrapped onto three lines, each whole (None when a word does not fit)."""
    lines: list[str] = []
    for word in label.split(" "):
        if lines and (len(lines[-1]) + 1 + len(word)) * CHAR <= px:
            lines[-1] += " " + word
        elif len(word) * CHAR <= px:
            lines.append(word)
        else:
            return None
    return lines if len(lines) <= 3 else None


def name_lines(label: str, px: float) -> list[str]:
    """A lifeline's name in its box: one or two lines, or three when two would cut it ("…"):
    a hall reads ``Keyed`` / ``Aggregation →`` / ``Print (1/2)``, never ``Keyed Aggrega…``."""
    lines = _two_lines(label, px)
    if any(line.endswith("…") for line in lines):
        lines = _three_lines(label, px) or lines
    chain = _CHAIN.match(label)
    if chain and any(line.endswith("…") for line in lines):  # the chain's head operator only
        return name_lines(chain.group(1) + chain.group(2), px)
    return lines


def head_height(
    lifelines: list[dict[str, Any]], column: int = COLUMN, compact: bool = False
) -> int:
    """The header's height: ``HEAD``, or ``HEAD3`` when a name takes three lines; compact: as
    many 16 px lines as its longest name takes (one or two, rarely three)."""
    if compact:
        lines = max((len(compact_lines(line, column)) for line in lifelines), default=1)
        return 2 * COMPACT_PAD + COMPACT_LINE * lines
    three = any(len(name_lines(line["label"], column - 20)) == 3 for line in lifelines)
    return HEAD3 if three else HEAD


def compact_lines(line: dict[str, Any], column: int = COLUMN) -> list[str]:
    """A lifeline's name in a compact header: one or two lines (a chained task's head operator
    with its (i/n) where the whole chain needs three, the title keeps the full name; three
    only where even that is cut, as ``name_lines`` has them); a part of
    the JobMaster whose name takes one line says so on the line above it ("JobMaster" /
    "Scheduler"), as the full header's group band does."""
    room = column - 20
    lines = _two_lines(line["label"], room)
    chain = _CHAIN.match(line["label"])
    if chain and any(text.endswith("…") for text in lines):
        lines = _two_lines(chain.group(1) + chain.group(2), room)
    if any(text.endswith("…") for text in lines):  # three whole lines, never a cut name
        lines = name_lines(line["label"], room)
    if line.get("group") == "JobMaster" and line["label"] != "JobMaster" and len(lines) == 1:
        lines = ["JobMaster", *lines]
    return lines


def lifeline_x(lifelines: list[dict[str, Any]], column: int = COLUMN) -> dict[str, int]:
    """The x of each lifeline's centre."""
    return {line["id"]: LEFT + column // 2 + i * column for i, line in enumerate(lifelines)}


def width_of(lifelines: list[dict[str, Any]], column: int = COLUMN) -> int:
    return LEFT + column * len(lifelines)


def column_for(width: int, lifelines: int) -> int:
    """The column width that fits ``lifelines`` into ``width`` px (``COLUMN`` at most)."""
    return max(1, min(COLUMN, (width - LEFT) // max(lifelines, 1)))


def header_svg(lifelines: list[dict[str, Any]], column: int = COLUMN, compact: bool = False) -> str:
    """The lifelines' name boxes, the JobMaster's parts in one labelled band (compact: the band
    without its label row, each part's box naming the JobMaster, :func:`compact_lines`)."""
    COLUMN = column  # noqa: N806 - the same name as the module's default
    x, width = lifeline_x(lifelines, column), width_of(lifelines, column)
    head = head_height(lifelines, column, compact)
    out = [_SVG.format(cls="pfk-seq-head", w=width, h=head, f=FONT)]
    out.append(f'<rect class="pfk-seq-bg" width="{width}" height="{head}" fill="#ffffff"/>')
    band = [x[line["id"]] for line in lifelines if line["group"] == "JobMaster"]
    band += [x["JobMaster"]] if "JobMaster" in x else []
    if band:
        left, right = min(band) - COLUMN // 2 + 3, max(band) + COLUMN // 2 - 3
        out.append(
            f'<rect class="pfk-seq-group" x="{left}" y="1" width="{right - left}" '
            f'height="{head - 2}" rx="6" fill="#eeeeee" stroke="#999999"/>'
        )
        if not compact:
            out.append(
                f'<text class="pfk-seq-group-name" x="{left + 8}" y="16" font-weight="600">'
                "JobMaster</text>"
            )
    top, box_h = (1, head - 2) if compact else (21, head - 24)
    for line in lifelines:
        cx = x[line["id"]]
        fill = "#ddeeff" if line["kind"] == "task" else "#ffffff"
        out.append(
            f'<g class="pfk-lifeline" data-id="{escape(line["id"])}"><title>'
            f'{escape(line["title"])}</title><rect class="pfk-seq-box pfk-seq-box-{line["kind"]}" '
            f'x="{cx - COLUMN // 2 + 7}" y="{top}" '
            f'width="{COLUMN - 14}" height="{box_h}" rx="4" fill="{fill}" stroke="#333333"/>'
        )
        if compact:
            lines, step = compact_lines(line, column), COMPACT_LINE
            # (centred in the box: a line's baseline 4 px above its bottom)
            first_y = top + (box_h - step * len(lines)) / 2 + step - 4
        else:
            lines, step = name_lines(line["label"], COLUMN - 20), 17
            first_y = (head + 18) // 2 + 6 - (17 * (len(lines) - 1) + 1) // 2
        # (compact: a JobMaster part's first line names its group, in the group's style)
        named = (
            compact and line["group"] == "JobMaster" != line["label"] and lines[0] == "JobMaster"
        )
        for k, text in enumerate(lines):
            cls = ' class="pfk-seq-group-name" font-weight="600"' if named and k == 0 else ""
            out.append(
                f'<text x="{cx}" y="{first_y + step * k:g}" text-anchor="middle"{cls}>'
                f"{escape(text)}</text>"
            )
        out.append("</g>")
    out.append("</svg>")
    return "".join(out)


def _inside(centre: float, text: str, width: int) -> float:
    """The x of a middle-anchored ``text`` moved so that it stays between LEFT and ``width``."""
    half = text_px(text) / 2 + 2
    return min(max(centre, LEFT + half), width - half)


def message_row(
    m: dict[str, Any], x: dict[str, int], show_step: bool, column: int = COLUMN, width: int = 0
) -> str:
    """One arrow at row-local coordinates (baseline y = ROW - 9; a straight arrow's line 2 px
    lower, so that its label, above it, clears the line by a gap at every font scale); its label
    stays inside ``width`` (the drawing's width), so no pane edge cuts it."""
    COLUMN = column  # noqa: N806 - the same name as the module's default
    width = width or LEFT + COLUMN * (len(x) or 1)
    y = ROW - 9
    kind = m["kind"]
    colour = SEQUENCE_COLOURS.get(kind, "#000000")
    parts = [
        f'<g class="pfk-seq-msg pfk-seq-{kind}" data-i="{m["i"]}" data-step="{m["step"]}" '
        f'data-method="{escape(m["method"])}">'
        f"<title>#{m['step']} {escape(m['method'])}: {escape(m['detail'])}</title>"
    ]
    if show_step:
        parts.append(
            f'<text class="pfk-seq-stepno" x="6" y="{y + 4}" fill="#555555">#{m["step"]}</text>'
        )
    x1, x2 = x[m["from"]], x[m["to"]]
    marker = f'marker-end="url(#pfk-arrow-{kind})"'
    if x1 == x2:
        # a row holds one arrow: its label may cross the next lifelines, whole where the row has room
        room, left = width - x1 - 36, x1 - LEFT - 8
        if room >= min(text_px(m["label"]), max(left, COLUMN * 1.6)):  # right of the loop
            text = _fit_method(m["label"], room)
            tx, anchor = x1 + 32, "start"
        else:  # nearer the right edge: the label left of the lifeline
            text = _fit_method(m["label"], left)
            tx, anchor = x1 - 6, "end"
        parts.append(
            f'<path d="M{x1},{y - 9} h26 v11 h-24" fill="none" stroke="{colour}" '
            f'stroke-width="2" {marker}/><text x="{tx}" y="{y + 4}" text-anchor="{anchor}" '
            f'fill="{colour}">{escape(text)}</text>'
        )
    else:
        mid = (x1 + x2) / 2
        text = _fit_method(m["label"], width - LEFT - 8)
        parts.append(
            f'<line x1="{x1}" y1="{y + 2}" x2="{x2}" y2="{y + 2}" stroke="{colour}" stroke-width="2" '
            f'{marker}/><text x="{_inside(mid, text, width):g}" y="{y - 5}" '
            f'text-anchor="middle" fill="{colour}">{escape(text)}</text>'
        )
    parts.append("</g>")
    return "".join(parts)


def band_row(band: dict[str, Any], key: int, width: int, collapsed: bool, current: bool) -> str:
    """A phase band's header row: its name, step range and arrows; a click opens or closes it
    (the band of the current step stays open)."""
    first, last = band["first"], band["last"]
    steps = f"step {first}" if first == last else f"steps {first}–{last}"
    count = band["count"]
    text = f"{'▸' if collapsed else '▾'} {band['phase']} · {steps} · {count} arrow" + (
        "" if count == 1 else "s"
    )
    title = (
        "the current step's phase: always open"
        if current
        else ("click to open" if collapsed else "click to collapse to this row")
    )
    return (
        f'<g class="pfk-seq-band pfk-seq-band-{band["phase"]}" data-band="{key}" '
        f'data-phase="{band["phase"]}" data-collapsed="{int(collapsed)}" '
        f'data-current="{int(current)}"><title>{title}</title>'
        f'<rect class="pfk-seq-band-bg" x="0" y="1" width="{width}" height="{ROW - 2}" '
        f'fill="#e8eef6"/><text class="pfk-seq-band-text" x="6" y="{ROW - 8}" font-weight="600" '
        f'fill="#1f1f1f">{escape(text)}</text></g>'
    )


def body_svg(
    lifelines: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    highlight_step: int | None = None,
    rows: dict[int, str] | None = None,
    column: int = COLUMN,
    bands: dict[int, dict[str, Any]] | None = None,
    collapsed: Collection[int] = (),
) -> str:
    """The arrows, one row each, the rows of ``highlight_step`` on a yellow band.

    ``rows`` caches each arrow's row SVG by its index (valid while the lifelines stay the same).
    With ``bands`` (``SequenceModel.bands``), each run of one phase starts with a header row;
    the bands in ``collapsed`` show that row only, unless they hold ``highlight_step``.
    """
    x, width = lifeline_x(lifelines, column), width_of(lifelines, column)
    placed: list[tuple[int, str, dict[str, Any] | int]] = []  # (row, "msg" | "band", what)
    band_now = None
    for m in messages:
        key = m.get("band")
        if bands is not None and key != band_now and key in bands:
            band_now = key
            placed.append((len(placed), "band", key))
        summary = bands.get(key) if bands is not None else None
        if summary is not None and key in collapsed:
            if not summary["first"] <= (highlight_step or -1) <= summary["last"]:
                continue
        placed.append((len(placed), "msg", m))
    height = ROW * max(len(placed), 1) + 8
    out = [_SVG.format(cls="pfk-seq-body", w=width, h=height, f=FONT), _MARKERS]
    out.append(f'<rect class="pfk-seq-bg" width="{width}" height="{height}" fill="#ffffff"/>')
    for k, what, m in placed:
        if what == "msg" and m["step"] == highlight_step:  # type: ignore[index]
            out.append(
                f'<rect class="pfk-seq-current" x="0" y="{k * ROW}" width="{width}" '
                f'height="{ROW}" fill="#fff1a8"/>'
            )
    out.extend(
        f'<line class="pfk-seq-life" x1="{cx}" y1="0" x2="{cx}" y2="{height}" stroke="#aaaaaa" '
        'stroke-dasharray="4 4"/>'
        for cx in x.values()
    )
    previous = None
    for k, what, m in placed:
        if what == "band":
            summary = bands[m]  # type: ignore[index]
            current = summary["first"] <= (highlight_step or -1) <= summary["last"]
            row = band_row(summary, m, width, m in collapsed and not current, current)  # type: ignore[arg-type]
            out.append(f'<g transform="translate(0,{k * ROW})">{row}</g>')
            previous = None  # a band's first row shows its step
            continue
        show_step = m["step"] != previous  # type: ignore[index]
        previous = m["step"]  # type: ignore[index]
        key = m["i"] * 2 + show_step  # type: ignore[index]
        row = rows.get(key) if rows is not None else None
        if row is None:
            row = message_row(m, x, show_step, column, width)  # type: ignore[arg-type]
            if rows is not None:
                rows[key] = row
        out.append(f'<g transform="translate(0,{k * ROW})">{row}</g>')
    out.append("</svg>")
    return "".join(out)


def sequence_svg(
    model: dict[str, Any], highlight_step: int | None = None, last: int | None = None
) -> str:
    """Header and body stacked in one SVG: every arrow of ``model`` (or the ``last`` ones, on
    only the lifelines they touch, so that an excerpt stays narrow)."""
    lifelines = model["lifelines"]
    messages = model["messages"] if last is None else model["messages"][-last:]
    if last is not None:
        used = {m["from"] for m in messages} | {m["to"] for m in messages}
        lifelines = [line for line in lifelines if line["id"] in used]
    head, body = header_svg(lifelines), body_svg(lifelines, messages, highlight_step)
    width, top = width_of(lifelines), head_height(lifelines)
    height = top + ROW * max(len(messages), 1) + 8
    return (
        _SVG.format(cls="pfk-sequence-svg", w=width, h=height, f=FONT)
        + head.replace("<svg ", '<svg x="0" y="0" ', 1)
        + body.replace("<svg ", f'<svg x="0" y="{top}" ', 1)
        + "</svg>"
    )
