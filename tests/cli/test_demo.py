"""``pyflowkit demo``: the bundled examples compile; their graphs, plans and tables are written."""

from __future__ import annotations

import json

from pyflowkit.cli import main
from pyflowkit.examples import alerts_geohash, word_count

FILES = [
    "chaining.txt",
    "execution_graph.svg",
    "job_graph.json",
    "job_graph.svg",
    "spark_plan.txt",
    "stream_graph.json",
    "stream_graph.svg",
    "trace.json",
]
WINDOW = "Window(GlobalWindows(), CountTrigger, CountEvictor, GprsDelta)"


def test_demo_writes_every_level_for_every_example(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    for example in ("alerts_geohash", "word_count"):
        assert sorted(p.name for p in (out / example).iterdir()) == FILES
        for svg in (out / example).glob("*.svg"):
            assert "<svg" in svg.read_text()
    summary = capsys.readouterr().out
    assert "== AlertsGeoHashRepSubJob (alerts_geohash)" in summary
    assert "== Word Count (word_count)" in summary
    assert f"Done: 16 files in {out}/" in summary
    assert "MiniCluster     all tasks RUNNING after" in summary
    assert "Dispatcher.submitJob" in summary and "TaskExecutor.submitTask" in summary
    assert summary.count("match the plain-Python result") == 4  # MiniCluster and Spark
    assert "Spark           3 stages on " in summary
    assert "job edges as repartitions by subtask: REBALANCE, HASH" in summary
    spark_plan = (out / "word_count" / "spark_plan.txt").read_text()
    assert "Spark plan of 'Word Count' (STREAMING)" in spark_plan
    assert "stage 2: Keyed Reduce -> Sink: Print to Std. Out" in spark_plan
    assert "Flat Map -> Map -> Keyed Reduce -> Sink: Print to Std. Out: HASH (ALL_TO_ALL)" in (
        spark_plan
    )
    assert "== Physical Plan ==" in spark_plan
    trace = json.loads((out / "word_count" / "trace.json").read_text())
    assert trace, "the saved trace is not empty"


def test_alerts_job_graph_chains_as_flink_does(tmp_path, capsys):
    """AlertsGeoHashRepSubJob at parallelism 1: generator | count window | CepOperator -> print."""
    assert main(["demo", "--out", str(tmp_path), "--example", "alerts_geohash"]) == 0
    plan = json.loads((tmp_path / "alerts_geohash" / "job_graph.json").read_text())
    assert plan["name"] == "AlertsGeoHashRepSubJob"
    assert [n["description"] for n in plan["nodes"]] == [  # sinks first, as Flink's REST plan
        "CepOperator -&gt; Sink: Print to Std. Out",
        WINDOW,
        "Source: Custom Source",
    ]
    assert [i["ship_strategy"] for n in plan["nodes"] for i in n.get("inputs", [])] == [
        "HASH",
        "HASH",
    ]
    summary = capsys.readouterr().out
    assert "JobGraph        3 chains, 2 job edges" in summary
    assert "ship strategies FORWARD 1 (1 chained), HASH 2" in summary
    assert "ExecutionGraph  3 subtasks" in summary
    assert "2 printed lines match the plain-Python result" in summary
    chaining = (tmp_path / "alerts_geohash" / "chaining.txt").read_text()
    assert "ship strategy is HASH, not FORWARD" in chaining


def test_word_count_stream_plan(tmp_path):
    assert main(["demo", "--out", str(tmp_path), "--example", "word_count"]) == 0
    plan = json.loads((tmp_path / "word_count" / "stream_graph.json").read_text())
    assert [n["type"] for n in plan["nodes"]] == [
        "Source: Collection Source",
        "Flat Map",
        "Map",
        "Keyed Reduce",
        "Sink: Print to Std. Out",
    ]


def test_out_must_be_a_directory(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["demo", "--out", str(blocker)]) == 1
    assert "exists and is not a directory" in capsys.readouterr().err


def test_examples_expected_outputs_are_plain_python():
    alarms = alerts_geohash.expected_output()
    assert len(alarms) == 2
    assert all(
        a.startswith("ALARM> (GeoHashEvent{geohash='u4pruyd', totalGprsEvents=") for a in alarms
    )
    counts = word_count.expected_output()
    assert counts["to"] == 6 and counts["To"] == 3 and counts["sleep"] == 1
    events = list(alerts_geohash.generate(60))
    assert len(events) == 60 and events == list(alerts_geohash.generate(60))


def test_make_demo_command_runs_as_a_console_script(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "pyflowkit", "demo", "--out", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "== AlertsGeoHashRepSubJob (alerts_geohash)"
    assert len(list((tmp_path / "d").rglob("*.svg"))) == 6
