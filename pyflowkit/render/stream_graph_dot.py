"""DOT for a StreamGraph: one node per StreamNode, edges labelled with their ship strategy.

Draws Flink's ``StreamGraph`` (what ``env.getExecutionPlan()`` describes); reads it only.
"""

from __future__ import annotations

from collections.abc import Mapping

from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph, StreamNode
from pyflowkit.render.dot import DotBuilder, css_token, label_lines
from pyflowkit.render.states import legend_graph_attrs, normalise_states, state_fill

SOURCE_FILL = "#e6f7ff"
SINK_FILL = "#f6ffed"
OPERATOR_FILL = "#ffffff"


def stream_node_id(node: StreamNode | int) -> str:
    """Stable DOT/SVG id of a StreamNode: ``sn_<id>``."""
    return f"sn_{node if isinstance(node, int) else node.id}"


def stream_edge_ids(graph: StreamGraph) -> dict[int, str]:
    """``id(edge) → se_<source>_<target>_<typeNumber>[_<k>]``, unique and stable per graph."""
    ids: dict[int, str] = {}
    seen: dict[str, int] = {}
    for edge in graph.edges:
        base = f"se_{edge.source_id}_{edge.target_id}_{edge.type_number}"
        count = seen.get(base, 0)
        seen[base] = count + 1
        ids[id(edge)] = base if count == 0 else f"{base}_{count}"
    return ids


def node_role(graph: StreamGraph, node: StreamNode) -> str:
    """``source``, ``sink`` or ``operator`` as the StreamGraph records it."""
    if node.id in graph.sources or (not node.in_edges and node.id not in graph.sinks):
        return "source"
    if node.id in graph.sinks:
        return "sink"
    return "operator"


def edge_label(edge: StreamEdge) -> str:
    """Ship strategy, plus side-output tag, input number and shuffle mode when they matter."""
    tag = edge.output_tag
    tag_text = f"side output: {getattr(tag, 'tag_id', tag)}" if tag is not None else ""
    input_text = f"input {edge.type_number}" if edge.type_number > 0 else ""
    mode = edge.shuffle_mode.name
    mode_text = f"shuffle mode: {mode}" if mode != "UNDEFINED" else ""
    return label_lines(str(edge.partitioner), tag_text, input_text, mode_text)


def stream_graph_to_dot(graph: StreamGraph, states: Mapping[str, object] | None = None) -> str:
    """The StreamGraph as DOT; ``states`` maps ``sn_<id>`` to an ExecutionState to colour by."""
    node_ids = {stream_node_id(n) for n in graph.nodes.values()}
    painted = normalise_states(states, node_ids, "StreamGraph")
    dot = DotBuilder(graph.job_name, "stream_graph")
    fills = {"source": SOURCE_FILL, "sink": SINK_FILL, "operator": OPERATOR_FILL}
    for node in graph.nodes.values():
        sid = stream_node_id(node)
        role = node_role(graph, node)
        classes = ["stream-node", role, *(["keyed"] if node.is_keyed else [])]
        values: dict[str, object | None] = {
            "label": label_lines(
                node.operator_name, f"id {node.id} · Parallelism: {node.parallelism}"
            ),
            "tooltip": f"{node} ({node.operator_factory.operator_class}, "
            f"{node.chaining_strategy.name}, slot sharing group {node.slot_sharing_group})",
            "fillcolor": fills[role],
        }
        if sid in painted:
            values.update(state_fill(painted[sid]))
            classes.append(f"state-{painted[sid]}")
        values["class"] = " ".join(classes)
        dot.node(sid, values)
    edge_ids = stream_edge_ids(graph)
    for edge in graph.edges:
        ship = str(edge.partitioner)
        classes = ["stream-edge", f"ship-{css_token(ship)}"]
        if edge.output_tag is not None:
            classes.append("side-output")
        dot.edge(
            stream_node_id(edge.source),
            stream_node_id(edge.target),
            edge_ids[id(edge)],
            {
                "label": edge_label(edge),
                "tooltip": edge.edge_id,
                "style": "dashed" if edge.output_tag is not None else None,
                "class": " ".join(classes),
            },
        )
    return dot.source(legend_graph_attrs(painted))
