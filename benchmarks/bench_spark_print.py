"""The print sink on Spark: word count (STREAMING, one printed line per running count) with
``.print()`` vs the same job with a discarding sink, same session, sides alternating.

The printed lines travel back to the driver and are written to stdout there (captured here in
memory). Goal (issue 13 §1): the print job ≤ 1.5× the discarding job. Run it under
``flock /tmp/pyflowkit-spark.lock`` on a shared machine.

Usage: python benchmarks/bench_spark_print.py [--words 1000000] [--cores 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VOCABULARY = [f"w{i}" for i in range(1000)]


def split(line: str) -> list[str]:
    return line.split()


def pair(word: str) -> tuple[str, int]:
    return (word, 1)


def key(t: tuple[str, int]) -> str:
    return t[0]


def add(a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
    return (a[0], a[1] + b[1])


def job(lines: list[str], parallelism: int, sink: str) -> Any:
    from pyflowkit.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    counts = env.from_collection(lines).flat_map(split).map(pair).key_by(key).reduce(add)
    if sink == "print":
        counts.print()
    else:
        counts.add_sink(lambda value: None)
    return env.get_job_graph(f"word count, {sink}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--words", type=int, default=1_000_000)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3, help="best wall time of this many")
    args = parser.parse_args()

    from pyflowkit.spark.executor import execute
    from pyflowkit.spark.session import get_session

    rng = random.Random(1)
    words = rng.choices(VOCABULARY, k=args.words)
    lines = [" ".join(words[i : i + 10]) for i in range(0, args.words, 10)]
    spark = get_session(
        {
            "spark.master": f"local[{args.cores}]",
            "spark.sql.shuffle.partitions": str(args.cores),
        }
    )
    jobs = {sink: job(lines, args.cores, sink) for sink in ("discard", "print")}
    best = {sink: float("inf") for sink in jobs}
    printed = 0
    execute(jobs["discard"], spark=spark, print_output=False)  # warm-up: workers, first stage
    for _ in range(args.repeat):
        for sink, graph in jobs.items():
            captured = io.StringIO()
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(captured):
                result = execute(graph, spark=spark, print_output=True)
            best[sink] = min(best[sink], time.perf_counter() - t0)
            if sink == "print":
                printed = len(result.print_lines)
                assert captured.getvalue().count("\n") == printed == args.words
    ratio = best["print"] / best["discard"]
    print(
        f"Word count over {args.words:,} words on Spark local[{args.cores}], STREAMING, best wall "
        f"time of {args.repeat} (load average {os.getloadavg()[0]:.1f})"
    )
    print(f"| {'sink':<48} | {'seconds':>8} | {'ratio':>6} |")
    print(f"|{'-' * 50}|{'-' * 10}|{'-' * 8}|")
    print(f"| {'discarding sink':<48} | {best['discard']:>8.2f} | {1:>5.2f}x |")
    label = f".print(), {printed:,} lines to the driver's stdout"
    print(f"| {label:<48} | {best['print']:>8.2f} | {ratio:>5.2f}x |")
    print(f"Goal: .print() ≤ 1.5× the discarding sink: {'met' if ratio <= 1.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
