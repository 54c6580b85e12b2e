"""DOT text building blocks shared by the three graph renderers (quoting, attributes, labels).

No Flink counterpart: Flink draws plans in its web UI; this is the Graphviz equivalent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")

#: Graph-wide defaults: left to right like Flink's web UI, boxes with rounded corners.
GRAPH_DEFAULTS = 'rankdir=LR; nodesep=0.35; ranksep=0.6; fontname="Helvetica"; fontsize=11;'
NODE_DEFAULTS = (
    'node [shape=box, style="rounded,filled", fillcolor="#ffffff", color="#333333", '
    'fontname="Helvetica", fontsize=11];'
)
EDGE_DEFAULTS = 'edge [fontname="Helvetica", fontsize=11, color="#555555"];'


def quote(text: object) -> str:
    """A DOT double-quoted string; newlines become DOT's ``\\n`` line breaks."""
    s = str(text).replace("\\", "\\\\").replace('"', '\\"')
    s = s.replace("\r\n", "\n").replace("\n", "\\n")
    return f'"{s}"'


def check_colour(colour: str) -> str:
    """Only 6-digit hex colours: dot 2.43 paints 3-digit ones (``#eef``) black."""
    if not _HEX_COLOUR.match(colour):
        raise ValueError(f"colour {colour!r} must be a 6-digit hex colour such as '#52c41a'")
    return colour


def attrs(values: Mapping[str, object | None]) -> str:
    """``[k="v", …]`` in the given order; ``None`` values are left out."""
    parts = [f"{key}={quote(value)}" for key, value in values.items() if value is not None]
    return "[" + ", ".join(parts) + "]" if parts else ""


def label_lines(*lines: str) -> str:
    """Join label lines (each escaped later by ``quote``) with newlines."""
    return "\n".join(line for line in lines if line)


def break_chain(name: str) -> str:
    """A chained name ``A -> B -> C`` shown one operator per line (the text stays Flink's)."""
    return name.replace(" -> ", "\n-> ")


#: The longest line of an operator's name in a graph box: a longer name wraps after its commas and
#: spaces, as Flink's web UI wraps a long operator name inside its fixed-width node (a window's
#: ``Window(GlobalWindows(), CountTrigger, CountEvictor, GprsDelta)`` is three lines, not one line
#: wider than a projector's pane).
WRAP_AT = 28


def wrap_name(line: str, width: int = WRAP_AT) -> str:
    """``line`` broken after spaces into lines of at most ``width`` characters (a longer word
    stays whole); the text stays Flink's, only line breaks are added."""
    if len(line) <= width:
        return line
    lines: list[str] = []
    current = ""
    for word in re.split(r"(?<= )", line):
        if current and len(current) + len(word.rstrip()) > width:
            lines.append(current.rstrip())
            current = word
        else:
            current += word
    lines.append(current.rstrip())
    return "\n".join(lines)


def operator_lines(name: str) -> str:
    """A (chained) operator name for a graph box: one operator per line, long names wrapped."""
    return "\n".join(wrap_name(line) for line in break_chain(name).split("\n"))


def css_token(value: object) -> str:
    """A value usable as one SVG class token (spaces would split it)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", str(value))


class DotBuilder:
    """Accumulates DOT statements with indentation; ``source()`` returns the digraph text."""

    def __init__(self, name: str, graph_id: str) -> None:
        self.name = name
        self.graph_id = graph_id
        self._lines: list[str] = []
        self._depth = 1

    def line(self, statement: str) -> None:
        self._lines.append("  " * self._depth + statement)

    def node(self, node_id: str, values: Mapping[str, object | None]) -> None:
        self.line(f"{quote(node_id)} {attrs({'id': node_id, **values})};")

    def edge(self, tail: str, head: str, edge_id: str, values: Mapping[str, object | None]) -> None:
        self.line(f"{quote(tail)} -> {quote(head)} {attrs({'id': edge_id, **values})};")

    def open_cluster(self, cluster_id: str, values: Mapping[str, object | None]) -> None:
        """A ``subgraph cluster_<id>``; its SVG group gets ``id=cluster_id``."""
        self.line(f"subgraph {quote('cluster_' + cluster_id)} {{")
        self._depth += 1
        for key, value in {"id": cluster_id, **values}.items():
            if value is not None:
                self.line(f"{key}={quote(value)};")

    def close_cluster(self) -> None:
        self._depth -= 1
        self.line("}")

    def source(self, extra_graph_attrs: str = "") -> str:
        head = [
            f"digraph {quote(self.name)} {{",
            f"  id={quote(self.graph_id)}; {GRAPH_DEFAULTS}{extra_graph_attrs}",
            f"  {NODE_DEFAULTS}",
            f"  {EDGE_DEFAULTS}",
        ]
        return "\n".join([*head, *self._lines, "}"]) + "\n"
