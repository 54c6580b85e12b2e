"""ExecutionGraph DOT: subtasks ``name (i/n)`` per vertex, ExecutionEdges as Flink wires them."""

from __future__ import annotations

import json
import re

import pytest
from handbuilt import MAP_ID, SRC_ID, WIN_ID, job_graph

from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.render.execution_graph_dot import execution_graph_to_dot


@pytest.fixture
def graph() -> ExecutionGraph:
    return ExecutionGraph.from_job_graph(job_graph())


def test_subtasks_are_grouped_per_vertex_with_flink_names(graph):
    dot = execution_graph_to_dot(graph)
    assert re.findall(r'subgraph "cluster_(ejv_\w+)"', dot) == [
        f"ejv_{SRC_ID}",
        f"ejv_{MAP_ID}",
        f"ejv_{WIN_ID}",
    ]
    nodes = re.findall(r'^\s*"(ev_\w+)" \[id="\1", label="([^"]*)"', dot, re.M)
    assert nodes == [
        (f"ev_{SRC_ID}_0", "Source: Collection Source (1/1)"),
        (f"ev_{MAP_ID}_0", "Map\\n-> Sink: Unnamed (1/2)"),
        (f"ev_{MAP_ID}_1", "Map\\n-> Sink: Unnamed (2/2)"),
        (f"ev_{WIN_ID}_0", nodes[3][1]),
        (f"ev_{WIN_ID}_1", nodes[4][1]),
    ]
    assert nodes[4][1].endswith("\\n-> Sink: Print to Std. Out (2/2)")
    assert "Parallelism: 2 (max 128)" in dot  # default max parallelism of the ExecutionJobVertex


def test_all_to_all_wiring_is_every_producer_to_every_consumer(graph):
    dot = execution_graph_to_dot(graph)
    edges = re.findall(r'"(ev_\w+)" -> "(ev_\w+)" \[id="(ee_\w+)"', dot)
    assert len(edges) == 2 + 4
    hash_edges = {(a, b) for a, b, _ in edges if b.startswith(f"ev_{WIN_ID}")}
    assert hash_edges == {(f"ev_{MAP_ID}_{i}", f"ev_{WIN_ID}_{j}") for i in (0, 1) for j in (0, 1)}
    labelled = re.findall(r'id="(ee_\w+)", label="([^"]*)"', dot)
    assert labelled == [
        (f"ee_{MAP_ID}_0_0_0", "REBALANCE\\nALL_TO_ALL"),
        (f"ee_{WIN_ID}_0_0_0", "HASH\\nALL_TO_ALL"),
    ]


def test_states_colour_subtasks_and_whole_vertices(graph):
    dot = execution_graph_to_dot(
        graph, states={f"ev_{MAP_ID}_1": "DEPLOYING", f"ejv_{WIN_ID}": "CREATED"}
    )
    line = next(x for x in dot.splitlines() if x.strip().startswith(f'"ev_{MAP_ID}_1"'))
    assert 'fillcolor="#13c2c2"' in line and "state-DEPLOYING" in line
    assert "region-0" in line  # one pipelined region: the job has ALL_TO_ALL edges
    assert 'class="execution-job-vertex state-CREATED";' in dot
    with pytest.raises(ValueError, match="not in this ExecutionGraph: ev_nope_0"):
        execution_graph_to_dot(graph, states={"ev_nope_0": "RUNNING"})


def test_svg_and_json(graph, tmp_path):
    svg = graph.to_svg()
    assert len(re.findall(r'<g id="ev_[0-9a-f]{32}_\d"', svg)) == 5
    assert graph._repr_mimebundle_()["text/plain"].startswith(
        "ExecutionGraph 'demo job': 3 vertices, 5 subtasks"
    )
    plan = json.loads(graph.save(tmp_path / "eg.json").read_text())  # getJsonPlan(): REST plan
    assert [n["id"] for n in plan["nodes"]] == [WIN_ID, MAP_ID, SRC_ID]
    assert plan["nodes"][0]["inputs"][0]["ship_strategy"] == "HASH"


def test_a_long_operator_name_wraps_after_its_spaces_with_flink_s_text():
    from pyflowkit.render.dot import WRAP_AT, operator_lines, wrap_name

    name = "Window(GlobalWindows(), CountTrigger, CountEvictor, GprsDelta)"
    assert wrap_name(name) == "Window(GlobalWindows(),\nCountTrigger, CountEvictor,\nGprsDelta)"
    assert wrap_name(name).replace("\n", " ") == name  # only line breaks are added
    assert all(len(line) <= WRAP_AT for line in wrap_name(name).split("\n"))
    assert wrap_name("Source: Collection Source") == "Source: Collection Source"  # short: as is
    assert wrap_name("x" * 40) == "x" * 40  # a word longer than the width stays whole
    chained = operator_lines(f"{name} -> Sink: Print to Std. Out")
    assert chained.split("\n")[-1] == "-> Sink: Print to Std. Out"
