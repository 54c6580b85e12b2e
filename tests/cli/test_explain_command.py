"""``pyflowkit explain``: the chains and one row per StreamEdge with the first failed rule."""

from __future__ import annotations

from pyflowkit.cli import main


def test_explain_prints_chains_and_reasons(pipeline_file, capsys):
    assert main(["explain", str(pipeline_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "JobGraph 'cli job': 3 operator chains (JobVertices)"
    assert lines[1] == "  1. Source: Collection Source  [parallelism 1]"
    assert lines[2] == "  2. Map  [parallelism 2]"
    assert lines[3] == "  3. Keyed Aggregation -> Sink: Print to Std. Out  [parallelism 2]"
    assert lines[5].split() == ["upstream", "downstream", "chained", "reason"]
    rows = lines[7:]
    assert len(rows) == 3
    assert rows[0].startswith("Source: Collection Source-") and " no " in rows[0]
    assert "parallelism differs: 1 → 2" in rows[0]
    assert "Keyed Aggregation has chaining strategy HEAD" in rows[1]  # checked before HASH
    assert " yes " in rows[2] and "Sink: Print to Std. Out-" in rows[2]
