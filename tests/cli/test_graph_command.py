"""``pyflowkit graph``: every level and format, to stdout and to files; clear errors."""

from __future__ import annotations

import json
import re

import pytest

from pyflowkit.cli import main

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_job_graph_dot_on_stdout(pipeline_file, capsys):
    assert main(["graph", str(pipeline_file), "--format", "dot"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('digraph "cli job" {')
    clusters = re.findall(r'subgraph "cluster_(jv_[0-9a-f]{32})"', out)
    assert len(clusters) == 3
    assert 'label="Keyed Aggregation"' in out and 'label="Sink: Print to Std. Out"' in out
    assert 'label="REBALANCE\\nALL_TO_ALL"' in out and 'label="HASH\\nALL_TO_ALL"' in out
    assert "after execute" not in out  # execute() stops the script once the plan is captured


def test_stream_graph_json_is_flinks_execution_plan(pipeline_file, capsys):
    assert main(["graph", str(pipeline_file), "--level", "stream", "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    types = [n["type"] for n in plan["nodes"]]
    assert types == [
        "Source: Collection Source",
        "Map",
        "Keyed Aggregation",
        "Sink: Print to Std. Out",
    ]
    assert [p["ship_strategy"] for n in plan["nodes"][1:] for p in n["predecessors"]] == [
        "REBALANCE",
        "HASH",
        "FORWARD",
    ]


def test_job_graph_json_is_the_rest_plan(pipeline_file, tmp_path):
    out = tmp_path / "plan.json"
    assert main(["graph", str(pipeline_file), "-o", str(out)]) == 0  # format from the suffix
    plan = json.loads(out.read_text())
    assert plan["name"] == "cli job"
    assert [n["description"] for n in plan["nodes"]] == [
        "Keyed Aggregation -&gt; Sink: Print to Std. Out",
        "Map",
        "Source: Collection Source",
    ]


def test_execution_graph_svg_file(pipeline_file, tmp_path):
    out = tmp_path / "out" / "exec.svg"
    assert main(["graph", str(pipeline_file), "--level", "execution", "-o", str(out)]) == 0
    svg = out.read_text()
    assert "<svg" in svg
    assert ">Map (2/2)<" in svg or "Map (2/2)" in svg
    assert len(re.findall(r'<g id="ev_[0-9a-f]{32}_\d+"', svg)) == 1 + 2 + 2


def test_png_by_suffix(pipeline_file, tmp_path):
    out = tmp_path / "job.png"
    assert main(["graph", str(pipeline_file), "-o", str(out)]) == 0
    assert out.read_bytes().startswith(PNG_MAGIC)


def test_png_to_stdout_is_refused(pipeline_file, capsys):
    assert main(["graph", str(pipeline_file), "--format", "png"]) == 1
    assert (
        capsys.readouterr().err == "pyflowkit graph: error: png output is binary: give -o OUT.png\n"
    )


def test_unknown_suffix_is_refused_before_running_the_file(write_script, tmp_path, capsys):
    marker = tmp_path / "ran"
    script = write_script(f"open({str(marker)!r}, 'w').close()\n")
    assert main(["graph", str(script), "-o", str(tmp_path / "x.pdf")]) == 1
    assert "cannot tell the format of" in capsys.readouterr().err
    assert not marker.exists()


def test_bad_level_is_a_usage_error(pipeline_file, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["graph", str(pipeline_file), "--level", "physical"])
    assert exc.value.code == 2
    assert "invalid choice: 'physical'" in capsys.readouterr().err
