"""First and next ``env.execute()`` on the embedded Spark session, cold and after a warm-up.

Each scenario runs in a fresh Python process (as a script or a notebook kernel would) on
``local[2]`` with a 3-record job (``from_collection`` → ``map`` → ``print``):

- cold: nothing started; the first ``execute`` starts the JVM, the session and the Python workers.
- warmed: ``pyflowkit.spark.warmup.prewarm`` ran at start-up (what ``%load_ext pyflowkit`` does) and
  finished while the user was writing cells; then the first ``execute``.
- overlapped: ``prewarm`` at start-up and ``execute`` at once (``pyflowkit run``: the warm-up only
  overlaps with loading and compiling the program).

Prints, per scenario, the warm-up's own split (JVM + session, Python workers), the first run's
latency, the next run's latency and the ratio first / next. Baseline: the cold first run, same run.

Usage: python benchmarks/bench_spark_first_run.py [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent(
    """
    import io, contextlib, json, sys, time
    t0 = time.perf_counter()
    from pyflowkit.common import Configuration, Types
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.spark import warmup

    MODE = sys.argv[1]
    conf = Configuration()
    conf.set_string("spark.master", "local[2]")
    report = None
    if MODE in ("warmed", "overlapped"):
        from pyflowkit.examples.warm_up import warm_up_job_graph
        future = warmup.prewarm(conf.to_dict(), reason=MODE, job=warm_up_job_graph)
        if MODE == "warmed":
            report = future.result()

    def job(name):
        env = StreamExecutionEnvironment.get_execution_environment(conf)
        env.set_parallelism(2)
        env.from_collection([1, 2, 3], type_info=Types.INT()).map(
            lambda x: x * 2, output_type=Types.INT()
        ).print()
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()) as out:
            env.execute(name)
        return time.perf_counter() - started, out.getvalue()

    first, out1 = job("first")
    nxt, out2 = job("next")
    print(json.dumps({
        "session": report.session_seconds if report else None,
        "workers": report.workers_seconds if report else None,
        "first": first, "next": nxt, "out": out1.splitlines(), "out2": out2.splitlines(),
    }))
    """
)


def run(mode: str) -> dict:
    env = dict(os.environ, PYFLOWKIT_SPARK_PREWARM="1", PYTHONPATH=str(ROOT))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    for key in ("out", "out2"):  # Flink's print format: "N> value" at parallelism 2
        values = sorted(line.split("> ", 1)[-1] for line in result[key])
        if values != ["2", "4", "6"]:
            raise SystemExit(f"{mode}: wrong output {result[key]}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2, help="best of N fresh processes")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    best: dict[str, dict] = {}
    for _ in range(args.repeat):
        for mode in ("cold", "warmed", "overlapped"):
            result = run(mode)
            if mode not in best or result["first"] < best[mode]["first"]:
                best[mode] = result
    baseline = best["cold"]["first"]
    print()
    print(
        "| scenario | warm-up: JVM + session s | warm-up: tiny job s | first run s "
        "| next run s | first / cold first |"
    )
    print("|---|---|---|---|---|---|")
    for mode, r in best.items():
        session = f"{r['session']:.2f}" if r["session"] is not None else "–"
        workers = f"{r['workers']:.2f}" if r["workers"] is not None else "–"
        print(
            f"| {mode} | {session} | {workers} | {r['first']:.2f} | {r['next']:.2f} "
            f"| {r['first'] / baseline:.2f}× |"
        )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
