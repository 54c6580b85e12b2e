"""Compile-time benchmark: build + StreamGraph + JobGraph for chains of maps.

Prints one row per case (median over repetitions): milliseconds for building the program, for the
StreamGraph, for the JobGraph, the total, µs per operator, and the ratio of the total against a
baseline measured in the same run (a plain Python loop creating one small object per operator).
Goal: 1,000 chained maps in <= 40 ms total.

    .venv/bin/python benchmarks/bench_compile.py [--repeat N]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections.abc import Callable

from pyflowkit.graph.settings import EnvironmentSettings
from pyflowkit.graph.stream_graph import StreamGraph
from pyflowkit.graph.stream_graph_generator import StreamGraphGenerator
from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

GOAL_MS_1000 = 40.0
CASES = [(10, True), (100, True), (1000, True), (5000, True), (1000, False)]


def _identity(value: object) -> object:
    return value


def build_with_api(n: int, chaining: bool) -> Callable[[], StreamGraph]:
    """The program through the public API (what a user's notebook cell does)."""
    from pyflowkit.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(4)
    if not chaining:
        env.disable_operator_chaining()
    ds = env.generate_sequence(0, 100)
    for _ in range(n):
        ds = ds.map(_identity)
    ds.add_sink(_identity)
    return env.get_stream_graph


def build_raw(n: int, chaining: bool) -> Callable[[], StreamGraph]:
    """The same program as raw transformations (fallback while the API is unavailable)."""
    from pyflowkit.graph.transformations import (
        ChainingStrategy,
        LegacySourceTransformation,
        OneInputTransformation,
        OperatorFactory,
        SinkTransformation,
    )

    t = LegacySourceTransformation(
        "Sequence Source", OperatorFactory("StreamSource", ChainingStrategy.HEAD, {}), None, 4
    )
    transformations = []
    for _ in range(n):
        factory = OperatorFactory("StreamMap", ChainingStrategy.ALWAYS, {"function": _identity})
        t = OneInputTransformation(t, "Map", factory, None, 4)
        transformations.append(t)
    sink_factory = OperatorFactory("StreamSink", ChainingStrategy.ALWAYS, {"function": _identity})
    transformations.append(SinkTransformation(t, "Unnamed", sink_factory, 4))
    settings = EnvironmentSettings(parallelism=4, chaining_enabled=chaining)
    return StreamGraphGenerator(transformations, settings).generate


def pick_builder() -> tuple[str, Callable[[int, bool], Callable[[], StreamGraph]]]:
    try:
        import pyflowkit.datastream  # noqa: F401
    except ImportError:
        return "raw transformations", build_raw
    return "DataStream API", build_with_api


def baseline(n: int) -> float:
    """Seconds for a plain loop allocating one small object per operator (machine speed)."""
    start = time.perf_counter()
    items = []
    for i in range(n):
        items.append({"id": i, "name": "Map", "inputs": [i - 1]})
    return time.perf_counter() - start


def measure(builder, n: int, chaining: bool, repeat: int) -> dict[str, float]:
    build, stream, job, base = [], [], [], []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        generate = builder(n, chaining)
        t1 = time.perf_counter()
        stream_graph = generate()
        t2 = time.perf_counter()
        job_graph = create_job_graph(stream_graph)
        t3 = time.perf_counter()
        expected_vertices = 1 if chaining else n + 2
        assert len(job_graph.vertices) == expected_vertices, len(job_graph.vertices)
        build.append(t1 - t0)
        stream.append(t2 - t1)
        job.append(t3 - t2)
        base.append(baseline(n + 2))
    totals = [a + b + c for a, b, c in zip(build, stream, job, strict=True)]
    ms = 1000.0
    return {
        "build": statistics.median(build) * ms,
        "stream": statistics.median(stream) * ms,
        "job": statistics.median(job) * ms,
        "total": statistics.median(totals) * ms,
        "per_op_us": statistics.median(totals) * 1e6 / (n + 2),
        "ratio": statistics.median(totals) / statistics.median(base),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    how, builder = pick_builder()
    print(f"pyflowkit compile benchmark (built via {how}; median of {args.repeat} runs)")
    header = (
        f"{'case':<24}{'build ms':>10}{'stream ms':>11}{'job ms':>9}{'total ms':>10}"
        f"{'µs/op':>8}{'× baseline':>12}"
    )
    print(header)
    print("-" * len(header))
    for n, chaining in CASES:
        r = measure(builder, n, chaining, args.repeat if n < 5000 else max(3, args.repeat // 2))
        label = f"{n:,} maps" + ("" if chaining else " (no chaining)")
        print(
            f"{label:<24}{r['build']:>10.2f}{r['stream']:>11.2f}{r['job']:>9.2f}"
            f"{r['total']:>10.2f}{r['per_op_us']:>8.1f}{r['ratio']:>12.0f}"
        )
        if n == 1000 and chaining:
            verdict = "meets" if r["total"] <= GOAL_MS_1000 else "MISSES"
            goal_line = f"goal: 1,000 chained maps <= {GOAL_MS_1000:.0f} ms total -> {verdict}"
    print(goal_line)


if __name__ == "__main__":
    main()
