"""tools/checkpoint_instructions.py runs bench_checkpoint's keyed job (the one it counts under
callgrind): with checkpoints every ~800 records it takes one per ~800 records and finishes."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "checkpoint_instructions.py"
spec = importlib.util.spec_from_file_location("checkpoint_instructions", TOOL)
assert spec is not None and spec.loader is not None
tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = tool
spec.loader.exec_module(tool)


def test_the_counted_job_checkpoints_every_800_records(capsys) -> None:
    tool.child(keys=100, records=8_000, checkpoints=True, helper_path=None)
    completed, seconds = capsys.readouterr().out.split()
    assert 8 <= int(completed) <= 12 and float(seconds) > 0


def test_the_baseline_takes_no_checkpoint(capsys) -> None:
    tool.child(keys=100, records=8_000, checkpoints=False, helper_path=None)
    assert capsys.readouterr().out.split()[0] == "0"
