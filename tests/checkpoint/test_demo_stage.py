"""The demo's checkpoint stage: checkpoint 1 hop by hop, then a failure recovering from it."""

from __future__ import annotations

from pathlib import Path

from pyflowkit.examples.demo import compile_example
from pyflowkit.examples.demo_cluster import CHECKPOINT_HOPS, checkpoint_and_recover


def test_demo_shows_checkpoint_1_and_a_recovery(tmp_path: Path) -> None:
    job = compile_example("word_count", tmp_path)
    lines = checkpoint_and_recover(job, seed=0, failure_free_lines=79)
    assert lines[0] == "Checkpoint 1    barrier → snapshot → acknowledge → complete → notify:"
    hops = lines[1 : 1 + len(CHECKPOINT_HOPS)]
    assert [line.split()[2] for line in hops] == [
        "trigger",
        "at",
        "sync",
        "async",
        "ack",
        "ack",
        "completed",
        "notified",
    ]
    steps = [int(line.split()[1]) for line in hops]
    assert steps == sorted(steps)
    text = "\n".join(lines)
    assert "from latest valid checkpoint: Checkpoint 1" in text
    assert "with attempt #1; the same final result as plain Python" in text
    assert "the print sink is at-least-once" in text
