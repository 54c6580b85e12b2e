"""What a ``%%pipeline`` cell shows: the chosen graph level with the cell's additions marked.

No Flink counterpart: the notebook's view of ``env.get_stream_graph()`` / ``get_job_graph()`` /
``get_execution_graph()``; a static display object (SVG + text), so nbconvert and GitHub show it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyflowkit.notebook.highlight import added_element_ids, mark_svg

LEVELS = ("stream", "job", "execution")


def build_graph(env: Any, level: str, job_name: str | None = None) -> Any:
    """The environment's graph at ``level`` (stream, job or execution)."""
    if level == "stream":
        return env.get_stream_graph(job_name) if job_name else env.get_stream_graph()
    if level == "job":
        return env.get_job_graph(job_name) if job_name else env.get_job_graph()
    if level == "execution":
        return env.get_execution_graph(job_name) if job_name else env.get_execution_graph()
    raise ValueError(f"unknown graph level {level!r}: expected one of {', '.join(LEVELS)}")


class PipelineView:
    """The graph of a pipeline at one level, with StreamNodes in ``added`` drawn highlighted."""

    def __init__(
        self, graph: Any, level: str, added: Iterable[int] = (), caption: str = ""
    ) -> None:
        self.graph = graph
        self.level = level
        self.added = set(added)
        self.caption = caption

    def highlighted_ids(self) -> set[str]:
        return added_element_ids(self.level, self.graph, self.added)

    def to_svg(self) -> str:
        return mark_svg(self.graph.to_svg(), self.highlighted_ids())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from pyflowkit.render.export import describe
        from pyflowkit.render.graphviz_backend import GraphvizNotFoundError, GraphvizRenderError
        from pyflowkit.render.themed_html import graph_html

        text = "\n".join(p for p in (self.caption, describe(self.graph)) if p)
        bundle = {"text/plain": text}
        try:
            svg = self.to_svg()
            bundle["image/svg+xml"] = svg
            bundle["text/html"] = graph_html(svg, start_at_end=bool(self.added))
        except (GraphvizNotFoundError, GraphvizRenderError) as exc:
            bundle["text/plain"] = f"{text}\n(no drawing: {exc})"
        return bundle
