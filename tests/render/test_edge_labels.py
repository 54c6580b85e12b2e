"""Edge labels clear of every edge (``pyflowkit.render.edge_labels``): the geometry of the laid-out
SVG, label text box against edge line and arrowhead, for the classroom notebooks' graphs."""

from __future__ import annotations

import re

import pytest

from pyflowkit.common.typeinfo import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.render.edge_labels import (
    GAP,
    Box,
    clear_edge_labels,
    clearance,
    edge_segments,
    label_boxes,
    path_points,
    segment_distance,
)
from pyflowkit.render.execution_graph_dot import execution_graph_svg_with_metrics
from pyflowkit.render.graphviz_backend import render


def word_count(graph: str = "execution"):
    """Notebook 03's job: REBALANCE then HASH, ALL_TO_ALL, at parallelism 2."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    (
        env.from_collection(["to be or", "not to be"])
        .flat_map(lambda line: line.split())
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    return env.get_job_graph() if graph == "job" else env.get_execution_graph()


def slow_sink():
    """Notebook 09's job (its graph is drawn with the metrics strips)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    words = env.from_collection([f"w{i % 7}" for i in range(100)], type_info=Types.STRING())
    (
        words.map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0])
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
        .name("slow sink")
    )
    return env.get_execution_graph()


def _nearest(svg: str) -> dict[str, float]:
    segments = edge_segments(svg)
    near: dict[str, float] = {}
    for text, box in label_boxes(svg):
        near[text] = min(near.get(text, float("inf")), clearance(box, segments))
    return near


def test_graphviz_draws_notebook_03s_all_to_all_on_its_edge():
    """The defect, measured on Graphviz's own layout: ALL_TO_ALL under 1 pt from an edge."""
    from pyflowkit.render.export import to_dot

    raw = render(to_dot(word_count()), "svg").decode("utf-8")
    assert _nearest(raw)["ALL_TO_ALL"] < 1.0
    assert "ALL_TO_ALL" in {t for t, _ in label_boxes(raw)}


@pytest.mark.parametrize(
    "svg_of",
    [
        lambda: word_count().to_svg(),
        lambda: execution_graph_svg_with_metrics(word_count()),
        lambda: slow_sink().to_svg(),
        lambda: execution_graph_svg_with_metrics(slow_sink()),
        lambda: word_count("job").to_svg(),
    ],
    ids=["03", "03-metrics", "09", "09-metrics", "03-jobgraph"],
)
def test_every_edge_label_clears_every_edge(svg_of):
    svg = svg_of()
    near = _nearest(svg)
    assert {"ALL_TO_ALL"} <= set(near), near
    assert min(near.values()) >= GAP - 1e-6, near


def test_a_label_on_its_line_moves_the_least_and_a_clear_one_stays():
    edge = (
        '<g id="e1" class="edge">\n<title>a&#45;&gt;b</title>\n<g id="a_e1"><a>\n'
        '<path fill="none" stroke="#555555" d="M0,-50C30,-50 70,-50 100,-50"/>\n</a>\n</g>\n'
        '<text text-anchor="middle" x="50" y="{y}" font-size="11.00">HASH</text>\n</g>\n'
    )
    on_line = edge.format(y="-49")  # the baseline on the line: the text crosses it
    moved = clear_edge_labels(on_line)
    y = float(re.search(r'y="(-?[\d.]+)" font-size', moved).group(1))
    assert y < -49  # up: the lesser move (its box reaches 0.24 em below the baseline)
    assert _nearest(moved)["HASH"] >= GAP
    assert abs(_nearest(moved)["HASH"] - GAP) <= 0.5  # no further than it needs
    clear = edge.format(y="-60")
    assert clear_edge_labels(clear) == clear


def test_geometry_helpers():
    assert path_points("M0,0C0,0 10,0 10,0")[-1] == (10.0, 0.0)
    assert len(path_points("M0,0C1,1 2,2 3,3 4,4 5,5 6,6")) == 25  # 12 pieces a curve
    box = Box(0, 0, 10, 10)
    assert segment_distance(((5, 5), (50, 50)), box) == 0  # from inside
    assert segment_distance(((-5, 5), (15, 5)), box) == 0  # across
    assert segment_distance(((13, 14), (13, 30)), box) == 5  # an end nearest
    assert segment_distance(((-10, 12), (20, 12)), box) == 2  # along a side, ends far
    assert segment_distance(((12, 0), (22, -10)), box) == 2  # a corner nearest the end
    assert clearance(box, []) == float("inf")


def test_the_least_move_is_the_one_a_search_of_every_move_finds():
    """``_least_move`` reads each segment's blocked moves off its y range; a search trying every
    move with the exact distance must pick the same move, for segments of every slope."""
    import random

    from pyflowkit.render.edge_labels import MOVES, _least_move, _shifted

    rng = random.Random(7)
    box = Box(0.0, 0.0, 40.0, 12.0)
    for _ in range(400):
        segments = []
        for _ in range(rng.randint(1, 4)):
            x, y = rng.uniform(-15, 55), rng.uniform(-15, 27)
            dx, dy = rng.choice(
                [(rng.uniform(-30, 30), 0.0), (0.0, rng.uniform(-30, 30))]
                + [(rng.uniform(-30, 30), rng.uniform(-30, 30))] * 2
            )
            segments.append(((x, y), (x + dx, y + dy)))
        searched = next(
            (
                d
                for d in MOVES
                if all(segment_distance(s, _shifted(box, d)) >= GAP for s in segments)
            ),
            None,
        )
        assert _least_move(box, segments, GAP) == searched, segments


def test_a_straight_curve_is_one_piece():
    assert path_points("M0,-34C20,-34 60,-34 80,-34") == [(0.0, -34.0), (80.0, -34.0)]
    assert path_points("M5,0C5,10 5,20 5,30") == [(5.0, 0.0), (5.0, 30.0)]
    assert len(path_points("M0,0C30,0 10,0 40,0")) == 13  # back and forth: sampled
