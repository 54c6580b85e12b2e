"""Run the README's benchmarks on two commits side by side, alternating, in one run (issue 22).

Each commit is exported with ``git archive`` into a temporary directory (the repository's own
worktrees and branches are not touched) and every benchmark command runs on both, old and new
alternating (the order flips every round), with ``PYTHONPATH`` set to the export. Every number of
every Markdown table a benchmark prints becomes a metric ``(row, column)``; the best value over
the rounds is kept (the lowest for times and ratios, the highest for rates: columns with ``/s``
or ``speed-up``). One table is printed: benchmark, metric, old, new, new/old, and the load average
(1 min) seen by the old and the new runs. ``--max-slowdown`` (default 5 %) flags the rows that got
worse by more than that.

    python tools/bench_side_by_side.py --old fc13915^ --new main
    python tools/bench_side_by_side.py --only compile runtime --rounds 3
    python tools/bench_side_by_side.py --only widgets --scripts-of-new widgets
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# The README's benchmark commands (name → arguments of benchmarks/bench_<name>.py).
BENCHMARKS: dict[str, list[str]] = {
    "compile": [],
    "runtime": [],
    "checkpoint": ["--reps", "15"],
    "windows": [],
    "widgets": [],
    "cep": ["--runs", "3"],
}
# Spark benchmarks: a JVM per process and minutes each; only with --spark.
SPARK_BENCHMARKS: dict[str, list[str]] = {
    "spark": ["--repeat", "2"],
    "spark_aggregation": ["--repeat", "2"],
    "spark_print": [],
}

_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


@dataclass
class Side:
    """One commit's export and the best value of each metric over the rounds."""

    rev: str
    sha: str
    root: Path
    best: dict[tuple[str, str], float] = field(default_factory=dict)
    loads: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)


def higher_is_better(metric: str) -> bool:
    column = metric.rsplit(" · ", 1)[-1].lower()
    return "/s" in column or "speed-up" in column


def parse_tables(text: str) -> dict[str, float]:
    """``row · column`` → the first number of each cell of every table in ``text``: Markdown
    tables, and fixed-width ones (columns two or more spaces apart, with or without a line of
    dashes under the header), each titled by the sentence above it."""
    out: dict[str, float] = {}
    header: list[str] | None = None
    title = ""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if set(line) == {"-"} and i > 1:  # a space-aligned table: header, dashes, rows
            above = lines[i - 3].strip().split(":")[0][:40] if i > 2 else ""
            i += _parse_aligned(lines[i - 2], lines[i:], above, out)
            continue
        if i < len(lines) and _aligned_header(line, lines[i]):  # header, then rows
            i += _parse_aligned(line, lines[i:], title, out)
            continue
        if not line.startswith("|"):
            header = None
            if line:
                title = line.split(":")[0][:40]
            continue
        cells = [c.strip().replace("*", "") for c in line.strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if all(set(c) <= set("-: ") for c in cells):
            continue
        label = f"{title} / {cells[0]}" if title else cells[0]
        for name, cell in zip(header[1:], cells[1:], strict=False):
            m = _NUMBER.search(cell)
            if m and name:
                out[f"{label} · {name}"] = float(m.group().replace(",", ""))
    return out


def _cells(line: str) -> list[str]:
    return re.split(r"\s{2,}", line.strip())


def _aligned_header(line: str, below: str) -> bool:
    """A fixed-width table's header (columns two or more spaces apart, no dashes under it): three
    or more cells, mostly words, above a row of as many cells or fewer that are numbers."""
    head, row = _cells(line), _cells(below)
    if line.startswith("|") or len(head) < 3 or not 2 <= len(row) <= len(head):
        return False
    words = sum(not _NUMBER.search(c) for c in head[1:])
    numbers = sum(bool(_NUMBER.search(c)) for c in row[1:])
    return words * 2 >= len(head) - 1 and numbers * 2 >= len(row) - 1


def _parse_aligned(head: str, rows: list[str], title: str, out: dict[str, float]) -> int:
    """Rows of a table whose columns are separated by two or more spaces, up to the first line
    that is not one (a blank line, a sentence, a header); a row may leave its last columns empty.
    Returns how many rows it read."""
    header = _cells(head)
    for count, row in enumerate(rows):
        cells = _cells(row)
        if not 2 <= len(cells) <= len(header) or not any(_NUMBER.search(c) for c in cells[1:]):
            return count
        label = f"{title} / {cells[0]}" if title else cells[0]
        for name, cell in zip(header[1:], cells[1:], strict=False):
            m = _NUMBER.search(cell.replace("*", ""))
            if m:
                out[f"{label} · {name}"] = float(m.group().replace(",", ""))
    return len(rows)


def is_measurement(metric: str) -> bool:
    """A column that measures the code, not the machine (a benchmark's own load average)."""
    return "load" not in metric.rsplit(" · ", 1)[-1].lower()


def load1() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def export(repo: Path, rev: str, into: Path) -> str:
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    into.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(repo), "archive", sha], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive {rev} failed")
    return sha


def run_one(
    side: Side, name: str, args: list[str], python: str, timeout: int, scripts: Path | None = None
) -> None:
    """One benchmark on ``side``'s code; its script from ``scripts`` (an export) if given."""
    script = (scripts or side.root) / "benchmarks" / f"bench_{name}.py"
    if not script.exists():
        side.failures[name] = "no such benchmark in this commit"
        return
    env = dict(os.environ, PYTHONPATH=str(side.root))
    side.loads.setdefault(name, []).append(load1())
    try:
        proc = subprocess.run(
            [python, str(script), *args],
            cwd=side.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        side.failures[name] = f"timed out after {timeout} s"
        return
    if proc.returncode != 0:
        side.failures[name] = (
            proc.stderr.strip().splitlines() or ["exit " + str(proc.returncode)]
        )[-1]
        return
    for metric, value in parse_tables(proc.stdout).items():
        if not is_measurement(metric):
            continue
        key = (name, metric)
        old = side.best.get(key)
        better = max if higher_is_better(metric) else min
        side.best[key] = value if old is None else better(old, value)


def print_header(old: Side, new: Side) -> None:
    print(f"\nold = {old.rev} ({old.sha[:8]}), new = {new.rev} ({new.sha[:8]}); best of the rounds")
    head = f"| {'benchmark':<12} | {'metric':<72} | {'old':>12} | {'new':>12} | {'new/old':>7} |"
    print(head + f" {'load old/new':>13} |")
    print("|" + "|".join("-" * (w + 2) for w in (12, 72, 12, 12, 7, 13)) + "|", flush=True)


def fit(metric: str, width: int) -> str:
    """``metric`` in ``width`` characters: a long row label is shortened in its middle, so the
    column name at its end (``· words/s``) always shows."""
    if len(metric) <= width:
        return metric
    label, _, column = metric.rpartition(" · ")
    keep = width - len(column) - 4
    return f"{label[:keep]}… · {column}" if label and keep > 8 else metric[: width - 1] + "…"


def print_rows(old: Side, new: Side, name: str, max_slowdown: float) -> int:
    """The rows of benchmark ``name``; how many got worse by more than ``max_slowdown``."""
    worse = 0
    for side in (old, new):
        if name in side.failures:
            print(f"| {name:<12} | {side.rev} failed: {side.failures[name][:120]}")
    la = f"{max(old.loads.get(name, [0])):.1f}/{max(new.loads.get(name, [0])):.1f}"
    for key in sorted(k for k in old.best if k[0] == name and k in new.best):
        a, b = old.best[key], new.best[key]
        ratio = b / a if a else float("nan")
        slower = (1 / ratio if higher_is_better(key[1]) else ratio) if a and b else 1.0
        flag = " !" if slower > 1 + max_slowdown else ""
        worse += bool(flag)
        print(
            f"| {name:<12} | {fit(key[1], 72):<72} | {a:>12,.4g} | {b:>12,.4g} | "
            f"{ratio:>6.3f}{flag or ' '} | {la:>13} |",
            flush=True,
        )
    return worse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", default="fc13915^")
    parser.add_argument("--new", default="main")
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per benchmark")
    parser.add_argument("--only", nargs="+", help="benchmark names (e.g. compile runtime)")
    parser.add_argument("--spark", action="store_true", help="also the Spark benchmarks")
    parser.add_argument(
        "--args", action="append", default=[], metavar="NAME=ARGS", help="override arguments"
    )
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per benchmark run")
    parser.add_argument("--max-slowdown", type=float, default=0.05)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument(
        "--scripts-of-new",
        nargs="+",
        default=[],
        metavar="NAME",
        help="run these benchmarks' scripts of the new commit on both (a benchmark fixed since old)",
    )
    opts = parser.parse_args()

    benches = dict(BENCHMARKS, **(SPARK_BENCHMARKS if opts.spark else {}))
    for override in opts.args:
        name, _, rest = override.partition("=")
        benches[name] = shlex.split(rest)
    names = opts.only or list(benches)
    with tempfile.TemporaryDirectory(prefix="bench-side-by-side-") as tmp:
        repo = Path(opts.repo)
        old = Side(opts.old, "", Path(tmp) / "old")
        new = Side(opts.new, "", Path(tmp) / "new")
        old.sha = export(repo, opts.old, old.root)
        new.sha = export(repo, opts.new, new.root)
        t0 = time.monotonic()
        print_header(old, new)
        worse = 0
        for name in names:
            for r in range(opts.rounds):
                pair = (old, new) if r % 2 == 0 else (new, old)
                scripts = new.root if name in opts.scripts_of_new else None
                for side in pair:
                    args = benches.get(name, [])
                    run_one(side, name, args, opts.python, opts.timeout, scripts)
            worse += print_rows(old, new, name, opts.max_slowdown)
        print(
            f"\n{time.monotonic() - t0:.0f} s. '!': worse by more than {opts.max_slowdown:.0%} "
            f"(times and ratios: higher; rates: lower); {worse} flagged. Rows are absolute times, "
            "rates and each benchmark's own ratios; the best of the rounds on each side."
        )
    sys.exit(1 if worse else 0)


if __name__ == "__main__":
    main()
