"""to_svg, save and _repr_mimebundle_ on graph objects, with whichever Graphviz engine exists."""

from __future__ import annotations

import re

import pytest
from handbuilt import MAP_ID, job_graph, stream_graph

from pyflowkit.render import export
from pyflowkit.render import graphviz_backend as gb

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def svg_ids(svg: str) -> list[str]:
    return re.findall(r'<g id="((?:sn|jv|se|je|ce)_[^"]*)"', svg)


def test_stream_graph_svg_keeps_the_dot_ids_as_svg_ids():
    svg = stream_graph().to_svg()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert sorted(svg_ids(svg)) == [
        "se_1_2_0",
        "se_2_4_0",
        "se_2_6_0",
        "se_4_5_0",
        "sn_1",
        "sn_2",
        "sn_4",
        "sn_5",
        "sn_6",
    ]
    assert re.search(r'<g id="sn_4" class="node stream&#45;node operator keyed">', svg)
    assert ">Sink: Print to Std. Out<" in svg


def test_job_graph_svg_has_vertex_clusters_and_state_colours():
    svg = job_graph().to_svg(states={f"jv_{MAP_ID}": "RUNNING"})
    assert f'<g id="jv_{MAP_ID}" class="cluster job&#45;vertex state&#45;RUNNING">' in svg
    cluster = svg[svg.index(f'<g id="jv_{MAP_ID}"') :]
    assert 'fill="#52c41a"' in cluster[: cluster.index("</g>")]


def test_layout_is_identical_whatever_the_states():
    def positions(svg: str) -> list[str]:
        return re.findall(r"<(?:ellipse|polygon|path)[^>]*(?:points|d)=\"([^\"]+)\"", svg)

    a = stream_graph().to_svg(states={"sn_1": "CREATED"})
    b = stream_graph().to_svg(states={"sn_1": "FINISHED", "sn_2": "FAILED"})
    assert positions(a) == positions(b)
    assert svg_ids(a) == svg_ids(b)


def test_repr_mimebundle_has_svg_and_text():
    bundle = job_graph()._repr_mimebundle_()
    assert set(bundle) == {"text/html", "image/svg+xml", "text/plain"}
    assert "<svg" in bundle["image/svg+xml"]
    assert '<svg style="max-width: none"' in bundle["text/html"]  # inline, at its own size
    assert bundle["text/plain"].splitlines()[0] == "JobGraph 'demo job': 3 vertices, 2 edges"
    assert "  Map -> Sink: Unnamed (parallelism 2)" in bundle["text/plain"]
    text_only = stream_graph()._repr_mimebundle_(include=["text/plain"])
    assert set(text_only) == {"text/plain"}
    assert "  2 -> 4 HASH" in text_only["text/plain"]


def test_repr_mimebundle_without_graphviz_falls_back_to_text(monkeypatch):
    def missing(dot_source, fmt="svg"):
        raise gb.GraphvizNotFoundError("Neither `dot` (on PATH) nor `graphviz-pure` was found.")

    monkeypatch.setattr(gb, "render", missing)
    bundle = stream_graph()._repr_mimebundle_()
    assert set(bundle) == {"text/plain"}
    assert "(no drawing: Neither `dot`" in bundle["text/plain"]


@pytest.mark.parametrize(
    ("name", "check"),
    [
        ("g.svg", lambda b: b.startswith(b"<?xml") and b"<svg" in b),
        ("g.png", lambda b: b.startswith(PNG_MAGIC)),
        ("g.dot", lambda b: b.startswith(b'digraph "demo job" {')),
        ("g.gv", lambda b: b'subgraph "cluster_jv_' in b),
    ],
)
def test_save_by_suffix(tmp_path, name, check):
    out = job_graph().save(tmp_path / "sub" / name)
    assert out == tmp_path / "sub" / name
    assert check(out.read_bytes())


def test_save_with_explicit_format_overrides_the_suffix(tmp_path):
    out = stream_graph().save(tmp_path / "graph.txt", format="dot")
    assert out.read_text().startswith('digraph "demo job"')


def test_save_rejects_unknown_formats_before_writing(tmp_path):
    with pytest.raises(ValueError, match=r"cannot tell the format of .*'\.txt'"):
        stream_graph().save(tmp_path / "graph.txt")
    with pytest.raises(ValueError, match=r"unsupported format 'pdf': expected one of svg, png"):
        stream_graph().save(tmp_path / "graph.svg", format="pdf")
    assert list(tmp_path.iterdir()) == []


def test_a_render_failure_leaves_no_partial_file(tmp_path, monkeypatch):
    def broken(dot_source, fmt="svg"):
        raise gb.GraphvizRenderError("dot could not render the DOT source (exit 1): boom")

    monkeypatch.setattr(gb, "render", broken)
    with pytest.raises(gb.GraphvizRenderError):
        stream_graph().save(tmp_path / "g.svg")
    assert not (tmp_path / "g.svg").exists()


def test_rendering_something_else_is_a_type_error():
    with pytest.raises(TypeError, match=r"cannot render dict: expected a StreamGraph, JobGraph"):
        export.to_dot({})
