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


def running_word_counts(lines: list[str]) -> list[str]:
    """What Flink's keyed reduce emits for word count: one ``(word,n)`` per word, in order."""
    seen: Counter[str] = Counter()
    out = []
    for line in lines:
        for word in line.split():
            seen[word] += 1
            out.append(f"({word},{seen[word]})")
    return out


def part_files(base: Path) -> list[Path]:
    """Finished part files under ``base`` (hidden in-progress files excluded), sorted."""
    return sorted(p for p in base.rglob("*") if p.is_file() and not p.name.startswith("."))
