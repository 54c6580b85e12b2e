"""Instructions of bench_checkpoint's keyed job with and without checkpoints (issue #25 item 5).

The job of ``bench_checkpoint.py --only-keys`` (``k0``, ``k1``, … cycled over ``--keys`` keys,
p=2, a checkpoint every 10 ms of simulated time at a source batch of 100 records: ~800 records a
checkpoint) runs twice in one process under callgrind (``valgrind --tool=callgrind``); the second
``run()`` is counted, between ``CALLGRIND_ZERO_STATS`` and ``CALLGRIND_DUMP_STATS`` of a tiny C
helper built with ``gcc`` against ``valgrind/callgrind.h``. ``PYTHONHASHSEED=0``. The code measured
is whatever ``pyflowkit`` the child imports (run it with the tree under test first on
``PYTHONPATH``). ``--keep DIR`` keeps the dumps for ``callgrind_annotate``.

    PYTHONPATH=. python tools/checkpoint_instructions.py --keys 1000 --records 40000
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callgrind_counts import build_helper, counted, instructions  # noqa: E402

SOURCE_BATCH = 100  # as bench_checkpoint's keys table
INTERVAL_MS = 10


def child(keys: int, records: int, checkpoints: bool, helper_path: str | None) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_checkpoint import job

    from pyflowkit.runtime import JobStatus, MiniCluster

    words = [f"k{i % keys}" for i in range(records)]
    interval = INTERVAL_MS if checkpoints else None

    def once() -> object:
        run = MiniCluster(echo_print=False, seed=1, fast_source_batch=SOURCE_BATCH).submit(
            job(words, 2, interval)
        )
        return run

    warm = once()
    warm.run()  # imports and first-use caches out of the count
    run = once()
    _, seconds = counted(run.run, helper_path, time.perf_counter)
    if run.job_status is not JobStatus.FINISHED:
        raise RuntimeError(f"job ended {run.job_status}: {run.failure_cause}")
    completed = run.checkpoints_overview()["counts"]["completed"] if checkpoints else 0
    print(f"{completed} {seconds:.3f}")


def measure(keys: int, records: int, checkpoints: bool, data: Path) -> tuple[int, int]:
    out = data / f"cg-{keys}-{'on' if checkpoints else 'off'}.out"
    for old in data.glob(out.name + "*"):
        old.unlink()
    env = dict(os.environ, PYTHONHASHSEED="0")
    cmd = [sys.executable, __file__, "--child", str(keys), str(records), str(int(checkpoints))]
    cmd += ["--helper", str(data / "cg_helper.so")]
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    proc = subprocess.run([*valgrind, *cmd], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip()[-2000:])
    completed = int(proc.stdout.split()[0])
    return instructions(out), completed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, nargs="+", default=[1_000])
    parser.add_argument("--records", type=int, default=40_000)
    parser.add_argument("--keep", help="directory to keep the callgrind dumps in")
    parser.add_argument("--child", nargs=3, metavar=("KEYS", "RECORDS", "CHECKPOINTS"))
    parser.add_argument("--helper")
    opts = parser.parse_args()
    if opts.child:
        keys, records, on = (int(v) for v in opts.child)
        child(keys, records, bool(on), opts.helper)
        return
    with tempfile.TemporaryDirectory(prefix="checkpoint-instructions-") as tmp:
        data = Path(opts.keep or tmp)
        data.mkdir(parents=True, exist_ok=True)
        build_helper(data)
        print(
            f"{opts.records:,} records, p=2, a checkpoint every {INTERVAL_MS} ms "
            f"(source batch {SOURCE_BATCH}); instructions (callgrind) of one warm run()"
        )
        print("| keys | off | on | checkpoints | ratio | per checkpoint |")
        print("|---|---|---|---|---|---|")
        for keys in opts.keys:
            off, _ = measure(keys, opts.records, False, data)
            on, completed = measure(keys, opts.records, True, data)
            per = (on - off) / max(1, completed)
            print(
                f"| {keys:,} | {off / 1e6:,.1f} M | {on / 1e6:,.1f} M | {completed} "
                f"| {on / off:.3f} | {per / 1e6:.2f} M |",
                flush=True,
            )


if __name__ == "__main__":
    main()
