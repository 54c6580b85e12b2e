"""Simulated-cluster throughput: word count in fast mode vs a plain Python loop (same run).

Prints a table. Goals (issue 3 §5): ≥ 500,000 words/s and ≤ 3× the plain loop calling the same
user functions; plus steps per second in step mode. Print rows (issue 13 §1): the same job with
``.print()`` (one line per running count, stdout captured in memory, or ``echo_print=False``)
≤ 1.5× the job with a discarding sink. Memory (issue 16 §7): 10,000,000 generated records with a
print sink, peak RSS (each run in a fresh process) within 1.2× of the same job without one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import resource
import subprocess
import sys
import time
from typing import Any

from pyflowkit.common import Configuration
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import JobStatus, MiniCluster

VOCABULARY = [f"w{i}" for i in range(1000)]


def make_lines(
    n_words: int, words_per_line: int = 10, seed: int = 1, vocabulary: list[str] = VOCABULARY
) -> list[str]:
    rng = random.Random(seed)
    words = rng.choices(vocabulary, k=n_words)
    return [" ".join(words[i : i + words_per_line]) for i in range(0, n_words, words_per_line)]


def split(line: str) -> list[str]:
    return line.split()


def pair(word: str) -> tuple[str, int]:
    return (word, 1)


def key(t: tuple[str, int]) -> str:
    return t[0]


def add(a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
    return (a[0], a[1] + b[1])


def plain_loop(lines: list[str]) -> dict[str, tuple[str, int]]:
    counts: dict[str, tuple[str, int]] = {}
    for line in lines:
        for w in split(line):
            p = pair(w)
            k = key(p)
            cur = counts.get(k)
            counts[k] = p if cur is None else add(cur, p)
    return counts


def word_count_job(
    lines: list[str], parallelism: int, sink: str = "discard", typed: bool = False
) -> Any:
    """The word count; ``typed``: as a PyFlink user declares it (``map`` to
    ``Types.TUPLE([STRING, INT])``, ``key_type=Types.STRING()``), printed as Flink's Tuple2."""
    from pyflowkit.common import Types

    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    words = env.from_collection(lines).flat_map(split)
    if typed:
        pairs = words.map(pair, output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        counts = pairs.key_by(key, key_type=Types.STRING()).reduce(add)
    else:
        counts = words.map(pair).key_by(key).reduce(add)
    if sink == "print":
        counts.print()
    else:
        counts.add_sink(lambda value: None)
    return env.get_job_graph("word count")


class _KeyBuckets:
    """A chain exit that routes records to consumer subtasks by key group (no network)."""

    def __init__(self, partitioner: Any, n: int) -> None:
        self.partitioner = partitioner
        self.buckets: list[list[Any]] = [[] for _ in range(n)]
        self.cache: dict[Any, int] = {}  # key → channel, as the runtime's RecordWriter caches

    def collect(self, value: Any, timestamp: Any) -> None:
        self.collect_batch([value], None)

    def collect_batch(self, values: Any, timestamps: Any) -> None:
        select_key, cache, buckets = self.partitioner.key_selector, self.cache, self.buckets
        for v in values:
            k = select_key(v)
            ch = cache.get(k)
            if ch is None:
                ch = cache[k] = self.partitioner.select_channel(v)
            buckets[ch].append(v)

    def emit_watermark(self, watermark: int) -> None:
        pass

    def close(self) -> None:
        pass


def operators_only(job: Any, lines: list[str], batch: int = 1024) -> None:
    """The job's operator chains driven directly in batches: the operators' share of the cost."""
    from pyflowkit.operators.context import TaskEnvironment, default_max_parallelism
    from pyflowkit.task.chain import OperatorChain

    _source, mapper, reducer = job.vertices
    p = mapper.parallelism

    def env(v: Any, i: int) -> TaskEnvironment:
        maxp = default_max_parallelism(v.max_parallelism, v.parallelism)
        return TaskEnvironment(subtask_index=i, parallelism=v.parallelism, max_parallelism=maxp)

    edge = mapper.stream_nodes[-1].out_edges[0]
    routes = []
    for _ in range(p):
        part = edge.partitioner.copy()
        part.setup(reducer.parallelism, random.Random(0))
        part.configure(default_max_parallelism(reducer.max_parallelism, reducer.parallelism))
        routes.append(_KeyBuckets(part, reducer.parallelism))
    maps = [OperatorChain(mapper, env(mapper, i), [routes[i]]) for i in range(p)]
    reduces = [OperatorChain(reducer, env(reducer, i), []) for i in range(reducer.parallelism)]
    for chain in maps + reduces:
        chain.initialize_state()
        chain.open()
    for start in range(0, len(lines), batch * p):  # round robin, as REBALANCE
        for i, chain in enumerate(maps):
            chain.process_batch(lines[start + i * batch : start + (i + 1) * batch])
        for route in routes:
            for j, bucket in enumerate(route.buckets):
                if bucket:
                    reduces[j].process_batch(bucket)
                    route.buckets[j] = []
    for chain in maps + reduces:
        chain.close()


def timed(fns: dict[str, Any], runs: int = 1) -> dict[str, tuple[float, Any]]:
    """Name → (best CPU time, last result) of ``runs`` rounds calling every function in turn.

    The machine is shared: CPU time, not wall time, and the sides alternate so that a burst of
    load hits them alike rather than one side's whole block.
    """
    out: dict[str, tuple[float, Any]] = {name: (float("inf"), None) for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            t0 = time.process_time()
            result = fn()
            out[name] = (min(out[name][0], time.process_time() - t0), result)
    return out


def memory_child(source: str, sink: str, records: int) -> None:
    """Run ``records`` records (a collection or a generated sequence) into ``sink`` (print or
    discard); print the peak RSS and the lines ``run.printed()`` kept."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    if source == "collection":
        numbers = env.from_collection(list(range(records)))
    else:
        numbers = env.generate_sequence(0, records - 1)
    pairs = numbers.map(lambda x: (f"k{x % 1000}", x))
    if sink == "print":
        pairs.print()
    else:
        pairs.add_sink(lambda value: None)
    run = MiniCluster(task_managers=1, slots_per_task_manager=2, echo_print=False).submit(env)
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    printed = run.printed_count
    assert printed == (records if sink == "print" else 0), printed
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(f"{peak_kb} {len(run.printed())}")


def peak_rss(source: str, sink: str, records: int) -> tuple[float, int]:
    """(peak RSS in MiB, lines run.printed() kept) of a fresh process running ``memory_child``."""
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", source, sink, str(records)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return int(out[0]) / 1024, int(out[1])


def memory_table(records: int) -> None:
    """Issue 16 §7: peak RSS with a print sink within 1.2x of the same job with a discarding one."""
    print(f"\nMemory: {records:,} records, p=2, echo_print=False, each run in a fresh process")
    print(f"| {'source and sink':<56} | {'peak RSS':>9} | {'ratio':>6} |")
    print(f"|{'-' * 58}|{'-' * 11}|{'-' * 8}|")
    ratios = {}
    for source in ("collection", "generate_sequence"):
        base_mb, _ = peak_rss(source, "discard", records)
        print_mb, kept = peak_rss(source, "print", records)
        ratios[source] = print_mb / base_mb
        rows = [
            (f"{source}, discarding sink", base_mb, 1.0),
            (f"{source}, .print() (printed() keeps {kept:,})", print_mb, ratios[source]),
        ]
        for label, mb, ratio in rows:
            print(f"| {label:<56} | {mb:>5.0f} MiB | {ratio:>5.2f}x |")
    ok = ratios["collection"] <= 1.2
    print(
        f"Goal (the issue's job: a {records:,}-element collection): peak RSS with .print() "
        f"≤ 1.2× without: {'met' if ok else 'NOT met'}"
    )


def _run_captured(job: Any, parallelism: int, stdout: str) -> Any:
    """Run ``job`` in fast mode with stdout captured in memory (as a notebook cell), written to
    a real file descriptor (``os.devnull`` through a text file, as a terminal or pipe gets it), or
    not echoed at all (``"none"``: the discarding-sink and ``echo_print=False`` runs)."""
    import os

    cluster = MiniCluster(
        task_managers=1, slots_per_task_manager=parallelism, echo_print=stdout != "none"
    )
    if stdout == "real":
        with open(os.devnull, "w") as out, contextlib.redirect_stdout(out):
            return cluster.submit(job).run()
    with contextlib.redirect_stdout(io.StringIO()):
        return cluster.submit(job).run()


def shapes_table(n_words: int, parallelism: int, runs: int) -> None:
    """Issue 25 §2/§3/§6: the word count in the shapes users write, each against its baseline in
    the same run (best CPU time of alternating rounds): fast mode with a discarding sink vs the
    plain loop; typed records (declared Tuple2 + key type) printed vs discarded; 15- and
    1,000-word vocabularies; stdout captured in memory and written to a real file descriptor."""
    import os

    print(f"\nShapes: word count over {n_words:,} words, p={parallelism}, fast mode; {_load()}")
    header = f"| {'vocabulary / run':<52} | {'CPU time':>9} | {'ratio':>6} | {'vs':<22} |"
    print(header)
    print(f"|{'-' * 54}|{'-' * 11}|{'-' * 8}|{'-' * 24}|")
    for size in (15, 1000):
        lines = make_lines(n_words, vocabulary=VOCABULARY[:size])
        jobs = {
            ("untyped", "discard"): word_count_job(lines, parallelism),
            ("typed", "discard"): word_count_job(lines, parallelism, typed=True),
            ("typed", "print"): word_count_job(lines, parallelism, "print", typed=True),
        }
        fns = {
            "loop": lambda lines=lines: plain_loop(lines),
            "fast": lambda j=jobs[("untyped", "discard")]: _run_captured(j, parallelism, "none"),
            "typed": lambda j=jobs[("typed", "discard")]: _run_captured(j, parallelism, "none"),
            "captured": lambda j=jobs[("typed", "print")]: _run_captured(j, parallelism, "mem"),
            "real": lambda j=jobs[("typed", "print")]: _run_captured(j, parallelism, "real"),
        }
        measured = timed(fns, runs)
        for name, (_, run) in measured.items():
            if name != "loop":
                assert run.job_status is JobStatus.FINISHED, run.failure_traceback
        t = {name: seconds for name, (seconds, _) in measured.items()}
        rows = [
            ("fast mode, discarding sink", t["fast"], "loop"),
            ("typed Tuple2, discarding sink", t["typed"], "loop"),
            ("typed Tuple2, .print(), stdout captured", t["captured"], "typed discard"),
            ("typed Tuple2, .print(), real stdout (devnull)", t["real"], "typed discard"),
        ]
        print(
            f"| {f'{size} words: plain loop (same functions)':<52} | {t['loop']:>7.3f} s | "
            f"{'1.00x':>6} | {'':<22} |"
        )
        for label, seconds, base in rows:
            ratio = seconds / (t["loop"] if base == "loop" else t["typed"])
            print(
                f"| {f'{size} words: {label}':<52} | {seconds:>7.3f} s | {ratio:>5.2f}x | "
                f"{base:<22} |"
            )
    print(
        f"{_load()}; goals: fast mode ≤ 1.5x the loop, typed print ≤ 1.5x typed discard "
        f"({os.cpu_count()} cores, CPU time of this process)"
    )


def collection_table(elements: int, runs: int) -> None:
    """Issue 25 (service brief §2): ``from_collection`` of ``(str, int)`` tuples with a declared
    ``Types.TUPLE([STRING, INT])`` against the same call without a type (Flink's Java-side
    conversion narrows declared ints; the undeclared collection is taken as is)."""
    from pyflowkit.common import Types

    data = [(VOCABULARY[i % 15], i) for i in range(elements)]
    tuple_type = Types.TUPLE([Types.STRING(), Types.INT()])

    def build(type_info: Any) -> Any:
        return StreamExecutionEnvironment.get_execution_environment().from_collection(
            data, type_info
        )

    t = {
        name: seconds
        for name, (seconds, _) in timed(
            {"undeclared": lambda: build(None), "declared": lambda: build(tuple_type)}, runs
        ).items()
    }
    print(
        f"\nfrom_collection of {elements:,} (str, int) tuples; best CPU time of {runs}; {_load()}"
    )
    print(f"| {'call':<52} | {'CPU time':>9} | {'ratio':>6} |")
    print(f"|{'-' * 54}|{'-' * 11}|{'-' * 8}|")
    print(f"| {'no type_info (baseline)':<52} | {t['undeclared']:>7.3f} s | {'1.00x':>6} |")
    ratio = t["declared"] / t["undeclared"]
    label = "type_info=Types.TUPLE([STRING(), INT()])"
    print(f"| {label:<52} | {t['declared']:>7.3f} s | {ratio:>5.2f}x |")


def _load() -> str:
    with open("/proc/loadavg") as f:
        return "load average " + " ".join(f.read().split()[:3])


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--memory-child":
        memory_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--words", type=int, default=1_000_000)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--step-words", type=int, default=20_000)
    parser.add_argument(
        "--runs", type=int, default=5, help="best CPU time of this many alternating rounds"
    )
    parser.add_argument(
        "--memory-records", type=int, default=10_000_000, help="0 skips the memory table"
    )
    parser.add_argument(
        "--shapes-only", action="store_true", help="only the table of issue 25's shapes"
    )
    parser.add_argument("--collection", type=int, default=200_000, help="from_collection size")
    parser.add_argument(
        "--collection-only", action="store_true", help="only the from_collection table"
    )
    args = parser.parse_args()
    if args.collection_only:
        collection_table(args.collection, args.runs)
        return
    if args.shapes_only:
        shapes_table(args.words, args.parallelism, args.runs)
        return

    lines = make_lines(args.words)
    job = word_count_job(lines, args.parallelism)

    print_job = word_count_job(lines, args.parallelism, "print")

    def fast(job: Any = job, echo: bool = False) -> Any:
        cluster = MiniCluster(
            task_managers=1, slots_per_task_manager=args.parallelism, echo_print=echo
        )
        captured = io.StringIO()  # as a notebook captures a cell's stdout
        with contextlib.redirect_stdout(captured):
            run = cluster.submit(job).run()
        return run, captured.tell()

    times = timed(
        {
            "loop": lambda: plain_loop(lines),
            "fast": fast,
            "ops": lambda: operators_only(job, lines),
            "print": lambda: fast(print_job, echo=True),
            "print_quiet": lambda: fast(print_job, echo=False),
        },
        args.runs,
    )
    (loop_s, expected), (fast_s, (run, _)), (ops_s, _) = (
        times["loop"],
        times["fast"],
        times["ops"],
    )
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    print_s, (print_run, chars) = times["print"]
    quiet_s, (quiet_run, _) = times["print_quiet"]
    for r in (print_run, quiet_run):
        assert r.job_status is JobStatus.FINISHED, r.failure_traceback
        assert r.printed_count == args.words  # one running count per word
    assert chars > args.words * 8  # every line reached the captured stdout
    step_job = word_count_job(make_lines(args.step_words), args.parallelism)
    step_run = MiniCluster(
        task_managers=1, slots_per_task_manager=args.parallelism, echo_print=False
    ).submit(step_job)
    t0 = time.process_time()
    while step_run.has_next():
        step_run.step()
    step_s = time.process_time() - t0

    wps = args.words / fast_s
    rows = [
        (
            "plain Python loop (same functions)",
            f"{loop_s:.3f} s",
            f"{args.words / loop_s:,.0f}",
            "1.00x",
        ),
        (
            f"operator chains alone (no runtime), p={args.parallelism}",
            f"{ops_s:.3f} s",
            f"{args.words / ops_s:,.0f}",
            f"{ops_s / loop_s:.2f}x",
        ),
        (
            f"MiniCluster fast mode, p={args.parallelism}",
            f"{fast_s:.3f} s",
            f"{wps:,.0f}",
            f"{fast_s / loop_s:.2f}x",
        ),
        (
            "  same with .print(), stdout captured",
            f"{print_s:.3f} s",
            f"{args.words / print_s:,.0f}",
            f"{print_s / loop_s:.2f}x",
        ),
        (
            "  same with .print(), echo_print=False",
            f"{quiet_s:.3f} s",
            f"{args.words / quiet_s:,.0f}",
            f"{quiet_s / loop_s:.2f}x",
        ),
    ]
    print(
        f"Word count over {args.words:,} words ({len(expected)} distinct); "
        f"best CPU time of {args.runs} alternating round(s)"
    )
    print(f"| {'run':<40} | {'CPU time':>9} | {'words/s':>11} | {'vs loop':>7} |")
    print(f"|{'-' * 42}|{'-' * 11}|{'-' * 13}|{'-' * 9}|")
    for r in rows:
        print(f"| {r[0]:<40} | {r[1]:>9} | {r[2]:>11} | {r[3]:>7} |")
    print(
        f"\nStep mode: {step_run.steps_taken:,} steps over {args.step_words:,} words in "
        f"{step_s:.3f} s = {step_run.steps_taken / step_s:,.0f} steps/s"
    )
    ok_rate = wps >= 500_000
    ok_ratio = fast_s / loop_s <= 3.0
    ok_print = max(print_s, quiet_s) / fast_s <= 1.5
    print(
        f"Goals: ≥ 500,000 words/s: {'met' if ok_rate else 'NOT met'}; "
        f"≤ 3× the loop: {'met' if ok_ratio else 'NOT met'}; "
        f".print() ≤ 1.5× the discarding sink ({print_s / fast_s:.2f}x captured, "
        f"{quiet_s / fast_s:.2f}x echo_print=False): {'met' if ok_print else 'NOT met'}"
    )
    shapes_table(args.words, args.parallelism, args.runs)
    collection_table(args.collection, args.runs)
    if args.memory_records:
        memory_table(args.memory_records)


if __name__ == "__main__":
    main()
