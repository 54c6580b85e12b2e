"""The chaining explanation as a plain-text table (CLI ``explain``, the demo's ``chaining.txt``).

Formats the rows of ``JobGraph.explain_chaining()`` (Flink 1.11's ``isChainable`` per StreamEdge).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

HEADERS = ("upstream", "downstream", "chained", "reason")


def _field(row: Any, name: str, index: int) -> Any:
    if isinstance(row, dict):
        return row[name]
    if hasattr(row, name):
        return getattr(row, name)
    return row[index]


def chaining_rows(job_graph: Any) -> list[tuple[str, str, str, str]]:
    """``(upstream, downstream, yes/no, reason)`` strings, one per StreamEdge."""
    rows = []
    for row in job_graph.explain_chaining():
        chained = bool(_field(row, "chained", 2))
        reason = _field(row, "reason", 3)
        rows.append(
            (
                str(_field(row, "upstream", 0)),
                str(_field(row, "downstream", 1)),
                "yes" if chained else "no",
                str(reason) if reason else "-",
            )
        )
    return rows


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, a dashed rule under the header."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def chaining_table(job_graph: Any) -> str:
    """The operator chains (JobVertices) followed by the per-edge chaining table."""
    vertices = job_graph.vertices
    lines = [f"JobGraph {job_graph.job_name!r}: {len(vertices)} operator chains (JobVertices)"]
    for number, vertex in enumerate(vertices, start=1):
        lines.append(f"  {number}. {vertex.name}  [parallelism {vertex.parallelism}]")
    lines += ["", format_table(HEADERS, chaining_rows(job_graph))]
    return "\n".join(lines)
