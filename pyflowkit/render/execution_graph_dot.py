"""DOT for an ExecutionGraph: subtasks ``name (i/n)`` grouped by vertex, wired by ExecutionEdges.

Draws Flink's ``ExecutionGraph`` (ExecutionJobVertex → ExecutionVertex, POINTWISE/ALL_TO_ALL
ExecutionEdges) exactly as built; it reads the wiring, never recomputes it. A vertex of more than 4
subtasks is drawn as a grid and its JobEdges as one labelled bundle each
(``pyflowkit.render.subtask_grid``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyflowkit.render.dot import DotBuilder, css_token, label_lines, operator_lines
from pyflowkit.render.states import (
    legend_graph_attrs,
    normalise_states,
    state_fill,
    vertex_cluster,
)
from pyflowkit.render.subtask_grid import bundle_label, grid_columns, is_grid

SUBTASK_FILL = "#ffffff"


def execution_job_vertex_id(vertex: Any) -> str:
    """Stable id of an ExecutionJobVertex cluster: ``ejv_<JobVertexID>``."""
    return f"ejv_{vertex.id}"


def execution_vertex_id(vertex: Any) -> str:
    """Stable id of a subtask: ``ev_<JobVertexID>_<subtask index>`` (Flink's ExecutionVertexID)."""
    return f"ev_{vertex.id}"


def subtask_label(vertex: Any) -> str:
    """Flink's ``name (i/n)``, the chained name shown one operator per line (long ones wrapped)."""
    return f"{operator_lines(vertex.task_name)} ({vertex.subtask_index + 1}/{vertex.parallelism})"


#: Blank label lines under a subtask's name when the Stepper shows its metrics strip there.
METRICS_ROWS = 2
#: The least width of a subtask box (inches) with a metrics strip: "in 2000 · out 2000" and the
#: back-pressure chip beside it (a 3-stage job at parallelism 2 then fits 1280 px at 14 px text).
METRICS_MIN_WIDTH = 2.4
#: The rank separation (inches) of the layout with metrics strips (the defaults' 0.6 elsewhere):
#: the wider boxes then still fit a presenter's 990 px at 18 px text (1280 x 800), every edge
#: long enough for its label and its buffer gauges.
METRICS_RANKSEP = 0.45


#: A subtask box's margin (inches, sideways and up/down) with a metrics strip: a little more than
#: Graphviz's 0.11,0.055 up and down instead of a blank line under the strip (the box 10 pt lower:
#: notebook 09's graph whole in a presenter's window at 1280 x 800).
METRICS_MARGIN = "0.11,0.075"


def metrics_room(rows: int) -> str:
    """Blank label lines under a subtask's name: ``rows`` for the strip."""
    return "\n" * rows + " " if rows else ""


def execution_graph_to_dot(
    graph: Any, states: Mapping[str, object] | None = None, metrics_rows: int = 0
) -> str:
    """The ExecutionGraph as DOT; ``states`` maps ``ev_…`` (or ``ejv_…``) to an ExecutionState;
    ``metrics_rows`` blank lines at the bottom of each subtask box (room for a metrics strip)."""
    known = {execution_job_vertex_id(v) for v in graph.job_vertices}
    known |= {execution_vertex_id(ev) for ev in graph.all_execution_vertices}
    painted = normalise_states(states, known, "ExecutionGraph")
    region_of = {
        id(ev): region.index
        for region in graph.failover_regions
        for ev in region.execution_vertices
    }
    dot = DotBuilder(graph.job_name, "execution_graph")
    for ejv in graph.job_vertices:
        cid = execution_job_vertex_id(ejv)
        cluster = vertex_cluster(
            label_lines(
                operator_lines(ejv.name),
                f"Parallelism: {ejv.parallelism} (max {ejv.max_parallelism})",
            ),
            ejv.name,
            "execution-job-vertex",
            painted.get(cid),
        )
        dot.open_cluster(cid, cluster)
        if is_grid(len(ejv.task_vertices)):
            # columns of subtasks: unseen edges put each column one rank right of the last
            columns = grid_columns([execution_vertex_id(ev) for ev in ejv.task_vertices])
            for left, right in zip(columns, columns[1:], strict=False):
                for tail, head in zip(left, right, strict=False):
                    dot.line(f'"{tail}" -> "{head}" [style=invis];')
        for ev in ejv.task_vertices:
            nid = execution_vertex_id(ev)
            values: dict[str, object | None] = {
                "label": subtask_label(ev) + metrics_room(metrics_rows),
                "tooltip": f"{ev.task_name_with_subtask_index} — ExecutionVertexID {ev.id}",
                "fillcolor": SUBTASK_FILL,
                "fontcolor": "#000000",
            }
            ev_classes = ["execution-vertex", f"region-{region_of.get(id(ev), 0)}"]
            if metrics_rows:
                values["width"] = METRICS_MIN_WIDTH
                values["margin"] = METRICS_MARGIN
                ev_classes.append("with-metrics")
            if nid in painted:
                values.update(state_fill(painted[nid]))
                ev_classes.append(f"state-{painted[nid]}")
            values["class"] = " ".join(ev_classes)
            dot.node(nid, values)
        dot.close_cluster()
    bundled = False
    for ejv in graph.job_vertices:
        for input_number, job_edge in enumerate(ejv.job_vertex.inputs):
            producers = _producer_vertex(ejv, input_number)
            if _bundled(producers, ejv):
                _bundled_edge(dot, producers, ejv, input_number, job_edge)
                bundled = True
        for ev in ejv.task_vertices:
            for input_number, group in enumerate(ev.input_edges):
                job_edge = ejv.job_vertex.inputs[input_number]
                if _bundled(_producer_vertex(ejv, input_number), ejv):
                    continue
                ship = job_edge.ship_strategy.name
                pattern = job_edge.distribution_pattern.name
                for k, edge in enumerate(group):
                    producer = edge.source.producer
                    first = ev.subtask_index == 0 and k == 0  # label each JobEdge once
                    dot.edge(
                        execution_vertex_id(producer),
                        execution_vertex_id(ev),
                        f"ee_{ev.id}_{input_number}_{edge.source.partition_number}",
                        {
                            "label": label_lines(ship, pattern) if first else None,
                            "tooltip": f"{producer.name} → {ev.name} ({ship}, {pattern})",
                            "class": f"execution-edge ship-{css_token(ship)} pattern-{pattern}",
                        },
                    )
    spacing = f" ranksep={METRICS_RANKSEP};" if metrics_rows else ""
    if bundled:  # a bundle ends at its clusters' borders
        spacing += " compound=true;"
    return dot.source(spacing + legend_graph_attrs(painted))


def _producer_vertex(ejv: Any, input_number: int) -> Any:
    """The ExecutionJobVertex feeding ``ejv``'s input ``input_number`` (read off its edges), or
    None while that input is not connected yet (a dynamic graph's undecided vertex)."""
    first = ejv.task_vertices[0].input_edges if ejv.task_vertices else []
    if len(first) <= input_number or not first[input_number]:
        return None
    return first[input_number][0].source.producer.job_vertex


def _bundled(producers: Any, consumers: Any) -> bool:
    """Whether a JobEdge is drawn as one bundle: either end is a grid."""
    return producers is not None and (
        is_grid(len(producers.task_vertices)) or is_grid(len(consumers.task_vertices))
    )


def _bundled_edge(
    dot: DotBuilder, producers: Any, consumers: Any, number: int, job_edge: Any
) -> None:
    """One arrow for a JobEdge's ExecutionEdges, cluster to cluster, labelled with their count:
    from the producer grid's last column to the consumer grid's first, mid-height."""
    ship = job_edge.ship_strategy.name
    pattern = job_edge.distribution_pattern.name
    count = sum(len(ev.input_edges[number]) for ev in consumers.task_vertices)
    tails = grid_columns([execution_vertex_id(ev) for ev in producers.task_vertices])[-1]
    heads = grid_columns([execution_vertex_id(ev) for ev in consumers.task_vertices])[0]
    dot.edge(
        tails[(len(tails) - 1) // 2],
        heads[(len(heads) - 1) // 2],
        f"je_{consumers.id}_{number}",
        {
            "label": bundle_label(
                ship, pattern, len(producers.task_vertices), len(consumers.task_vertices), count
            ),
            "tooltip": f"{producers.name} → {consumers.name} ({ship}, {pattern}): {count} ExecutionEdges",
            "ltail": f"cluster_{execution_job_vertex_id(producers)}",
            "lhead": f"cluster_{execution_job_vertex_id(consumers)}",
            "penwidth": 2.5,
            "class": f"execution-edge bundled ship-{css_token(ship)} pattern-{pattern}",
        },
    )


def execution_graph_svg_with_metrics(graph: Any) -> str:
    """The ExecutionGraph laid out with room for a metrics strip in every subtask box, each edge's
    label clear of the edges."""
    from pyflowkit.render.edge_labels import clear_edge_labels
    from pyflowkit.render.graphviz_backend import render

    dot = execution_graph_to_dot(graph, metrics_rows=METRICS_ROWS)
    return clear_edge_labels(render(dot, "svg").decode("utf-8"))
