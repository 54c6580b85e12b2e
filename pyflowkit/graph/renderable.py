"""Rendering hooks shared by the three graph levels (pyflowkit's own, no Flink counterpart).

The methods import ``pyflowkit.render`` lazily, so ``graph`` never loads it (nor graphviz) at
import time; rendering reads the graph and never computes structure.
"""

from __future__ import annotations

from typing import Any


class Renderable:
    """``to_dot``/``to_svg``/``save`` and Jupyter's ``_repr_mimebundle_`` for a graph object."""

    __slots__ = ()

    def to_dot(self, states: dict[str, Any] | None = None) -> str:
        """DOT with stable node ids, optionally coloured by ``states``.

        Ids: ``sn_<id>`` (StreamGraph), ``jv_<vertex id>`` (JobGraph),
        ``ev_<vertex id>_<subtask>`` (ExecutionGraph).
        """
        from pyflowkit.render.export import to_dot

        return to_dot(self, states)

    def to_svg(self, states: dict[str, Any] | None = None) -> str:
        """SVG drawn by Graphviz (system ``dot`` or ``graphviz-pure``)."""
        from pyflowkit.render.export import to_svg

        return to_svg(self, states)

    def save(
        self, path: Any, format: str | None = None, states: dict[str, Any] | None = None
    ) -> Any:
        """Write svg/png/dot/json (by ``format=`` or the path's suffix); returns the path."""
        from pyflowkit.render.export import save

        return save(self, path, format, states)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        from pyflowkit.render.export import repr_mimebundle

        return repr_mimebundle(self, include, exclude)
