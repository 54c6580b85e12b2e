"""DOT for a JobGraph: one cluster per JobVertex holding its chained operators, JobEdges between.

Draws Flink's ``JobGraph`` (the web UI's job plan, with the chains opened up); reads it only.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyflowkit.graph.job_graph import JobGraph, JobVertex
from pyflowkit.render.dot import DotBuilder, css_token, label_lines
from pyflowkit.render.states import (
    legend_graph_attrs,
    normalise_states,
    vertex_cluster,
)

OPERATOR_FILL = "#ffffff"


def job_vertex_id(vertex: JobVertex | str) -> str:
    """Stable DOT/SVG id of a JobVertex cluster: ``jv_<JobVertexID>``."""
    return f"jv_{vertex if isinstance(vertex, str) else vertex.id}"


def chained_operator_id(vertex: JobVertex, chain_index: int) -> str:
    """Stable id of the operator at ``chain_index`` (head = 0) inside a JobVertex."""
    return f"{job_vertex_id(vertex)}_op{chain_index}"


def job_edge_id(target: JobVertex, input_number: int) -> str:
    """Stable id of a JobEdge: consumer vertex + input number (the REST plan's ``num``)."""
    return f"je_{target.id}_{input_number}"


def vertex_label(vertex: JobVertex) -> str:
    max_p = vertex.max_parallelism if vertex.max_parallelism > 0 else "default"
    return label_lines(
        f"{vertex.invokable_class} · Parallelism: {vertex.parallelism} (max {max_p})",
        f"JobVertex {vertex.id[:8]} · slot sharing group {vertex.slot_sharing_group}",
    )


def job_graph_to_dot(graph: JobGraph, states: Mapping[str, object] | None = None) -> str:
    """The JobGraph as DOT; ``states`` maps ``jv_<id>`` to an ExecutionState to colour a vertex."""
    painted = normalise_states(states, {job_vertex_id(v) for v in graph.vertices}, "JobGraph")
    dot = DotBuilder(graph.job_name, "job_graph")
    operator_node: dict[int, str] = {}  # StreamNode id → DOT id of its chained operator
    for vertex in graph.vertices:
        vid = job_vertex_id(vertex)
        cluster = vertex_cluster(vertex_label(vertex), vertex.name, "job-vertex", painted.get(vid))
        dot.open_cluster(vid, cluster)
        for index, node in enumerate(vertex.stream_nodes):
            op_id = chained_operator_id(vertex, index)
            operator_node[node.id] = op_id
            role = "chain-head" if index == 0 else "chained"
            dot.node(
                op_id,
                {
                    "label": node.operator_name,
                    "tooltip": f"{node} (chain index {index}, {node.chaining_strategy.name})",
                    "fillcolor": OPERATOR_FILL,
                    "fontcolor": "#000000",
                    "class": f"chained-operator {role}",
                },
            )
        for edge in vertex.chained_edges:
            dot.edge(
                operator_node[edge.source_id],
                operator_node[edge.target_id],
                f"ce_{edge.source_id}_{edge.target_id}_{edge.type_number}",
                {"label": "chained", "style": "bold", "class": "chained-edge"},
            )
        dot.close_cluster()
    for vertex in graph.vertices:
        for number, job_edge in enumerate(vertex.inputs):
            ship = job_edge.ship_strategy.name
            pattern = job_edge.distribution_pattern.name
            dot.edge(
                operator_node[job_edge.stream_edge.source_id],
                operator_node[job_edge.stream_edge.target_id],
                job_edge_id(vertex, number),
                {
                    "label": label_lines(ship, pattern),
                    "tooltip": f"{ship} / {pattern} / {job_edge.result_partition_type.name}",
                    "penwidth": "1.6",
                    "class": f"job-edge ship-{css_token(ship)} pattern-{pattern}",
                },
            )
    return dot.source(legend_graph_attrs(painted))
