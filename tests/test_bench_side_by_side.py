"""tools/bench_side_by_side.py reads every table the README's benchmarks print (issue 22's
"no README benchmark gets slower" check compares them metric by metric)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "bench_side_by_side.py"
spec = importlib.util.spec_from_file_location("bench_side_by_side", TOOL)
assert spec is not None and spec.loader is not None
tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = tool  # dataclasses look their module up
spec.loader.exec_module(tool)

# the shapes bench_checkpoint, bench_windows and bench_widgets print (fixed-width, no dashes)
OUTPUT = """
Checkpoint cost by number of keys: 400,000 records, parallelism 2, a checkpoint every 10 ms
      keys  distinct   off s  off rec/s    on s   on rec/s  ratio  load avg
   200,000   200,000   10.01     39,960   24.73     16,169   2.48      3.10
CPU per checkpoint (best rounds): 12.50 ms

case                                                  seconds     events/s  × baseline
plain Python loop (1000 keys, 10.0/pane)                1.621      616,890       1.00×
WindowOperator reduce (1000 keys, 10.0/pane)            2.950      338,991       1.82×
measure                 time    ratio  note
JobRun.step (baseline)   0.20 ms    1.00x
Stepper.step, 5 subtasks    5.20 ms    26.00x  Python side 5.00 ms (goal <= 10 ms)

| case | seconds | rec/s |
|---|---|---|
| plain | 1.0 | 100 |
"""


def test_fixed_width_tables_without_dashes_are_read_row_by_row() -> None:
    metrics = tool.parse_tables(OUTPUT)
    keys = "Checkpoint cost by number of keys / 200,000"
    assert metrics[f"{keys} · on rec/s"] == 16_169
    assert metrics[f"{keys} · ratio"] == 2.48
    assert metrics["Checkpoint cost by number of keys / 200,000 · off s"] == 10.01
    assert (
        metrics[
            "CPU per checkpoint (best rounds) / WindowOperator reduce (1000 keys, "
            "10.0/pane) · events/s"
        ]
        == 338_991
    )
    # a header under a table ends it; a row may leave its last column empty
    assert metrics["CPU per checkpoint (best rounds) / JobRun.step (baseline) · time"] == 0.2
    assert metrics["CPU per checkpoint (best rounds) / Stepper.step, 5 subtasks · ratio"] == 26
    assert not any("measure" in m for m in metrics)
    assert metrics["CPU per checkpoint (best rounds) / plain · rec/s"] == 100


def test_rates_are_better_higher_and_the_load_average_is_not_a_measurement() -> None:
    assert tool.higher_is_better("t / 200,000 · on rec/s")
    assert not tool.higher_is_better("t / 200,000 · ratio")
    assert not tool.is_measurement("t / 200,000 · load avg")
    assert tool.is_measurement("t / 200,000 · on s")


def test_a_long_metric_keeps_its_column_name_in_the_table() -> None:
    metric = "Throughput, 500,000 words, parallelism 2 / checkpointing off (baseline) · words/s"
    shown = tool.fit(metric, 72)
    assert len(shown) == 72 and shown.endswith("… · words/s")
    assert shown.startswith("Throughput, 500,000 words, parallelism 2 / checkpointing")
    assert tool.fit("short · s", 72) == "short · s"


def test_a_benchmark_script_of_the_new_commit_runs_on_the_old_commits_code(tmp_path: Path) -> None:
    old_root, scripts = tmp_path / "old", tmp_path / "new"
    (old_root / "benchmarks").mkdir(parents=True)
    (scripts / "benchmarks").mkdir(parents=True)
    (old_root / "marker.py").write_text("MS = 7.5\n")
    (old_root / "benchmarks" / "bench_x.py").write_text("raise SystemExit('old script')\n")
    (scripts / "benchmarks" / "bench_x.py").write_text(
        "from marker import MS\nprint('| case | ms |')\nprint('|---|---|')\n"
        "print(f'| step | {MS} |')\n"
    )
    side = tool.Side("old", "0" * 40, old_root)
    tool.run_one(side, "x", [], sys.executable, 60)
    assert "old script" in side.failures["x"]  # its own script, as before
    side = tool.Side("old", "0" * 40, old_root)
    tool.run_one(side, "x", [], sys.executable, 60, scripts)
    assert side.failures == {} and side.best == {("x", "step · ms"): 7.5}
