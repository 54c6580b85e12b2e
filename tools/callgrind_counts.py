"""What the callgrind tools share (``stage_instructions``, ``fast_mode_instructions``,
``checkpoint_instructions``): a tiny C helper whose ``cg_start``/``cg_stop`` zero and dump
callgrind's counts around the part counted, the total of that dump, and a commit exported to a
directory to measure it as it is."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

HELPER = """#include <valgrind/callgrind.h>
void cg_start(void) { CALLGRIND_ZERO_STATS; }
void cg_stop(void) { CALLGRIND_DUMP_STATS_AT("counted"); }
"""


def build_helper(directory: Path) -> Path:
    """``cg_helper.so`` built with ``gcc`` in ``directory`` (load it with ``ctypes.CDLL``)."""
    source, library = directory / "cg_helper.c", directory / "cg_helper.so"
    source.write_text(HELPER)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return library


def instructions(out_file: Path) -> int:
    """The counted part's total from callgrind's dump (``*.N`` beside ``out_file``)."""
    for dump in sorted(out_file.parent.glob(out_file.name + ".*")):
        for line in dump.read_text().splitlines():
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise RuntimeError(f"no callgrind dump for {out_file}")


def export(repo: Path, rev: str, root: Path) -> str:
    """Commit ``rev`` of ``repo`` extracted into a new directory ``root``; its full sha."""
    root.mkdir(parents=True)
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", rev], capture_output=True, text=True, check=True
    ).stdout.strip()
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", sha], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return sha


def counted(
    work: Callable[[], T], helper: Path | str | None, clock: Callable[[], float]
) -> tuple[T, float]:
    """``work()``'s result and its seconds on ``clock``; with ``helper`` (``cg_helper.so``, the
    process run under callgrind) callgrind counts only that call."""
    lib = None
    if helper:
        import ctypes

        lib = ctypes.CDLL(str(helper))
        lib.cg_start()
    start = clock()
    result = work()
    seconds = clock() - start
    if lib is not None:
        lib.cg_stop()
    return result, seconds
