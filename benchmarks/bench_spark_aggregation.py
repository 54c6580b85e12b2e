"""Flink's built-in keyed ``sum`` on Spark (pushed down: combined per key by Arrow in the producer
stage, the default) and as the chain's Python fold vs the hand-written DataFrame job, and
``reduce`` with a user function vs a hand-written ``applyInPandas``.

Word count in BATCH mode over 2,000,000 words (1,000 distinct) at local[2], same session, same
run, sides alternating: pyflowkit ``flat_map`` → ``map`` to ``(w, 1)`` (declared Tuple2) →
``key_by`` (with ``key_type=Types.STRING()``, and without it as PyFlink's examples write it) →
``sum(1)`` vs ``mapInPandas`` split + ``groupBy("w").sum("c")`` (goal <= 1.25x); pyflowkit
``reduce(add_counts)`` vs ``groupBy("w").applyInPandas`` folding with the same ``add_counts``
(goal <= 1.0x). Every run's (keys, total) is checked against the other side's.

Usage: python benchmarks/bench_spark_aggregation.py [--words 2000000] [--cores 2] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_spark import (  # noqa: E402
    WORDS_PER_LINE,
    add_counts,
    best_of,
    fixed_parallelism,
    line_words,
    load,
    print_total,
    pyspark_word_count,
    session,
)
from pyflowkit.spark.aggregation_pushdown import ENABLED_KEY  # noqa: E402


def _set_pushdown(env, value: str) -> None:
    from pyflowkit.common import Configuration

    conf = Configuration()
    conf.set_string(ENABLED_KEY, value)
    env.configure(conf)


def _word_pairs(p: int, n_lines: int, pushdown: bool = True, key_type: bool = True):
    from pyflowkit.common import Types
    from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(p)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    fixed_parallelism(env)
    _set_pushdown(env, "true" if pushdown else "false")
    keyed = (
        env.generate_sequence(0, n_lines - 1)
        .flat_map(line_words, output_type=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0], key_type=Types.STRING() if key_type else None)
    )
    return env, keyed


def _run(spark, env) -> tuple[int, int]:
    from pyflowkit.spark.executor import execute

    result = execute(env.get_job_graph(), spark=spark, print_output=False)
    return len(result.print_lines), print_total(result.print_lines)


def pyflowkit_sum(spark, p: int, n_lines: int) -> tuple[int, int]:
    """``sum(1)`` pushed down (the default)."""
    env, keyed = _word_pairs(p, n_lines)
    keyed.sum(1).print()
    return _run(spark, env)


def pyflowkit_sum_fold(spark, p: int, n_lines: int) -> tuple[int, int]:
    """``sum(1)`` folded by the chain in Python (the pushdown switched off)."""
    env, keyed = _word_pairs(p, n_lines, pushdown=False)
    keyed.sum(1).print()
    return _run(spark, env)


def pyflowkit_sum_untyped(spark, p: int, n_lines: int) -> tuple[int, int]:
    """``key_by(lambda t: t[0]).sum(1)`` without ``key_type`` (PyFlink's examples' shape)."""
    env, keyed = _word_pairs(p, n_lines, key_type=False)
    keyed.sum(1).print()
    return _run(spark, env)


def pyflowkit_reduce(spark, p: int, n_lines: int) -> tuple[int, int]:
    env, keyed = _word_pairs(p, n_lines)
    keyed.reduce(add_counts).print()
    return _run(spark, env)


def pyflowkit_reduce_untyped(spark, p: int, n_lines: int) -> tuple[int, int]:
    env, keyed = _word_pairs(p, n_lines, key_type=False)
    keyed.reduce(add_counts).print()
    return _run(spark, env)


def dataframe_sum(spark, p: int, n_lines: int) -> tuple[int, int]:
    """The idiomatic PySpark job: split in ``mapInPandas``, count with ``groupBy().sum()``."""
    import pandas as pd

    def split(batches):
        for pdf in batches:
            words = [w for i in pdf["id"] for w in line_words(int(i))]
            yield pd.DataFrame({"w": words, "c": [1] * len(words)})

    df = spark.range(0, n_lines, 1, numPartitions=p).mapInPandas(split, "w string, c long")
    out = df.groupBy("w").sum("c").collect()
    return len(out), sum(r[1] for r in out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, default=2_000_000)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=2, help="best of N alternating runs per side")
    args = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    n_lines = args.words // WORDS_PER_LINE
    spark = session(args.cores)
    for warm in (
        pyflowkit_sum,
        pyflowkit_sum_fold,
        pyflowkit_sum_untyped,
        pyflowkit_reduce,
        pyflowkit_reduce_untyped,
        dataframe_sum,
        pyspark_word_count,
    ):
        warm(spark, args.cores, 1000)  # Python workers and code paths warm on both sides
    print(f"before: {load()}")
    rows = [
        ("sum(1) pushed down vs groupBy().sum()", pyflowkit_sum, dataframe_sum, 1.25),
        ("sum(1) no key_type vs groupBy().sum()", pyflowkit_sum_untyped, dataframe_sum, 1.25),
        ("sum(1) Python fold vs groupBy().sum()", pyflowkit_sum_fold, dataframe_sum, 1.25),
        ("reduce(f) vs applyInPandas(f)", pyflowkit_reduce, pyspark_word_count, 1.0),
        (
            "reduce(f) no key_type vs applyInPandas",
            pyflowkit_reduce_untyped,
            pyspark_word_count,
            1.0,
        ),
    ]
    measured = [
        (name, *best_of(ours, theirs, (spark, args.cores, n_lines), args.repeat), goal)
        for name, ours, theirs, goal in rows
    ]
    print(f"after: {load()}\n")
    header = (
        f"{'word count ' + format(args.words, ',') + ' words':<38} {'cores':>5} "
        f"{'pyflowkit s':>12} {'PySpark s':>10} {'ratio':>6} {'goal':>6}"
    )
    print(header)
    print("-" * len(header))
    for name, t_ours, t_theirs, goal in measured:
        print(
            f"{name:<38} {args.cores:>5} {t_ours:>12.2f} {t_theirs:>10.2f} "
            f"{t_ours / t_theirs:>5.2f}x {goal:>5.2f}x"
        )


if __name__ == "__main__":
    main()
