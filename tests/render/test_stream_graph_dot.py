"""StreamGraph DOT: one node per StreamNode with stable ids, ship strategies on the edges."""

from __future__ import annotations

import re

import pytest
from handbuilt import WINDOW, stream_graph

from pyflowkit.render.stream_graph_dot import stream_graph_to_dot


def node_line(dot: str, node_id: str) -> str:
    return next(line for line in dot.splitlines() if line.strip().startswith(f'"{node_id}" ['))


def test_every_stream_node_has_a_stable_id_and_its_flink_name():
    dot = stream_graph_to_dot(stream_graph())
    ids = re.findall(r'^\s*"(sn_\d+)" \[id="\1"', dot, re.M)
    assert ids == ["sn_1", "sn_2", "sn_4", "sn_5", "sn_6"]
    assert 'label="Source: Collection Source\\nid 1 · Parallelism: 1"' in node_line(dot, "sn_1")
    assert f'label="{WINDOW}\\nid 4 · Parallelism: 2"' in node_line(dot, "sn_4")


def test_roles_and_keyed_nodes_are_svg_classes():
    dot = stream_graph_to_dot(stream_graph())
    assert 'class="stream-node source"' in node_line(dot, "sn_1")
    assert 'class="stream-node operator"' in node_line(dot, "sn_2")
    assert 'class="stream-node operator keyed"' in node_line(dot, "sn_4")
    assert 'class="stream-node sink"' in node_line(dot, "sn_5")


def test_edges_are_labelled_with_ship_strategy_and_side_output_tag():
    dot = stream_graph_to_dot(stream_graph())
    assert '"sn_1" -> "sn_2" [id="se_1_2_0", label="REBALANCE"' in dot
    assert '"sn_2" -> "sn_4" [id="se_2_4_0", label="HASH"' in dot
    assert '"sn_4" -> "sn_5" [id="se_4_5_0", label="FORWARD"' in dot
    side = next(line for line in dot.splitlines() if 'id="se_2_6_0"' in line)
    assert 'label="FORWARD\\nside output: late"' in side
    assert "side-output" in side and 'style="dashed"' in side
    assert 'tooltip="Map-2_Sink: Unnamed-6_0_[]_FORWARD"' in side  # Flink's StreamEdge id


def test_states_colour_nodes_and_add_a_legend_without_changing_ids():
    plain = stream_graph_to_dot(stream_graph())
    painted = stream_graph_to_dot(stream_graph(), states={"sn_2": "RUNNING", "sn_5": "FAILED"})
    assert re.findall(r'id="(s[ne]_[\d_]+)"', plain) == re.findall(r'id="(s[ne]_[\d_]+)"', painted)
    assert 'fillcolor="#52c41a", fontcolor="#ffffff"' in node_line(painted, "sn_2")
    assert "state-RUNNING" in node_line(painted, "sn_2")
    assert 'fillcolor="#f5222d"' in node_line(painted, "sn_5")
    assert 'id="legend_RUNNING" bgcolor="#52c41a"' in painted
    assert "legend_" not in plain


def test_states_accept_enum_members():
    import enum

    class ExecutionState(enum.Enum):
        DEPLOYING = 2

    dot = stream_graph_to_dot(stream_graph(), states={"sn_1": ExecutionState.DEPLOYING})
    assert 'fillcolor="#13c2c2"' in node_line(dot, "sn_1")


def test_unknown_state_or_id_is_a_clear_error():
    with pytest.raises(ValueError, match=r"Unknown state 'SLEEPING'"):
        stream_graph_to_dot(stream_graph(), states={"sn_1": "SLEEPING"})
    with pytest.raises(ValueError, match=r"not in this StreamGraph: sn_99"):
        stream_graph_to_dot(stream_graph(), states={"sn_99": "RUNNING"})


def test_only_six_digit_hex_colours_are_emitted():
    dot = stream_graph_to_dot(stream_graph(), states={"sn_1": "CANCELED"})
    colours = re.findall(r'(?:color|bgcolor)="([^"]*)"', dot)
    assert colours and all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours)


def test_quotes_and_backslashes_in_names_are_escaped():
    g = stream_graph()
    g.nodes[2].operator_name = 'My "quoted" \\ map'
    line = node_line(stream_graph_to_dot(g), "sn_2")
    assert 'label="My \\"quoted\\" \\\\ map\\nid 2' in line
