"""The render layer's display hook for graph objects (pyflowkit's own, no Flink counterpart).

``install()`` registers it with ``pyflowkit.graph.renderable``; ``pyflowkit.render.export`` is
loaded on first use, so installing costs nothing at ``import pyflowkit``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.graph.renderable import register_display_hook


class RenderDisplayHook:
    """Draws StreamGraph, JobGraph and ExecutionGraph with ``pyflowkit.render.export``, and a
    run's sequence diagram with ``pyflowkit.render.sequence_model``."""

    def to_dot(self, graph: Any, states: dict[str, Any] | None) -> str:
        from pyflowkit.render.export import to_dot

        return to_dot(graph, states)

    def to_svg(self, graph: Any, states: dict[str, Any] | None) -> str:
        from pyflowkit.render.export import to_svg

        return to_svg(graph, states)

    def save(self, graph: Any, path: Any, format: str | None, states: dict[str, Any] | None) -> Any:
        from pyflowkit.render.export import save

        return save(graph, path, format, states)

    def repr_mimebundle(self, graph: Any, include: Any, exclude: Any) -> dict[str, str]:
        from pyflowkit.render.export import repr_mimebundle

        return repr_mimebundle(graph, include, exclude)

    def sequence_diagram(self, run: Any, last: int | None) -> Any:
        """A ``JobRun``'s messages as a ``SequenceDiagram`` (static SVG, Jupyter display)."""
        from pyflowkit.render.sequence_model import sequence_diagram

        return sequence_diagram(run, last)


def install() -> None:
    """Register the render layer as the graphs' display hook."""
    register_display_hook(RenderDisplayHook())
