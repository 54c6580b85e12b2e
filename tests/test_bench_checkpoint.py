"""bench_checkpoint's growth table times real checkpoints (its timer wraps the subtask
coordinator's sync and async parts with whatever arguments they take): a checkpoint that fails
under the timer would otherwise print zeros."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture
def bench(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))  # bench_checkpoint imports bench_runtime
    import bench_checkpoint

    return bench_checkpoint


def test_growth_table_sizes_and_times_a_completed_checkpoint(bench, capsys) -> None:
    bench.state_growth_table([1_000], 2)
    row = capsys.readouterr().out.strip().splitlines()[-1].split()
    keys, state_bytes, sync_ms, async_ms = row[0], row[1], float(row[2]), float(row[3])
    assert keys == "1,000"
    # 1,000 word-count entries ("k0".."k999" -> (word, count)) and the source's position
    assert re.fullmatch(r"\d{2},\d{3}", state_bytes)
    assert int(state_bytes.replace(",", "")) > 40_000
    assert sync_ms + async_ms > 0


def test_timer_passes_every_argument_through(bench) -> None:
    from pyflowkit.runtime.checkpoint import subtask_coordinator as sc

    seen = []
    orig = sc.SubtaskCheckpointCoordinator.checkpoint_state
    try:

        def fake(self, barrier, operators_finished=False):
            seen.append((barrier, operators_finished))

        sc.SubtaskCheckpointCoordinator.checkpoint_state = fake
        with bench.SnapshotTimer():
            barrier = type("B", (), {"id": 7})()
            sc.SubtaskCheckpointCoordinator.checkpoint_state(object(), barrier, True)
    finally:
        sc.SubtaskCheckpointCoordinator.checkpoint_state = orig
    assert seen == [(barrier, True)]


def test_keys_table_prints_wall_and_cpu_ratios_of_the_same_runs(bench, capsys) -> None:
    bench.keys_table([100], 20_000, 2, rounds=2)
    out = capsys.readouterr().out.strip().splitlines()
    title, header, row = out[-3:]
    assert "best of 2 alternating round(s)" in title and "CPU ratio" in header
    cells = row.split()
    assert cells[0] == "100" and len(cells) == 14
    off_cpu, on_cpu, cpu_ratio = float(cells[7]), float(cells[8]), float(cells[9])
    # off can round to 0.00 s on a fast machine; the ratio is of the unrounded seconds
    assert off_cpu >= 0 and on_cpu > 0 and cpu_ratio > 0
    assert 20 <= int(cells[10]) <= 30  # a checkpoint every ~800 records
