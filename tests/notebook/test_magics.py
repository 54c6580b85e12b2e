"""``%%pipeline`` / ``%pipeline`` under a real IPython InteractiveShell."""

from __future__ import annotations

import json
from pathlib import Path

from tests.notebook.conftest import run

CELL1 = (
    "%%pipeline wc\n"
    "env.set_parallelism(2)\n"
    "lines = env.from_collection(['to be or', 'not to be'], type_info=Types.STRING())\n"
)
CELL2 = (
    "%%pipeline wc\n"
    "words = lines.flat_map(lambda line: line.split())\n"
    "counts = words.map(lambda w: (w, 1)).key_by(lambda t: t[0]).reduce(\n"
    "    lambda a, b: (a[0], a[1] + b[1]))\n"
)
CELL3 = "%%pipeline wc\ncounts.print()\n"


def names(ip, level="stream"):
    env = ip.user_ns["env"]
    graph = env.get_stream_graph()
    return [n.operator_name for n in graph.nodes.values()]


def svg_of(cap):
    svgs = [o.data["image/svg+xml"] for o in cap.outputs if "image/svg+xml" in o.data]
    assert len(svgs) == 1, cap.outputs
    return svgs[0]


def test_pipeline_grows_across_cells_and_marks_what_each_cell_added(ip):
    res, cap = run(ip, CELL1, "c1")
    assert res.error_in_exec is None
    assert "1 cell(s)" in cap.stdout and "nothing to draw yet" in cap.stdout
    run(ip, CELL2, "c2")
    res, cap = run(ip, CELL3, "c3")
    assert res.error_in_exec is None
    assert names(ip) == [
        "Source: Collection Source",
        "Flat Map",
        "Map",
        "Keyed Reduce",
        "Sink: Print to Std. Out",
    ]
    svg = svg_of(cap)
    sink_id = max(ip.user_ns["env"].get_stream_graph().nodes)
    assert f'id="sn_{sink_id}" class="node stream&#45;node sink pfk-added"' in svg
    assert 'class="node stream&#45;node operator pfk-added"' not in svg  # only the sink is new
    text = next(o.data["text/plain"] for o in cap.outputs if "image/svg+xml" in o.data)
    assert "cell 3 added: Sink: Print to Std. Out" in text
    assert ip.user_ns["words"].get_execution_environment() is ip.user_ns["env"]


def test_a_failing_cell_changes_nothing(ip):
    run(ip, CELL1, "c1")
    run(ip, CELL2, "c2")
    env = ip.user_ns["env"]
    before_ids = [t.id for t in env.get_transformations()]
    words = ip.user_ns["words"]
    bad = (
        "%%pipeline wc\n"
        "env.set_parallelism(4)\n"
        "extra = counts.map(str)\n"
        "counts.print()\n"
        "words = None\n"
        "1 / 0\n"
    )
    res, cap = run(ip, bad, "c3")
    assert isinstance(res.error_in_exec, ZeroDivisionError)
    notes = "\n".join(res.error_in_exec.__notes__)
    assert "at line 5: 1 / 0" in notes
    assert "Nothing changed: pipeline 'wc': 2 cell(s), 5 transformation(s)" in notes
    assert ip.user_ns["env"] is env
    assert env.get_parallelism() == 2
    assert [t.id for t in env.get_transformations()] == before_ids
    assert ip.user_ns["words"] is words
    assert "extra" not in ip.user_ns
    magics = ip.magics_manager.registry["PipelineMagics"]
    assert len(magics.registry.get("wc").cells) == 2


def test_syntax_error_cell_changes_nothing_and_names_the_line(ip):
    run(ip, CELL1, "c1")
    res, _ = run(ip, "%%pipeline wc\nx = 1\ny = (\n", "c2")
    assert isinstance(res.error_in_exec, SyntaxError)
    assert "Nothing changed: pipeline 'wc': 1 cell(s)" in "\n".join(res.error_in_exec.__notes__)


def test_failing_first_cell_creates_no_pipeline(ip):
    res, _ = run(ip, "%%pipeline ghost\nraise ValueError('nope')\n")
    assert isinstance(res.error_in_exec, ValueError)
    magics = ip.magics_manager.registry["PipelineMagics"]
    assert "ghost" not in magics.registry.pipelines


def test_rerunning_a_cell_replaces_its_operators(ip):
    run(ip, CELL1, "c1")
    run(ip, CELL2, "c2")
    run(ip, CELL3, "c3")
    run(ip, CELL3, "c3")  # same cell again: still one sink
    assert names(ip).count("Sink: Print to Std. Out") == 1
    edited = CELL2.replace("lambda line: line.split()", "lambda line: line.split()").replace(
        "words = lines.flat_map(lambda line: line.split())",
        "words = lines.flat_map(lambda line: line.split()).name('Tokenizer')",
    )
    res, cap = run(ip, edited, "c2")  # edited earlier cell: later cells are replayed
    assert res.error_in_exec is None
    assert names(ip) == [
        "Source: Collection Source",
        "Tokenizer",
        "Map",
        "Keyed Reduce",
        "Sink: Print to Std. Out",
    ]
    assert "replaced its earlier version" in next(
        o.data["text/plain"] for o in cap.outputs if "text/plain" in o.data
    )


def test_rerun_without_cell_id_is_recognised_by_text(ip):
    run(ip, CELL1)
    run(ip, CELL2)
    run(ip, CELL2)
    assert names(ip).count("Flat Map") == 1


def test_show_levels_and_show_none(ip):
    run(ip, CELL1, "c1")
    run(ip, CELL2, "c2")
    _, cap = run(ip, "%%pipeline wc --show job\ncounts.print()\n", "c3")
    svg = svg_of(cap)
    assert 'class="cluster job&#45;vertex pfk-added"' in svg
    _, cap = run(ip, "%%pipeline wc --show none\nother = counts.map(str)\n", "c4")
    assert not cap.outputs
    _, cap = run(ip, "%%pipeline wc --show execution\nother.print()\n", "c5")
    assert "execution&#45;vertex" in svg_of(cap)


def test_line_subcommands(ip, tmp_path: Path):
    for i, cell in enumerate((CELL1, CELL2, CELL3)):
        run(ip, cell, f"c{i}")
    frame = ip.run_line_magic("pipeline", "list")
    assert frame.to_dict("records") == [
        {"pipeline": "wc", "cells": 3, "transformations": 6, "parallelism": 2}
    ]
    view = ip.run_line_magic("pipeline", "show wc --level execution")
    assert "ExecutionGraph" in view._repr_mimebundle_()["text/plain"]
    explain = ip.run_line_magic("pipeline", "explain wc")
    assert list(explain["chained"]) == [False, True, False, True]
    _, cap = run(ip, "%pipeline plan wc")
    assert "Keyed Reduce -> Sink: Print to Std. Out (parallelism 2)" in cap.stdout
    _, cap = run(ip, "%pipeline plan wc --json")
    plan = json.loads(cap.stdout)
    assert len(plan["nodes"]) == 3
    _, cap = run(ip, "%pipeline plan wc --json --level stream")
    assert [n["type"] for n in json.loads(cap.stdout)["nodes"]][0] == "Source: Collection Source"
    out = tmp_path / "wc.dot"
    _, cap = run(ip, f"%pipeline export wc --format dot -o {out}")
    assert out.read_text().startswith('digraph "Flink Streaming Job"')
    assert f"as dot to {out}" in cap.stdout
    out_json = tmp_path / "wc.json"
    run(ip, f"%pipeline export wc --format json -o {out_json} --level stream")
    assert "nodes" in json.loads(out_json.read_text())
    _, cap = run(ip, "%pipeline reset wc")
    assert "reset" in cap.stdout
    assert "env" not in ip.user_ns and "counts" not in ip.user_ns
    assert ip.run_line_magic("pipeline", "list").empty


def test_usage_errors_print_usage_not_a_traceback(ip):
    for line in ("", "bogus", "show", "export wc --format gif -o x.gif"):
        res, cap = run(ip, f"%pipeline {line}")
        assert res.error_in_exec is None, line
        assert "usage:" in cap.stdout and "%pipeline list" in cap.stdout, line
    res, cap = run(ip, "%pipeline show nowhere")
    assert res.error_in_exec is None
    assert "no pipeline named 'nowhere'" in cap.stdout
    res, cap = run(ip, "%%pipeline wc --show pretty\nx = 1\n")
    assert res.error_in_exec is None and "invalid choice: 'pretty'" in cap.stdout
    res, cap = run(ip, "%%pipeline 9lives\nx = 1\n")
    assert "not valid" in str(res.error_in_exec)


def test_help_lists_every_subcommand(ip):
    doc = ip.find_line_magic("pipeline").__doc__
    for sub in ("list", "show", "explain", "plan", "step", "run", "reset", "export"):
        assert f"%pipeline {sub}" in doc


def test_rebinding_env_is_refused(ip):
    run(ip, CELL1, "c1")
    res, _ = run(ip, "%%pipeline wc\nenv = None\n", "c2")
    assert "cannot be replaced" in str(res.error_in_exec)
    assert ip.user_ns["env"] is not None
