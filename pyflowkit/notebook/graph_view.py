"""``GraphView``: a graph of any level as SVG in an anywidget, recoloured by state without re-layout.

No Flink counterpart: the web UI's job graph panel. The SVG is laid out once (``pyflowkit.render``);
each change only sends ``states`` (element id → ExecutionState) and ``edge_marks`` to the browser.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook.assets import THEMED_STYLES, widget_file, widget_styles
from pyflowkit.render.palette import STATE_PALETTE, STATE_TEXT
from pyflowkit.render.states import STATE_COLOURS, state_name

#: ``edge_marks`` values: a barrier in flight on the edge, or an input channel blocked by alignment.
EDGE_MARKS = ("barrier", "blocked")


class GraphView(anywidget.AnyWidget):
    """An SVG graph with state colours, a legend, click-to-select, zoom and pan."""

    _esm = widget_file("pyflowkit.js")
    _css = widget_styles(*THEMED_STYLES)
    _kind = t.Unicode("graph_view").tag(sync=True)

    svg = t.Unicode("").tag(sync=True)
    states = t.Dict().tag(sync=True)
    #: The Stepper's palette: each state's fill with a text colour at >= 4.5:1 on it (Flink's
    #: dashboard colours carry white text at 1.9-3.2:1), the same in every theme.
    colours = t.Dict(dict(STATE_PALETTE)).tag(sync=True)
    text_colours = t.Dict(dict(STATE_TEXT)).tag(sync=True)
    edge_marks = t.Dict().tag(sync=True)
    selected = t.Unicode("").tag(sync=True)
    legend = t.Bool(True).tag(sync=True)

    def __init__(self, graph: Any = None, svg: str | None = None, **kwargs: Any) -> None:
        if svg is None and graph is not None:
            svg = graph.to_svg()
        super().__init__(svg=svg or "", **kwargs)
        self.graph = graph
        self._select_handlers: list[Callable[[str], None]] = []
        self.observe(self._on_selected, names="selected")

    def set_states(self, states: Mapping[str, object]) -> None:
        """Colour elements: ``{"ev_<vertex>_<i>": ExecutionState.RUNNING, ...}`` (names accepted)."""
        clean = {k: state_name(v) for k, v in states.items()}
        if clean != self.states:
            self.states = clean

    def set_edge_marks(self, marks: Mapping[str, str]) -> None:
        """Mark edges: ``{edge_id: "barrier" | "blocked"}``."""
        bad = {k: v for k, v in marks.items() if v not in EDGE_MARKS}
        if bad:
            raise ValueError(f"GraphView.set_edge_marks: unknown marks {bad}; use {EDGE_MARKS}")
        if dict(marks) != self.edge_marks:
            self.edge_marks = dict(marks)

    def on_select(self, handler: Callable[[str], None]) -> None:
        """Call ``handler(element_id)`` when a node is clicked in the browser."""
        self._select_handlers.append(handler)

    def _on_selected(self, change: dict[str, Any]) -> None:
        for handler in self._select_handlers:
            handler(change["new"])

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The live widget, plus a static SVG with the same colours for nbconvert/GitHub."""
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["image/svg+xml"] = static_svg(
            self.svg, self.states, self.edge_marks, self.colours, self.text_colours
        )
        data["text/plain"] = f"GraphView({len(self.states)} coloured elements)"
        return bundle


def static_svg(
    svg: str,
    states: Mapping[str, str],
    marks: Mapping[str, str] | None = None,
    colours: Mapping[str, str] | None = None,
    text_colours: Mapping[str, str] | None = None,
) -> str:
    """The SVG with state colours baked in as an embedded style (for static viewers);
    ``colours``/``text_colours`` default to Flink's dashboard colours with white text."""
    fills = colours or STATE_COLOURS
    texts = text_colours or {}
    rules = [
        f"#{eid} > polygon, #{eid} > ellipse, #{eid} > path, #{eid} a > path "
        f"{{fill: {fills[s]};}} #{eid} text {{fill: {texts.get(s, '#ffffff')};}}"
        for eid, s in states.items()
    ]
    rules += [
        f"#{eid} path {{stroke: {'#722ed1' if m == 'barrier' else '#f5222d'}; stroke-width: 3px;}}"
        for eid, m in (marks or {}).items()
    ]
    if not rules or "<svg" not in svg:
        return svg
    head_end = svg.find(">", svg.find("<svg"))
    return svg[: head_end + 1] + "<style>" + " ".join(rules) + "</style>" + svg[head_end + 1 :]
