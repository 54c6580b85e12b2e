"""Edge labels clear of the edges: Graphviz puts an edge's label beside its spline, often touching
it (notebook 03's and 09's ``HASH`` / ``ALL_TO_ALL`` sat on their line); this moves each label
the least distance up or down that leaves a gap between its text and every edge of the drawing.

No Flink counterpart. It reads the laid-out SVG's geometry only (the wiring stays Graphviz's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The least gap between a label's text and any edge line or arrowhead (SVG units, points: 2.5 pt
#: is 3.2 px at the Stepper's 14 px text).
GAP = 2.5
#: The most a label is moved (points): further, it would leave its edge (then it stays).
MOST = 8.0

_EDGE = re.compile(r'<g id="[^"]*" class="edge[^"]*">.*?</g>\n(?:<text[^>]*>[^<]*</text>\n)*', re.S)
_TEXT = re.compile(r'<text([^>]*?) y="(-?[\d.]+)"([^>]*)>([^<]*)</text>')
_ATTR = re.compile(r'(\w[\w-]*)="([^"]*)"')
_PATH = re.compile(r'<path[^>]* d="([^"]*)"')
_POLY = re.compile(r'<polygon[^>]* points="([^"]*)"')
_NUM = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Box:
    """A text's box (SVG units): left, top, right, bottom (y grows downwards)."""

    left: float
    top: float
    right: float
    bottom: float


def text_width(text: str, size: float) -> float:
    """An upper estimate of ``text``'s width at font ``size`` (DejaVu Sans, what Helvetica and
    sans-serif are on Debian, wider than Helvetica): capitals 0.75 em, other letters and digits
    0.62 em, a space 0.32 em, anything else 0.6 em."""
    em = 0.0
    for c in text:
        if c.isupper():
            em += 0.75
        elif c.isalnum():
            em += 0.62
        elif c == " ":
            em += 0.32
        else:
            em += 0.6
    return em * size


def text_box(x: float, y: float, anchor: str, size: float, text: str) -> Box:
    """The box of a ``<text>`` at baseline ``y``: 0.76 em above it (capitals, DejaVu's ascent
    of letters), 0.24 em below (descenders, the underscore)."""
    w = text_width(text, size)
    left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    return Box(left, y - 0.76 * size, left + w, y + 0.24 * size)


def _cubic(p0, p1, p2, p3, steps: int = 24) -> list[tuple[float, float]]:
    out = []
    for k in range(steps + 1):
        t = k / steps
        u = 1 - t
        out.append(
            (
                u**3 * p0[0] + 3 * u * u * t * p1[0] + 3 * u * t * t * p2[0] + t**3 * p3[0],
                u**3 * p0[1] + 3 * u * u * t * p1[1] + 3 * u * t * t * p2[1] + t**3 * p3[1],
            )
        )
    return out


def path_points(d: str) -> list[tuple[float, float]]:
    """Points along a Graphviz edge path (``M x,y C x,y x,y x,y …``, absolute coordinates)."""
    nums = [float(n) for n in _NUM.findall(d)]
    pts = list(zip(nums[0::2], nums[1::2], strict=False))
    if len(pts) < 4:
        return pts
    out = [pts[0]]
    for k in range(1, len(pts) - 2, 3):
        out.extend(_cubic(pts[k - 1], pts[k], pts[k + 1], pts[k + 2])[1:])
    return out


def polygon_points(points: str) -> list[tuple[float, float]]:
    """An arrowhead's corners and points along its sides."""
    nums = [float(n) for n in _NUM.findall(points)]
    corners = list(zip(nums[0::2], nums[1::2], strict=False))
    out = []
    for a, b in zip(corners, corners[1:] + corners[:1], strict=False):
        out.extend((a[0] + (b[0] - a[0]) * k / 8, a[1] + (b[1] - a[1]) * k / 8) for k in range(8))
    return out


def edge_points(svg: str) -> list[tuple[float, float]]:
    """Points along every edge's line and arrowhead in ``svg``."""
    points: list[tuple[float, float]] = []
    for edge in _EDGE.finditer(svg):
        block = edge.group(0)
        for d in _PATH.findall(block):
            points.extend(path_points(d))
        for p in _POLY.findall(block):
            points.extend(polygon_points(p))
    return points


def label_boxes(svg: str) -> list[tuple[str, Box]]:
    """Every edge label line's text and box."""
    out = []
    for edge in _EDGE.finditer(svg):
        for before, y, after, text in _TEXT.findall(edge.group(0)):
            out.append((text, _box(before + after, float(y), text)))
    return out


def _box(attrs: str, y: float, text: str) -> Box:
    a = dict(_ATTR.findall(attrs))
    size = float(a.get("font-size", "14"))
    return text_box(float(a.get("x", "0")), y, a.get("text-anchor", "start"), size, text)


def clearance(box: Box, points: list[tuple[float, float]]) -> float:
    """The distance from ``box`` to the nearest of ``points`` (0: a point inside it)."""
    best = float("inf")
    for x, y in points:
        dx = max(box.left - x, 0.0, x - box.right)
        dy = max(box.top - y, 0.0, y - box.bottom)
        best = min(best, (dx * dx + dy * dy) ** 0.5)
    return best


def _shifted(box: Box, dy: float) -> Box:
    return Box(box.left, box.top + dy, box.right, box.bottom + dy)


def clear_edge_labels(svg: str, gap: float = GAP) -> str:
    """``svg`` with each edge label moved up or down (the least of the two, at most ``MOST``) so
    that ``gap`` at least lies between its text and every edge; labels already clear stay."""
    points = edge_points(svg)
    if not points:
        return svg

    def fix(edge: re.Match[str]) -> str:
        block = edge.group(0)
        texts = _TEXT.findall(block)
        if not texts:
            return block
        boxes = [_box(b + a, float(y), t) for b, y, a, t in texts]
        whole = Box(
            min(b.left for b in boxes),
            min(b.top for b in boxes),
            max(b.right for b in boxes),
            max(b.bottom for b in boxes),
        )
        if clearance(whole, points) >= gap:
            return block
        moves = sorted((abs(k * 0.5), k * 0.5) for k in range(-int(2 * MOST), int(2 * MOST) + 1))
        dy = next((d for _, d in moves if clearance(_shifted(whole, d), points) >= gap), None)
        if dy is None:
            return block
        return _TEXT.sub(
            lambda m: (
                f'<text{m.group(1)} y="{float(m.group(2)) + dy:.2f}"{m.group(3)}>'
                f"{m.group(4)}</text>"
            ),
            block,
        )

    return _EDGE.sub(fix, svg)
