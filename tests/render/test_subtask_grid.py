"""A large ExecutionGraph drawn legibly: subtasks in a grid per vertex, ALL_TO_ALL edges bundled
(one labelled arrow per JobEdge); a small one keeps one arrow per ExecutionEdge."""

from __future__ import annotations

import re

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.render.execution_graph_dot import (
    execution_graph_svg_with_metrics,
    execution_graph_to_dot,
)
from pyflowkit.render.subtask_grid import grid_columns, grid_rows


def word_count(parallelism: int):
    """The word count a new user copies, at ``parallelism``: its ExecutionGraph."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    (
        env.from_collection(list(range(40)), type_info=Types.INT())
        .map(lambda x: (x % 5, x), output_type=Types.TUPLE([Types.INT(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    return env.get_execution_graph()


def view_box(svg: str) -> tuple[float, float]:
    w, h = re.search(r'viewBox="0\.00 0\.00 ([\d.]+) ([\d.]+)"', svg).groups()
    return float(w), float(h)


def node_origins(svg: str, prefix: str) -> dict[str, tuple[float, float]]:
    """Each subtask box's top left corner (its path's first point), by subtask id."""
    found = {}
    for nid, body in re.findall(r'<g id="(ev_\w+)" class="node[^"]*">(.*?)</g>', svg, re.S):
        if nid.startswith(prefix):
            xs = [float(v) for v in re.findall(r"([-\d.]+),[-\d.]+", body)]
            ys = [float(v) for v in re.findall(r"[-\d.]+,([-\d.]+)", body)]
            found[nid] = (min(xs), min(ys))
    return found


def test_grid_sizes():
    assert [grid_rows(p) for p in (5, 8, 16, 32, 128)] == [4, 4, 6, 8, 16]
    assert grid_columns([str(i) for i in range(8)]) == [["0", "1", "2", "3"], ["4", "5", "6", "7"]]


def test_a_small_job_keeps_one_arrow_per_execution_edge():
    dot = execution_graph_to_dot(word_count(2))
    assert len(re.findall(r'\[id="ee_\w+"', dot)) == 2 + 4
    assert "je_" not in dot and "style=invis" not in dot


@pytest.mark.parametrize("p", [8, 16, 32])
def test_all_to_all_edges_of_a_large_job_are_one_labelled_bundle(p):
    graph = word_count(p)
    dot = execution_graph_to_dot(graph)
    assert "ee_" not in dot  # no per-subtask arrows: 1 x p + p x p of them
    bundles = re.findall(r'\[id="(je_\w+)", label="([^"]*)".*?lhead="(cluster_ejv_\w+)"', dot)
    map_v, reduce_v = graph.job_vertices[1], graph.job_vertices[2]
    assert bundles == [
        (f"je_{map_v.id}_0", f"REBALANCE\\nALL_TO_ALL\\n(1×{p})", f"cluster_ejv_{map_v.id}"),
        (f"je_{reduce_v.id}_0", f"HASH\\nALL_TO_ALL\\n({p}×{p})", f"cluster_ejv_{reduce_v.id}"),
    ]


def test_the_p8_word_count_is_a_wide_grid_not_a_tall_stack():
    graph = word_count(8)
    svg = execution_graph_svg_with_metrics(graph)
    width, height = view_box(svg)
    # was 780 x 1979 pt (one column of 8 subtasks per vertex and 72 arrows); a 1280 x 800 page's
    # graph pane is about 3:1
    assert height < 420 and width / height > 2.5
    maps = node_origins(svg, f"ev_{graph.job_vertices[1].id}_")
    assert len(maps) == 8
    columns = sorted({round(x) for x, _ in maps.values()})
    assert len(columns) == 2  # 2 columns of 4, subtasks 1-4 left, 5-8 right, top to bottom
    for i, (x, _y) in sorted(maps.items(), key=lambda kv: int(kv[0].rsplit("_", 1)[1])):
        k = int(i.rsplit("_", 1)[1])
        assert round(x) == columns[k // 4]
    ys = [maps[f"ev_{graph.job_vertices[1].id}_{k}"][1] for k in range(4)]
    assert ys == sorted(ys)
    # the bundled edge is drawn (its path and its label) and every subtask keeps its own box
    assert re.search(r'<g id="je_\w+" class="edge[^"]*">.*?<path', svg, re.S)
    assert svg.count('class="node execution&#45;vertex') == 1 + 8 + 8


@pytest.mark.parametrize("p", [16, 32])
def test_larger_jobs_stay_wider_than_tall(p):
    width, height = view_box(execution_graph_svg_with_metrics(word_count(p)))
    assert width > 2 * height
