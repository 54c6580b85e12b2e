"""Edge labels clear of the edges: Graphviz puts an edge's label beside its spline, often touching
it (notebook 03's and 09's ``HASH`` / ``ALL_TO_ALL`` sat on their line); this moves each label
the least distance up or down that leaves a gap between its text and every edge of the drawing.

No Flink counterpart. It reads the laid-out SVG's geometry only (the wiring stays Graphviz's).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

#: The least gap between a label's text and any edge line or arrowhead (SVG units, points: 2.5 pt
#: is 3.2 px at the Stepper's 14 px text).
GAP = 2.5
#: The most a label is moved (points): further, it would leave its edge (then it stays).
MOST = 8.0
#: The moves tried, the least first (half a point apart, up before down).
MOVES = sorted((k / 2 for k in range(-int(2 * MOST), int(2 * MOST) + 1)), key=lambda d: (abs(d), d))

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
    return sum(map(_EMS.__getitem__, text)) * size


class _Ems(dict[str, float]):
    """A character's width in em by ``text_width``'s rule, worked out once per character."""

    def __missing__(self, c: str) -> float:
        em = 0.75 if c.isupper() else 0.62 if c.isalnum() else 0.32 if c == " " else 0.6
        self[c] = em
        return em


_EMS = _Ems()


def text_box(x: float, y: float, anchor: str, size: float, text: str) -> Box:
    """The box of a ``<text>`` at baseline ``y``: 0.76 em above it (capitals, DejaVu's ascent
    of letters), 0.24 em below (descenders, the underscore)."""
    w = text_width(text, size)
    left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    return Box(left, y - 0.76 * size, left + w, y + 0.24 * size)


Point = tuple[float, float]
Segment = tuple[Point, Point]


def _cubic(p0: Point, p1: Point, p2: Point, p3: Point, steps: int = 12) -> list[Point]:
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


def path_points(d: str) -> list[Point]:
    """Points along a Graphviz edge path (``M x,y C x,y x,y x,y …``, absolute coordinates): the
    ends of short straight pieces that follow each curve to a fraction of a point."""
    nums = [float(n) for n in _NUM.findall(d)]
    pts = list(zip(nums[0::2], nums[1::2], strict=False))
    if len(pts) < 4:
        return pts
    out = [pts[0]]
    for k in range(1, len(pts) - 2, 3):
        p0, p1, p2, p3 = pts[k - 1 : k + 3]
        if _straight(p0, p1, p2, p3):
            out.append(p3)  # the curve is the line between its ends
        else:
            out.extend(_cubic(p0, p1, p2, p3)[1:])
    return out


def _straight(p0: Point, p1: Point, p2: Point, p3: Point) -> bool:
    """Whether a curve is a level or upright line from p0 to p3 (Graphviz draws every straight
    edge so): its control points on that line, in order."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = p0, p1, p2, p3
    if y0 == y1 == y2 == y3:
        return x0 <= x1 <= x2 <= x3 or x0 >= x1 >= x2 >= x3
    if x0 == x1 == x2 == x3:
        return y0 <= y1 <= y2 <= y3 or y0 >= y1 >= y2 >= y3
    return False


def polygon_points(points: str) -> list[Point]:
    """An arrowhead's corners, closed (its last corner back to the first)."""
    nums = [float(n) for n in _NUM.findall(points)]
    corners = list(zip(nums[0::2], nums[1::2], strict=False))
    return corners + corners[:1]


def edge_segments(svg: str) -> list[Segment]:
    """The straight pieces of every edge's line and arrowhead in ``svg``."""
    return _segments(edge.group(0) for edge in _EDGE.finditer(svg))


def _segments(blocks: Iterable[str]) -> list[Segment]:
    segments: list[Segment] = []
    for block in blocks:
        lines = [path_points(d) for d in _PATH.findall(block)]
        lines += [polygon_points(p) for p in _POLY.findall(block)]
        for line in lines:
            segments.extend(zip(line, line[1:], strict=False))
    return segments


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


def _point_box(p: Point, box: Box) -> float:
    dx = max(box.left - p[0], 0.0, p[0] - box.right)
    dy = max(box.top - p[1], 0.0, p[1] - box.bottom)
    return (dx * dx + dy * dy) ** 0.5


def _point_segment(p: Point, a: Point, b: Point) -> float:
    vx, vy = b[0] - a[0], b[1] - a[1]
    n = vx * vx + vy * vy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / n))
    return ((a[0] + t * vx - p[0]) ** 2 + (a[1] + t * vy - p[1]) ** 2) ** 0.5


def _crosses(a: Point, b: Point, box: Box) -> bool:
    """Whether the segment a–b enters the box (Liang–Barsky clipping)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in (
        (-dx, a[0] - box.left),
        (dx, box.right - a[0]),
        (-dy, a[1] - box.top),
        (dy, box.bottom - a[1]),
    ):
        if p == 0:
            if q < 0:
                return False
        elif p < 0:
            t0 = max(t0, q / p)
        else:
            t1 = min(t1, q / p)
    return t0 <= t1


def segment_distance(segment: Segment, box: Box) -> float:
    """The distance between a straight piece and a box (0: it enters the box)."""
    a, b = segment
    if _crosses(a, b, box):
        return 0.0
    corners = (
        (box.left, box.top),
        (box.right, box.top),
        (box.left, box.bottom),
        (box.right, box.bottom),
    )
    return min(_point_box(a, box), _point_box(b, box), *(_point_segment(c, a, b) for c in corners))


def _enters(ax: float, ay: float, bx: float, by: float, box: tuple[float, ...]) -> bool:
    """Whether the segment a–b meets the rectangle ``box`` (left, top, right, bottom)."""
    t0, t1 = 0.0, 1.0
    dx, dy = bx - ax, by - ay
    left, top, right, bottom = box
    for p, q in ((-dx, ax - left), (dx, right - ax), (-dy, ay - top), (dy, bottom - ay)):
        if p == 0.0:
            if q < 0.0:
                return False
        elif p < 0.0:
            if q / p > t0:
                t0 = q / p
        elif q / p < t1:
            t1 = q / p
        if t0 > t1:
            return False
    return True


def too_near(segment: Segment, box: Box, gap: float) -> bool:
    """Whether ``segment`` comes within ``gap`` of ``box`` (``segment_distance < gap``, without
    the distance): outside the box grown by ``gap`` it cannot; inside its grown cross (the box
    grown sideways or up and down) it does; else only a corner's distance can tell."""
    (ax, ay), (bx, by) = segment
    left, top, right, bottom = box.left, box.top, box.right, box.bottom
    if not _enters(ax, ay, bx, by, (left - gap, top - gap, right + gap, bottom + gap)):
        return False
    if _enters(ax, ay, bx, by, (left - gap, top, right + gap, bottom)) or _enters(
        ax, ay, bx, by, (left, top - gap, right, bottom + gap)
    ):
        return True
    a, b = (ax, ay), (bx, by)
    return any(
        _point_segment(c, a, b) < gap
        for c in ((left, top), (right, top), (left, bottom), (right, bottom))
    )


def _y_range(
    ax: float, ay: float, bx: float, by: float, lo: float, hi: float
) -> tuple[float, float] | None:
    """The lowest and highest y of the segment a–b where lo <= x <= hi (None: it is not there)."""
    if ax == bx:
        return (min(ay, by), max(ay, by)) if lo <= ax <= hi else None
    t0, t1 = (lo - ax) / (bx - ax), (hi - ax) / (bx - ax)
    if t0 > t1:
        t0, t1 = t1, t0
    t0, t1 = max(t0, 0.0), min(t1, 1.0)
    if t0 > t1:
        return None
    y0, y1 = ay + t0 * (by - ay), ay + t1 * (by - ay)
    return (y0, y1) if y0 <= y1 else (y1, y0)


def _least_move(box: Box, segments: list[Segment], gap: float) -> float | None:
    """The first of ``MOVES`` that leaves ``gap`` between the box moved by it and every segment.

    A segment blocks the moves dy whose moved box meets it grown by ``gap``; over a vertical move
    those are an interval, read off the segment's y range across the box's columns. Inside the
    box's grown cross a move is surely blocked; in the grown box's corners only (a rounded gap),
    ``too_near`` decides. So each move costs comparisons, not distances.
    """
    left, top, right, bottom = box.left, box.top, box.right, box.bottom
    sure: list[tuple[float, float]] = []
    maybe: list[tuple[float, float, Segment]] = []
    for s in segments:
        (ax, ay), (bx, by) = s
        wide = _y_range(ax, ay, bx, by, left - gap, right + gap)
        if wide is None:
            continue
        maybe.append((wide[0] - gap - bottom, wide[1] + gap - top, s))
        sure.append((wide[0] - bottom, wide[1] - top))  # the cross's arm grown sideways
        inner = _y_range(ax, ay, bx, by, left, right)
        if inner is not None:  # the cross's arm grown up and down
            sure.append((inner[0] - gap - bottom, inner[1] + gap - top))
    for d in MOVES:
        if any(lo < d < hi for lo, hi in sure):
            continue
        moved = None
        for lo, hi, s in maybe:
            if lo < d < hi:
                moved = moved or _shifted(box, d)
                if too_near(s, moved, gap):
                    break
        else:
            return d
    return None


def clearance(box: Box, segments: list[Segment]) -> float:
    """The distance from ``box`` to the nearest of ``segments``."""
    return min((segment_distance(s, box) for s in segments), default=float("inf"))


def _shifted(box: Box, dy: float) -> Box:
    return Box(box.left, box.top + dy, box.right, box.bottom + dy)


def clear_edge_labels(svg: str, gap: float = GAP) -> str:
    """``svg`` with each edge label moved up or down (the least of the two, at most ``MOST``) so
    that ``gap`` at least lies between its text and every edge; labels already clear stay."""
    edges = list(_EDGE.finditer(svg))
    segments = sorted(_segments(e.group(0) for e in edges), key=lambda s: min(s[0][0], s[1][0]))
    if not segments:
        return svg
    lefts = [min(a[0], b[0]) for a, b in segments]
    widest = max(abs(a[0] - b[0]) for a, b in segments)

    def near(box: Box) -> list[Segment]:
        """The pieces a move of the box up to ``MOST`` could come within ``gap`` of (by x, then y:
        a large graph has thousands)."""
        lo = bisect_left(lefts, box.left - gap - widest)
        hi = bisect_right(lefts, box.right + gap)
        top, bottom = box.top - MOST - gap, box.bottom + MOST + gap
        return [
            s
            for s in segments[lo:hi]
            if max(s[0][0], s[1][0]) >= box.left - gap
            and max(s[0][1], s[1][1]) >= top
            and min(s[0][1], s[1][1]) <= bottom
        ]

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
        around = near(whole)

        def clear(box: Box) -> bool:
            left, top = box.left - gap, box.top - gap
            right, bottom = box.right + gap, box.bottom + gap
            for s in around:
                (ax, ay), (bx, by) = s
                # a piece wholly beyond one side of the box grown by the gap is clear of it
                if (
                    (ax < left and bx < left)
                    or (ax > right and bx > right)
                    or (ay < top and by < top)
                    or (ay > bottom and by > bottom)
                ):
                    continue
                if too_near(s, box, gap):
                    return False
            return True

        if clear(whole):
            return block
        dy = _least_move(whole, around, gap)
        if dy is None:
            return block
        return _TEXT.sub(
            lambda m: (
                f'<text{m.group(1)} y="{float(m.group(2)) + dy:.2f}"{m.group(3)}>'
                f"{m.group(4)}</text>"
            ),
            block,
        )

    parts, end = [], 0
    for edge in edges:
        parts += (svg[end : edge.start()], fix(edge))
        end = edge.end()
    parts.append(svg[end:])
    return "".join(parts)
