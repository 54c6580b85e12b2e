"""``python word_count.py`` from the shell: the local Spark service against the embedded session.

Issue 25 item 4 (goal: a second run <= 3 s wall-clock). Each run is a fresh process running
``pyflowkit/examples/word_count.py`` as a user runs it (default target Spark, no master set):

- embedded: ``PYFLOWKIT_SPARK_SERVICE=0``; every run starts its own JVM, session and Python
  workers (the baseline, measured in the same run).
- service: the first run starts the local Spark service (``pyflowkit spark start`` happens on
  first use), the next runs submit their JobGraph to its dispatcher (the default).
- service via Spark Connect: the same service, each run holding its own Spark Connect client
  (``PYFLOWKIT_SPARK_SUBMIT=0``: imports pyspark, pandas, pyarrow, grpc), for comparison.

The service lives in a private directory of this benchmark and is stopped at the end; a service
the user runs is not touched. The load average is printed beside the figures.

Usage: python benchmarks/bench_spark_service.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "pyflowkit" / "examples" / "word_count.py"
GOAL_S = 3.0


def run_once(env: dict[str, str]) -> tuple[float, str]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(PROGRAM)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise SystemExit(f"word_count.py failed:\n{done.stderr[-3000:]}")
    return seconds, done.stderr


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per host (first + next)")
    args = parser.parse_args()
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SPARK_REMOTE", "PYFLOWKIT_SPARK_SERVICE", "PYFLOWKIT_SPARK_SUBMIT")
    }
    base["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), base.get("PYTHONPATH")]))
    base["PYFLOWKIT_SPARK_PREWARM"] = "0"
    with tempfile.TemporaryDirectory(prefix="pyflowkit-bench-service-") as directory:
        service_env = dict(base, PYFLOWKIT_SPARK_SERVICE_DIR=directory)
        embedded_env = dict(base, PYFLOWKIT_SPARK_SERVICE="0")
        rows: list[tuple[str, list[float], str]] = []
        print(f"python word_count.py, {args.runs} runs per host; load average before: {load()}")
        try:
            connect_env = dict(service_env, PYFLOWKIT_SPARK_SUBMIT="0")
            for name, env in (
                ("embedded session", embedded_env),
                ("local Spark service", service_env),
                ("service via Connect", connect_env),
            ):
                times = []
                for _ in range(args.runs):
                    seconds, _ = run_once(env)
                    times.append(seconds)
                rows.append((name, times, load()))  # the load while this host ran
        finally:
            subprocess.run(
                [sys.executable, "-m", "pyflowkit", "spark", "stop"],
                env=service_env,
                cwd=ROOT,
                capture_output=True,
                timeout=120,
                check=False,
            )
        print(f"{'host':<22}{'first run':>11}{'next runs (each)':>36}   load average")
        for name, times, during in rows:
            nexts = ", ".join(f"{t:.2f} s" for t in times[1:])
            print(f"{name:<22}{times[0]:>9.2f} s{nexts:>36}   {during}")
        embedded, served = rows[0][1], rows[1][1]
        second = served[1] if len(served) > 1 else float("nan")
        print(
            f"second run on the service: {second:.2f} s (goal <= {GOAL_S:g} s: "
            f"{'met' if second <= GOAL_S else 'NOT met'}); {embedded[-1] / second:.1f}x faster "
            f"than a run on the embedded session ({embedded[-1]:.2f} s)"
        )


if __name__ == "__main__":
    main()
