"""JobGraph DOT: a cluster per JobVertex with its chained operators; JobEdges between chains."""

from __future__ import annotations

import re

from handbuilt import MAP_ID, SRC_ID, WIN_ID, WINDOW, job_graph

from pyflowkit.render.job_graph_dot import job_graph_to_dot


def cluster(dot: str, vertex_id: str) -> str:
    start = dot.index(f'subgraph "cluster_jv_{vertex_id}" {{')
    return dot[start : dot.index("\n  }", start)]


def test_one_cluster_per_vertex_in_topological_order():
    dot = job_graph_to_dot(job_graph())
    assert re.findall(r'subgraph "cluster_(jv_\w+)"', dot) == [
        f"jv_{SRC_ID}",
        f"jv_{MAP_ID}",
        f"jv_{WIN_ID}",
    ]
    for vid in (SRC_ID, MAP_ID, WIN_ID):
        assert f'id="jv_{vid}";' in cluster(dot, vid)


def test_cluster_shows_chained_operators_in_chain_order_and_parallelism():
    dot = job_graph_to_dot(job_graph())
    win = cluster(dot, WIN_ID)
    assert re.findall(r'label="([^"]*)", tooltip="[^"]*\(chain index', win) == [
        WINDOW,
        "Sink: Print to Std. Out",
    ]
    assert f'"jv_{WIN_ID}_op0" [id="jv_{WIN_ID}_op0"' in win
    assert "Parallelism: 2" in win and "OneInputStreamTask" in win
    assert "SourceStreamTask · Parallelism: 1" in cluster(dot, SRC_ID)
    assert f'tooltip="{WINDOW} -> Sink: Print to Std. Out"' in win
    chained = f'"jv_{WIN_ID}_op0" -> "jv_{WIN_ID}_op1" [id="ce_4_5_0", label="chained"'
    assert chained in win


def test_job_edges_carry_ship_strategy_and_distribution_pattern():
    dot = job_graph_to_dot(job_graph())
    rebalance = (
        f'"jv_{SRC_ID}_op0" -> "jv_{MAP_ID}_op0" [id="je_{MAP_ID}_0", '
        'label="REBALANCE\\nALL_TO_ALL", tooltip="REBALANCE / ALL_TO_ALL / PIPELINED_BOUNDED"'
    )
    assert rebalance in dot
    hash_edge = next(line for line in dot.splitlines() if f'id="je_{WIN_ID}_0"' in line)
    assert 'label="HASH\\nALL_TO_ALL"' in hash_edge
    assert 'class="job-edge ship-HASH pattern-ALL_TO_ALL"' in hash_edge


def test_states_paint_whole_vertices_and_keep_ids():
    plain = job_graph_to_dot(job_graph())
    painted = job_graph_to_dot(job_graph(), states={f"jv_{MAP_ID}": "FAILED"})
    ids = re.compile(r'id="([^"]+)"')
    assert [i for i in ids.findall(painted) if not i.startswith("legend_")] == ids.findall(plain)
    assert 'fillcolor="#f5222d";' in cluster(painted, MAP_ID)
    assert 'class="job-vertex state-FAILED";' in cluster(painted, MAP_ID)
    assert 'fillcolor="#f5f5f5";' in cluster(painted, SRC_ID)
