"""Rendering of the three graph levels through a display hook (pyflowkit's own, no Flink counterpart).

The graph layer never imports ``pyflowkit.render``: the render layer registers a
``DisplayHook`` here (``pyflowkit.render.display_hook.install``, done by ``import pyflowkit``),
and the graph objects reach rendering only through it. Rendering reads the graph and never
computes structure.
"""

from __future__ import annotations

from typing import Any, Protocol

from pyflowkit.errors import IllegalStateException


class DisplayHook(Protocol):
    """What the render layer offers the graphs: DOT, SVG, files and Jupyter's display bundle."""

    def to_dot(self, graph: Any, states: dict[str, Any] | None) -> str: ...

    def to_svg(self, graph: Any, states: dict[str, Any] | None) -> str: ...

    def save(
        self, graph: Any, path: Any, format: str | None, states: dict[str, Any] | None
    ) -> Any: ...

    def repr_mimebundle(self, graph: Any, include: Any, exclude: Any) -> dict[str, str]: ...

    def sequence_diagram(self, run: Any, last: int | None) -> Any: ...


_display_hook: DisplayHook | None = None


def register_display_hook(hook: DisplayHook) -> None:
    """Install the render layer's hook (the last one registered wins)."""
    global _display_hook
    _display_hook = hook


def display_hook() -> DisplayHook:
    """The registered hook; a clear error when no render layer registered one."""
    if _display_hook is None:
        raise IllegalStateException(
            "No display hook is registered for graphs: import pyflowkit.render.display_hook and "
            "call install() (import pyflowkit does it)."
        )
    return _display_hook


class Renderable:
    """``to_dot``/``to_svg``/``save`` and Jupyter's ``_repr_mimebundle_`` for a graph object."""

    __slots__ = ()

    def to_dot(self, states: dict[str, Any] | None = None) -> str:
        """DOT with stable node ids, optionally coloured by ``states``.

        Ids: ``sn_<id>`` (StreamGraph), ``jv_<vertex id>`` (JobGraph),
        ``ev_<vertex id>_<subtask>`` (ExecutionGraph).
        """
        return display_hook().to_dot(self, states)

    def to_svg(self, states: dict[str, Any] | None = None) -> str:
        """SVG drawn by Graphviz (system ``dot`` or ``graphviz-pure``)."""
        return display_hook().to_svg(self, states)

    def save(
        self, path: Any, format: str | None = None, states: dict[str, Any] | None = None
    ) -> Any:
        """Write svg/png/dot/json (by ``format=`` or the path's suffix); returns the path."""
        return display_hook().save(self, path, format, states)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return display_hook().repr_mimebundle(self, include, exclude)
