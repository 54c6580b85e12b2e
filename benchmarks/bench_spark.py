"""pyflowkit-on-Spark vs hand-written PySpark using the same Python functions, same session/run.

Workloads: word count over 2,000,000 and 10,000,000 words (BATCH keyed sum) and a keyed tumbling
event-time window sum; each at local[1] and local[2]. Prints a table with the ratio
pyflowkit / hand-written (goal <= 1.25x) and the local[1] -> local[2] speed-up (goal >= 1.6x).

Both sides generate their input inside the Spark job from a number range (pyflowkit: the
``generate_sequence`` source; PySpark: ``spark.range``), so the 10,000,000-word size needs no big
driver-side list. Each run's results are checked against the other side's (counts and sums).
Adaptive coalescing is off so the hand-written ``groupBy`` really runs ``cores`` partitions (with
it on, AQE merges the small shuffle into one partition and local[2] runs that stage on one core).
The load average is printed before and after: compare figures only from a quiet machine.

Usage: python benchmarks/bench_spark.py [--words 2000000 10000000] [--events 2000000]
       [--cores 1 2] [--repeat 1] [--only word|window]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VOCAB = [f"w{i}" for i in range(1000)]
WORDS_PER_LINE = 10
KEYS = 100
WINDOW_MS = 1000


def line_words(i: int) -> list[str]:
    """The shared tokenizer: line i of the synthetic corpus, split into its words."""
    return [VOCAB[(i * 7 + j * 13) % len(VOCAB)] for j in range(WORDS_PER_LINE)]


def add_counts(a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
    return a[0], a[1] + b[1]


def event(i: int) -> tuple[int, int, int]:
    """The shared event generator: (key, value, timestamp ms)."""
    return i % KEYS, i % 10, i * 3


# --- pyflowkit -------------------------------------------------------------------------------
def fixed_parallelism(env) -> None:
    """BATCH at the parallelism the benchmark sets: under Flink 1.20 ``set_parallelism(p)`` is only
    an upper bound for the AdaptiveBatchScheduler (FLIP-187); the benchmark measures core scaling."""
    from pyflowkit.common import Configuration

    conf = Configuration()
    conf.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    env.configure(conf)


def print_total(lines: list[str]) -> int:
    """The sum of the last field of printed tuples like ``2> (w7, 12)``."""
    return sum(int(line.rsplit(",", 1)[1].strip(" )")) for line in lines)


def pyflowkit_word_count(spark, p: int, n_lines: int) -> tuple[int, int]:
    from pyflowkit.common import Types
    from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from pyflowkit.spark.executor import execute

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(p)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    fixed_parallelism(env)
    (
        env.generate_sequence(0, n_lines - 1)
        .flat_map(line_words, output_type=Types.STRING())
        .map(lambda w: (w, 1))
        .key_by(lambda t: t[0])
        .reduce(add_counts)
        .print()
    )
    result = execute(env.get_job_graph(), spark=spark, print_output=False)
    return len(result.print_lines), print_total(result.print_lines)


def pyflowkit_window(spark, p: int, n_events: int) -> tuple[int, int]:
    from pyflowkit.common import Duration, WatermarkStrategy
    from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from pyflowkit.datastream.window import TumblingEventTimeWindows
    from pyflowkit.spark.executor import execute

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(p)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    fixed_parallelism(env)
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda e, ts: e[2]
    )
    (
        env.generate_sequence(0, n_events - 1)
        .map(event)
        .assign_timestamps_and_watermarks(strategy)
        .map(lambda e: (e[0], e[1]))
        .key_by(lambda t: t[0])
        .window(TumblingEventTimeWindows.of(Duration.of_millis(WINDOW_MS)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .print()
    )
    result = execute(env.get_job_graph(), spark=spark, print_output=False)
    return len(result.print_lines), print_total(result.print_lines)


# --- hand-written PySpark with the same functions ---------------------------------------------
def pyspark_word_count(spark, p: int, n_lines: int) -> tuple[int, int]:
    import pandas as pd

    def split(batches):
        for pdf in batches:
            words = [w for i in pdf["id"] for w in line_words(int(i))]
            yield pd.DataFrame({"word": words, "n": [1] * len(words)})

    def count(key, pdf):
        total = (key[0], 0)
        for w, n in zip(pdf["word"], pdf["n"], strict=True):
            total = add_counts(total, (w, n))
        return pd.DataFrame({"word": [total[0]], "n": [total[1]]})

    df = spark.range(0, n_lines, 1, numPartitions=p).mapInPandas(split, "word string, n long")
    out = df.groupBy("word").applyInPandas(count, "word string, n long").collect()
    return len(out), sum(r.n for r in out)


def pyspark_window(spark, p: int, n_events: int) -> tuple[int, int]:
    import pandas as pd

    def gen(batches):
        for pdf in batches:
            rows = [event(int(i)) for i in pdf["id"]]
            yield pd.DataFrame(
                {
                    "k": [r[0] for r in rows],
                    "v": [r[1] for r in rows],
                    "w": [r[2] - r[2] % WINDOW_MS for r in rows],
                }
            )

    def total(key, pdf):
        acc: dict[int, tuple[int, int]] = {}
        for v, w in zip(pdf["v"], pdf["w"], strict=True):
            prev = acc.get(int(w))
            acc[int(w)] = (key[0], int(v)) if prev is None else (prev[0], prev[1] + int(v))
        return pd.DataFrame(
            {"k": [key[0]] * len(acc), "w": list(acc), "v": [t[1] for t in acc.values()]}
        )

    df = spark.range(0, n_events, 1, numPartitions=p).mapInPandas(gen, "k long, v long, w long")
    out = df.groupBy("k").applyInPandas(total, "k long, w long, v long").collect()
    return len(out), sum(r.v for r in out)


def session(cores: int):
    from pyflowkit.spark import session as sessions

    sessions.stop()
    return sessions.get_session(
        {
            "spark.master": f"local[{cores}]",
            "spark.sql.shuffle.partitions": str(cores),
            "spark.default.parallelism": str(cores),
            "spark.sql.adaptive.coalescePartitions.enabled": "false",
        }
    )


def timed(fn, *args) -> tuple[float, tuple[int, int]]:
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def best_of(ours, theirs, args: tuple, repeat: int) -> tuple[float, float]:
    """Best time of each side over ``repeat`` alternating runs (ours, theirs, ours, …), so a
    burst of load on a shared machine hits both; every run's results must agree."""
    best_ours = best_theirs = float("inf")
    for _ in range(repeat):
        t_ours, r_ours = timed(ours, *args)
        t_theirs, r_theirs = timed(theirs, *args)
        if r_ours != r_theirs:
            raise SystemExit(
                f"{ours.__name__}: pyflowkit gave (results, total) {r_ours}, PySpark {r_theirs}"
            )
        best_ours, best_theirs = min(best_ours, t_ours), min(best_theirs, t_theirs)
    return best_ours, best_theirs


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, nargs="*", default=[2_000_000, 10_000_000])
    ap.add_argument("--events", type=int, nargs="*", default=[2_000_000])
    ap.add_argument("--cores", type=int, nargs="*", default=[1, 2])
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="best of N runs per side; sides and core counts alternate",
    )
    ap.add_argument("--only", choices=["word", "window"], help="run one workload kind only")
    args = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    workloads = []
    if args.only != "window":
        workloads += [
            (
                f"word count {n:,} words",
                pyflowkit_word_count,
                pyspark_word_count,
                n // WORDS_PER_LINE,
            )
            for n in args.words
        ]
    if args.only != "word":
        workloads += [
            (f"tumbling window {n:,} events", pyflowkit_window, pyspark_window, n)
            for n in args.events
        ]
    print(f"before: {load()}")
    times: dict[tuple[str, int], tuple[float, float]] = {}
    # core counts alternate across repeats (1, 2, 1, 2, …), so a burst of load from another
    # process on the shared machine hits every core count, not only the one running at the time
    for _ in range(args.repeat):
        for cores in args.cores:
            spark = session(cores)
            pyspark_word_count(spark, cores, 1000)  # warm up the Python workers, both sides
            pyflowkit_word_count(spark, cores, 1000)
            for name, ours, theirs, size in workloads:
                t_ours, t_theirs = best_of(ours, theirs, (spark, cores, size), 1)
                prev = times.get((name, cores), (float("inf"), float("inf")))
                times[(name, cores)] = (min(prev[0], t_ours), min(prev[1], t_theirs))
    print(f"after: {load()}")
    print()
    header = (
        f"{'workload':<34} {'cores':>5} {'pyflowkit s':>12} {'PySpark s':>10} "
        f"{'ratio':>6} {'speed-up':>9}"
    )
    print(header)
    print("-" * len(header))
    first = args.cores[0]
    for name, *_ in workloads:
        for cores in args.cores:
            t_ours, t_theirs = times[(name, cores)]
            speedup = "" if cores == first else f"{times[(name, first)][0] / t_ours:.2f}x"
            print(
                f"{name:<34} {cores:>5} {t_ours:>12.2f} {t_theirs:>10.2f} "
                f"{t_ours / t_theirs:>5.2f}x {speedup:>9}"
            )
    print(
        f"\nGoals: ratio <= 1.25x (pyflowkit / hand-written); speed-up local[{first}] -> "
        "local[2] >= 1.6x (pyflowkit's own time)"
    )


if __name__ == "__main__":
    main()
