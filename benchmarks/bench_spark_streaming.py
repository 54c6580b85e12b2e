"""Unbounded pyflowkit jobs on Spark Structured Streaming vs a hand-written PySpark streaming job.

1. Word count as a stream on local[2], 1 s trigger: the same lines (a generator of
   ``--lines`` lines, ``--lines-per-batch`` per micro-batch) through pyflowkit (``add_source`` →
   ``flat_map`` → ``key_by`` → ``reduce`` → discarding sink, one transformWithState per keyed
   vertex) and through a hand-written PySpark query (Python stream reader of the same lines →
   ``explode`` of the same tokenizer → ``groupBy(word).transformWithStateInPandas`` calling the same
   ``add_counts`` with a ValueState per word). Both run until their source has ended; words/s is
   words / wall time from query start. Goal: pyflowkit / hand-written <= 1.3x. Both sides' final
   counts are checked against each other.
2. Latency at a fixed input rate (``--rate`` events/s, 1 s trigger): each event carries its
   emission time; the collect sink's records reach the driver as each micro-batch commits, and the
   arrival time minus the emission time gives p50/p99. Goal: p99 <= 2 trigger intervals.

Usage: python benchmarks/bench_spark_streaming.py [--lines 200000] [--lines-per-batch 20000]
       [--rate 10000] [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VOCAB = [f"w{i}" for i in range(1000)]
WORDS_PER_LINE = 10
TRIGGER_MS = 1000


def line_words(i: int) -> list[str]:
    """The shared tokenizer: line i of the synthetic corpus, split into its words."""
    return [VOCAB[(i * 7 + j * 13) % len(VOCAB)] for j in range(WORDS_PER_LINE)]


def add_counts(a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
    return a[0], a[1] + b[1]


def expected_counts(n_lines: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for i in range(n_lines):
        for w in line_words(i):
            counts[w] = counts.get(w, 0) + 1
    return counts


def session() -> Any:
    from pyflowkit.spark.session import get_session

    return get_session(
        {
            "spark.master": "local[2]",
            "spark.sql.shuffle.partitions": "2",
            "spark.sql.adaptive.enabled": "false",
            "spark.sql.streaming.stateStore.providerClass": (
                "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
            ),
        }
    )


# --- pyflowkit -------------------------------------------------------------------------------
def pyflowkit_word_count(spark: Any, n_lines: int, per_batch: int) -> tuple[float, dict]:
    from pyflowkit.common import Configuration, Types
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.datastream.functions import SourceFunction

    class Lines(SourceFunction):
        def run(self, ctx: Any) -> Any:
            yield from range(n_lines)

    final = expected_counts(n_lines)
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    conf = Configuration()
    conf.set_string("pyflowkit.spark.streaming.max-records-per-batch", str(per_batch))
    env.configure(conf)
    env.enable_checkpointing(TRIGGER_MS)
    pair = Types.TUPLE([Types.STRING(), Types.INT()])
    counts = (
        env.add_source(Lines(), "Lines", Types.INT())
        .flat_map(lambda i: [(w, 1) for w in line_words(i)], pair)
        .key_by(lambda t: t[0], key_type=Types.STRING())
        .reduce(add_counts)
        .filter(lambda t: t[1] == final[t[0]])  # only each word's final count reaches the driver
    )
    started = time.perf_counter()
    records = list(counts.execute_and_collect("bench word count", spark=spark))
    elapsed = time.perf_counter() - started
    return elapsed, dict(records)


# --- hand-written PySpark ----------------------------------------------------------------------
def handwritten_word_count(spark: Any, n_lines: int, per_batch: int) -> tuple[float, dict]:
    import pandas as pd
    from pyspark.sql import functions as F
    from pyspark.sql.datasource import DataSource, SimpleDataSourceStreamReader
    from pyspark.sql.streaming import StatefulProcessor

    class LinesReader(SimpleDataSourceStreamReader):
        def initialOffset(self) -> dict:
            return {"line": 0}

        def read(self, start: dict) -> tuple:
            lo = start["line"]
            hi = min(n_lines, lo + per_batch)
            return iter([(i,) for i in range(lo, hi)]), {"line": hi}

        def readBetweenOffsets(self, start: dict, end: dict) -> Any:
            return iter([(i,) for i in range(start["line"], end["line"])])

    class LinesSource(DataSource):
        @classmethod
        def name(cls) -> str:
            return "bench_lines"

        def schema(self) -> str:
            return "line int"

        def simpleStreamReader(self, schema: Any) -> Any:
            return LinesReader()

    class Count(StatefulProcessor):
        def init(self, handle: Any) -> None:
            self.count = handle.getValueState("count", "n long")

        def handleInputRows(self, key: Any, rows: Any, timerValues: Any) -> Any:
            word = key[0]
            total = (word, self.count.get()[0]) if self.count.exists() else None
            for frame in rows:
                for _ in range(len(frame)):
                    total = (word, 1) if total is None else add_counts(total, (word, 1))
            self.count.update((total[1],))
            yield pd.DataFrame({"word": [word], "n": [total[1]]})

        def close(self) -> None:
            pass

    spark.dataSource.register(LinesSource)
    split = F.udf(lambda i: line_words(i), "array<string>")
    chk = tempfile.mkdtemp(prefix="bench-handwritten-")
    finals: dict[str, int] = {}

    def sink(df: Any, batch_id: int) -> None:
        for row in df.collect():
            finals[row.word] = row.n

    query = (
        spark.readStream.format("bench_lines")
        .load()
        .select(F.explode(split("line")).alias("word"))
        .groupBy("word")
        .transformWithStateInPandas(Count(), "word string, n long", "Append", "None")
        .writeStream.foreachBatch(sink)
        .option("checkpointLocation", chk)
        .trigger(processingTime=f"{TRIGGER_MS} milliseconds")
        .start()
    )
    started = time.perf_counter()
    while True:
        progress = query.lastProgress
        if (
            progress
            and progress["sources"]
            and f'"line": {n_lines}' in str(progress["sources"][0].get("endOffset"))
        ):
            break
        time.sleep(0.1)
    elapsed = time.perf_counter() - started
    query.stop()
    shutil.rmtree(chk, ignore_errors=True)
    return elapsed, finals


# --- latency --------------------------------------------------------------------------------
def pyflowkit_latency(spark: Any, rate: int, seconds: float) -> list[float]:
    from pyflowkit.common import Types
    from pyflowkit.datastream import StreamExecutionEnvironment
    from pyflowkit.datastream.functions import SourceFunction

    class Paced(SourceFunction):
        def run(self, ctx: Any) -> Any:
            start = time.time()
            i = 0
            while True:
                due = start + i / rate
                now = time.time()
                if due > now:
                    time.sleep(due - now)
                yield (i % 100, time.time())
                i += 1

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.enable_checkpointing(TRIGGER_MS)
    stream = (
        env.add_source(Paced(), "Paced Events", Types.TUPLE([Types.INT(), Types.DOUBLE()]))
        .key_by(lambda e: e[0], key_type=Types.INT())
        .map(lambda e: e, Types.TUPLE([Types.INT(), Types.DOUBLE()]))
    )
    latencies = []
    records = stream.execute_and_collect("bench latency", spark=spark)
    warm = time.time() + 5  # leave out the query's first batches (Python workers starting)
    end = warm + seconds
    for _, emitted in records:
        now = time.time()
        if now >= warm:
            latencies.append(now - emitted)
        if now >= end:
            records.close()
            break
    return latencies


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--lines-per-batch", type=int, default=20_000)
    parser.add_argument("--rate", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    spark = session()
    words = args.lines * WORDS_PER_LINE
    hand_s, hand_counts = handwritten_word_count(spark, args.lines, args.lines_per_batch)
    ours_s, ours_counts = pyflowkit_word_count(spark, args.lines, args.lines_per_batch)
    assert hand_counts == expected_counts(args.lines), "hand-written counts differ"
    assert ours_counts == hand_counts, "pyflowkit's final counts differ from the hand-written job's"
    latencies = pyflowkit_latency(spark, args.rate, args.seconds)
    print(f"load average after: {os.getloadavg()}")
    print()
    print("| workload | pyflowkit s | hand-written s | ratio (goal <= 1.3x) | pyflowkit words/s |")
    print("|---|---|---|---|---|")
    print(
        f"| word count stream, {words:,} words, local[2], 1 s trigger | {ours_s:.1f} | "
        f"{hand_s:.1f} | {ours_s / hand_s:.2f}× | {words / ours_s:,.0f} |"
    )
    print()
    print("| latency at a fixed rate | events | p50 s | p99 s | goal p99 <= 2 triggers |")
    print("|---|---|---|---|---|")
    print(
        f"| {args.rate:,} events/s, 1 s trigger | {len(latencies):,} | "
        f"{percentile(latencies, 0.5):.2f} | {percentile(latencies, 0.99):.2f} | "
        f"{'met' if percentile(latencies, 0.99) <= 2 * TRIGGER_MS / 1000 else 'missed'} |"
    )


if __name__ == "__main__":
    main()
