"""Instructions of bench_runtime's fast-mode word count against the plain loop, two commits side by
side (issue 25 §3), without trusting wall-clock time on a loaded machine.

Each side is a commit (exported with ``git archive``) or a directory (a worktree, as it is). For
each vocabulary the child process builds the job (``bench_runtime.word_count_job``, discarding
sink, p=2), runs it once (imports and first-use caches out of the count), then counts one run
under callgrind between ``CALLGRIND_ZERO_STATS`` and ``CALLGRIND_DUMP_STATS`` of a tiny C helper
(as ``tools/stage_instructions.py``). The plain loop of the same functions is counted the same
way, on the new side. ``PYTHONHASHSEED=0``.

    python tools/fast_mode_instructions.py --old main --new /work/wt-x --words 100000
    python tools/fast_mode_instructions.py --child WHAT SIZE WORDS DIR [--no-callgrind] (internal)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callgrind_counts import build_helper, counted, export, instructions  # noqa: E402

PARALLELISM = 2


def child(what: str, size: int, words: int, data: Path, callgrind: bool) -> Any:
    """Count one warm run of ``what`` (``loop``, ``fast`` or ``print``) over ``size`` words;
    returns the counted run's result (the loop's counts, else the ``JobRun``)."""
    import contextlib
    import io

    from benchmarks.bench_runtime import VOCABULARY, make_lines, plain_loop, word_count_job
    from pyflowkit.runtime import JobStatus, MiniCluster

    lines = make_lines(words, vocabulary=VOCABULARY[:size])
    job = None if what == "loop" else word_count_job(lines, PARALLELISM, sink="discard")
    if what == "print":
        job = word_count_job(lines, PARALLELISM, sink="print")

    def work() -> Any:
        if job is None:
            return plain_loop(lines)
        cluster = MiniCluster(
            task_managers=1, slots_per_task_manager=PARALLELISM, echo_print=what == "print"
        )
        with contextlib.redirect_stdout(io.StringIO()):
            run = cluster.submit(job).run()
        assert run.job_status is JobStatus.FINISHED, run.failure_traceback
        return run

    work()
    result, seconds = counted(work, callgrind and data / "cg_helper.so", time.process_time)
    print(f"{what} {size}: {seconds:.3f} s CPU", file=sys.stderr)
    return result


def _side(repo: Path, rev: str, root: Path) -> tuple[Path, str]:
    """(directory to run, label): a directory as it is, or a commit exported into ``root``."""
    if Path(rev).is_dir():
        return Path(rev), rev
    return root, f"{rev} ({export(repo, rev, root)[:8]})"


def _measure(python: str, root: Path, data: Path, what: str, size: int, words: int) -> int:
    out = data / f"cg-{root.name}-{what}-{size}.out"
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED="0")
    cmd = [python, str(Path(__file__).resolve()), "--child", what, str(size), str(words), str(data)]
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    proc = subprocess.run([*valgrind, *cmd], cwd=root, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1])
    return instructions(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", default="main", help="a commit or a directory")
    parser.add_argument("--new", default=".", help="a commit or a directory")
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--words", type=int, default=100_000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[15, 1000])
    parser.add_argument("--what", nargs="+", default=["fast"], help="fast and/or print")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--child", nargs=4, metavar=("WHAT", "SIZE", "WORDS", "DIR"))
    parser.add_argument("--no-callgrind", action="store_true")
    opts = parser.parse_args()
    if opts.child:
        what, size, words, data = opts.child
        child(what, int(size), int(words), Path(data), not opts.no_callgrind)
        return
    with tempfile.TemporaryDirectory(prefix="fast-mode-instructions-") as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        build_helper(data)
        old, old_label = _side(Path(opts.repo), opts.old, Path(tmp) / "old")
        new, new_label = _side(Path(opts.repo), opts.new, Path(tmp) / "new")
        print(
            f"old = {old_label}, new = {new_label}; {opts.words:,} words, p={PARALLELISM}, "
            "PYTHONHASHSEED=0; instructions (callgrind) of one warm run"
        )
        print("| vocabulary | run | loop | old | new | new/old | old/loop | new/loop |")
        print("|---|---|---|---|---|---|---|---|")
        for size in opts.sizes:
            loop = _measure(opts.python, new, data, "loop", size, opts.words)
            for what in opts.what:
                a = _measure(opts.python, old, data, what, size, opts.words)
                b = _measure(opts.python, new, data, what, size, opts.words)
                print(
                    f"| {size} words | {what} | {loop / 1e6:,.0f} M | {a / 1e6:,.0f} M | "
                    f"{b / 1e6:,.0f} M | {b / a:.3f} | {a / loop:.2f}x | {b / loop:.2f}x |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
