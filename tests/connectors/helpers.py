"""Shared helpers of the connector tests: run PyFlink's word count, plain-Python references."""

from __future__ import annotations

import runpy
import sys
from collections import Counter
from pathlib import Path

import pytest

from pyflowkit.datastream.environment_capture import capture_environments
from pyflowkit.errors import ProgramAbortException

WORD_COUNT = Path(__file__).with_name("pyflink_word_count.py")
TEXT = [
    "To be, or not to be,--that is the question:--",
    "Whether 'tis nobler in the mind to suffer",
    "The slings and arrows of outrageous fortune",
    "Or to take arms against a sea of troubles,",
    "And by opposing end them?--To die,--to sleep,--",
]


def run_word_count_program(monkeypatch, *args: str):
    """Run the verbatim program as ``__main__`` with ``args``; returns the captured environment
    (``env.execute()`` is captured, so nothing runs yet)."""
    monkeypatch.setattr(sys, "argv", [str(WORD_COUNT), *args])
    with capture_environments() as capture:
        with pytest.raises(ProgramAbortException):
            runpy.run_path(str(WORD_COUNT), run_name="__main__")
    assert capture.job_names == [None]
    return capture.last_environment()


def final_word_counts(lines: list[str]) -> list[str]:
    """What BATCH execution mode's keyed reduce emits: one final ``(word,n)`` per word.

    Flink 1.12's ``BatchGroupedReduceOperator`` at end of input; first-seen word order (the order
    its end-of-key timers were registered in).
    """
    seen: Counter[str] = Counter(w for line in lines for w in line.split())
    return [f"({word},{n})" for word, n in seen.items()]


def part_files(base: Path) -> list[Path]:
    """Finished part files under ``base`` (hidden in-progress files excluded), sorted."""
    return sorted(p for p in base.rglob("*") if p.is_file() and not p.name.startswith("."))
