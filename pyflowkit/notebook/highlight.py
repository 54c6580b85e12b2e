"""Mark what a ``%%pipeline`` cell added in a rendered graph (SVG classes + an embedded style).

No Flink counterpart: a notebook aid. Works on the stable SVG ids of ``pyflowkit.render``
(``sn_``/``se_`` StreamGraph, ``jv_``/``je_``/``ce_`` JobGraph, ``ejv_``/``ev_``/``ee_`` ExecutionGraph).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

ADDED_CLASS = "pfk-added"
ADDED_COLOUR = "#fa541c"
ADDED_STYLE = (
    f"<style>.{ADDED_CLASS} path, .{ADDED_CLASS} polygon, .{ADDED_CLASS} ellipse "
    f"{{stroke: {ADDED_COLOUR}; stroke-width: 3px;}} "
    f".{ADDED_CLASS}.edge text {{fill: {ADDED_COLOUR};}}</style>"
)
_GROUP = re.compile(r'<g id="([^"]+)" class="([^"]*)"')


def added_element_ids(level: str, graph: Any, added: set[int]) -> set[str]:
    """SVG element ids (nodes, clusters, edges) that show StreamNodes in ``added`` or their edges."""
    if not added:
        return set()
    if level == "stream":
        ids = {f"sn_{n}" for n in graph.nodes if n in added}
        for e in graph.edges:
            if e.source_id in added or e.target_id in added:
                ids.add(f"se_{e.source_id}_{e.target_id}_{e.type_number}")
        return ids
    vertices = graph.vertices if level == "job" else [v.job_vertex for v in graph.job_vertices]
    new_vertices = {v.id for v in vertices if any(n.id in added for n in v.stream_nodes)}
    if level == "job":
        ids = {f"jv_{v}" for v in new_vertices}
        for v in vertices:
            nodes = list(v.stream_nodes)
            ids |= {f"jv_{v.id}_op{i}" for i, n in enumerate(nodes) if n.id in added}
            ids |= {
                f"ce_{a.id}_{b.id}_{k}"
                for k, (a, b) in enumerate(zip(nodes, nodes[1:], strict=False))
                if a.id in added or b.id in added
            }
            if nodes and (nodes[0].id in added):
                ids |= {f"je_{v.id}_{i}" for i in range(len(v.inputs))}
        return ids
    ids = {f"ejv_{v}" for v in new_vertices}
    for ejv in graph.job_vertices:
        if ejv.job_vertex.id in new_vertices:
            ids |= {f"ev_{ev.id}" for ev in ejv.task_vertices}
    return ids


def mark_svg(svg: str, element_ids: Iterable[str], css_class: str = ADDED_CLASS) -> str:
    """Add ``css_class`` to the ``<g>`` elements with these ids and embed the highlight style."""
    wanted = set(element_ids)
    if not wanted:
        return svg

    def add(match: re.Match[str]) -> str:
        gid, classes = match.group(1), match.group(2)
        if gid in wanted or _chained_edge_match(gid, wanted):
            return f'<g id="{gid}" class="{classes} {css_class}"'
        return match.group(0)

    marked = _GROUP.sub(add, svg)
    head_end = marked.find(">", marked.find("<svg"))
    return marked[: head_end + 1] + ADDED_STYLE + marked[head_end + 1 :]


def _chained_edge_match(gid: str, wanted: set[str]) -> bool:
    """``ce_<a>_<b>_<k>`` ids are matched ignoring ``k`` (the renderer's own numbering)."""
    if not gid.startswith("ce_"):
        return False
    prefix = gid.rsplit("_", 1)[0]
    return any(w.startswith("ce_") and w.rsplit("_", 1)[0] == prefix for w in wanted)
