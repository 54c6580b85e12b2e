"""Render any graph level to DOT, SVG, PNG or Flink-format JSON, save it, or show it in Jupyter.

No single Flink counterpart: the web UI's plan view plus ``getExecutionPlan()`` / REST ``/plan``.
The graph classes' ``to_dot``/``to_svg``/``save``/``_repr_mimebundle_`` delegate here lazily.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.graph.stream_graph import StreamGraph
from pyflowkit.render.execution_graph_dot import execution_graph_to_dot
from pyflowkit.render.job_graph_dot import job_graph_to_dot
from pyflowkit.render.stream_graph_dot import stream_graph_to_dot

FORMATS = ("svg", "png", "dot", "json")
SUFFIX_FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot", ".json": "json"}


def graph_kind(graph: object) -> str:
    """``StreamGraph``, ``JobGraph`` or ``ExecutionGraph``; anything else is a TypeError."""
    if isinstance(graph, StreamGraph):
        return "StreamGraph"
    if isinstance(graph, JobGraph):
        return "JobGraph"
    if isinstance(graph, ExecutionGraph):
        return "ExecutionGraph"
    raise TypeError(
        f"cannot render {type(graph).__name__}: expected a StreamGraph, JobGraph or ExecutionGraph "
        "(env.get_stream_graph(), env.get_job_graph(), env.get_execution_graph())"
    )


def to_dot(graph: Any, states: Mapping[str, object] | None = None) -> str:
    """The graph as DOT with stable ids (``sn_``/``jv_``/``ev_``), coloured by ``states``."""
    kind = graph_kind(graph)
    if kind == "StreamGraph":
        return stream_graph_to_dot(graph, states)
    if kind == "JobGraph":
        return job_graph_to_dot(graph, states)
    return execution_graph_to_dot(graph, states)


def to_svg(graph: Any, states: Mapping[str, object] | None = None) -> str:
    """The graph laid out by Graphviz (system ``dot`` or ``graphviz-pure``) as SVG text, each
    edge's label clear of the edges (``clear_edge_labels``)."""
    from pyflowkit.render.edge_labels import clear_edge_labels
    from pyflowkit.render.graphviz_backend import render

    return clear_edge_labels(render(to_dot(graph, states), "svg").decode("utf-8"))


def to_png(graph: Any, states: Mapping[str, object] | None = None) -> bytes:
    """The graph laid out by Graphviz as PNG bytes."""
    from pyflowkit.render.graphviz_backend import render

    return render(to_dot(graph, states), "png")


def to_json(graph: Any) -> str:
    """Flink's JSON: StreamGraph → ``getExecutionPlan()``; JobGraph/ExecutionGraph → REST plan."""
    kind = graph_kind(graph)
    if kind == "StreamGraph":
        from pyflowkit.graph.json_plan import stream_graph_to_execution_plan

        return stream_graph_to_execution_plan(graph)
    if kind == "JobGraph":
        return graph.to_plan_json()
    return graph.get_json_plan()  # ExecutionGraph.getJsonPlan(): the JobGraph's REST plan


def resolve_format(path: Path, format: str | None) -> str:
    """``format=`` wins; otherwise the suffix decides (``.svg .png .dot .gv .json``)."""
    if format is not None:
        fmt = format.lower().lstrip(".")
        if fmt not in FORMATS:
            raise ValueError(f"unsupported format {format!r}: expected one of {', '.join(FORMATS)}")
        return fmt
    fmt = SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"cannot tell the format of {str(path)!r} from its suffix {path.suffix!r}: use one of "
            f"{', '.join(SUFFIX_FORMATS)} or pass format= ({', '.join(FORMATS)})"
        )
    return fmt


def render_bytes(graph: Any, fmt: str, states: Mapping[str, object] | None = None) -> bytes:
    """The graph in ``fmt`` (svg, png, dot or json) as bytes."""
    if fmt == "png":
        return to_png(graph, states)
    if fmt == "svg":
        return to_svg(graph, states).encode("utf-8")
    if fmt == "dot":
        return to_dot(graph, states).encode("utf-8")
    if fmt == "json":
        return to_json(graph).encode("utf-8")
    raise ValueError(f"unsupported format {fmt!r}: expected one of {', '.join(FORMATS)}")


def save(
    graph: Any,
    path: str | Path,
    format: str | None = None,
    states: Mapping[str, object] | None = None,
) -> Path:
    """Write the graph to ``path`` (format from ``format=`` or the suffix); returns the path."""
    target = Path(path)
    fmt = resolve_format(target, format)
    graph_kind(graph)
    data = render_bytes(graph, fmt, states)  # render first: a failure leaves no partial file
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return target


def describe(graph: Any) -> str:
    """A plain-text summary (the ``text/plain`` part of the Jupyter display)."""
    kind = graph_kind(graph)
    if kind == "StreamGraph":
        lines = [
            f"StreamGraph {graph.job_name!r}: {len(graph.nodes)} nodes, {len(graph.edges)} edges"
        ]
        lines += [
            f"  {n.id}: {n.operator_name} (parallelism {n.parallelism})"
            for n in graph.nodes.values()
        ]
        lines += [f"  {e.source_id} -> {e.target_id} {e.partitioner}" for e in graph.edges]
        return "\n".join(lines)
    if kind == "JobGraph":
        lines = [
            f"JobGraph {graph.job_name!r}: {len(graph.vertices)} vertices, {len(graph.edges)} edges"
        ]
        lines += [f"  {v.name} (parallelism {v.parallelism})" for v in graph.vertices]
        lines += [
            f"  {e.source.name} -> {e.target.name}: {e.ship_strategy.name}, "
            f"{e.distribution_pattern.name}"
            for e in graph.edges
        ]
        return "\n".join(lines)
    vertices = list(graph.job_vertices)
    subtasks = sum(len(v.task_vertices) for v in vertices)
    lines = [f"ExecutionGraph {graph.job_name!r}: {len(vertices)} vertices, {subtasks} subtasks"]
    lines += [f"  {v.name} x {len(v.task_vertices)}" for v in vertices]
    return "\n".join(lines)


def repr_mimebundle(
    graph: Any, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
) -> dict[str, str]:
    """Jupyter's display bundle: ``text/html`` (the SVG inline, at its own size, in the notebook's
    theme) and ``image/svg+xml`` (for static viewers) if Graphviz is available, ``text/plain``."""
    from pyflowkit.render.graphviz_backend import GraphvizNotFoundError, GraphvizRenderError
    from pyflowkit.render.themed_html import graph_html

    wanted = {"text/html", "image/svg+xml", "text/plain"}
    if include:
        wanted &= set(include)
    if exclude:
        wanted -= set(exclude)
    bundle: dict[str, str] = {}
    text = describe(graph)
    if wanted & {"text/html", "image/svg+xml"}:
        try:
            svg = to_svg(graph)
        except (GraphvizNotFoundError, GraphvizRenderError) as exc:
            text += f"\n(no drawing: {exc})"
        else:
            if "text/html" in wanted:
                bundle["text/html"] = graph_html(svg)
            if "image/svg+xml" in wanted:
                bundle["image/svg+xml"] = svg
    if "text/plain" in wanted:
        bundle["text/plain"] = text
    return bundle
