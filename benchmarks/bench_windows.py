"""WindowOperator per-record speed: keyed tumbling event-time window sums vs a plain Python loop.

Drives one ``WindowOperator`` subtask directly (``process_batch`` in batches, then the final
watermark) with ~1M events over 1,000 keys and prints a table with the ratio against a plain loop
computing the same window sums in the same run (issue 5 §5: the operator's per-record cost).
Times are CPU time, the best of ``--repeat`` runs, the cases interleaved, each over a collected
and frozen heap.
"""

from __future__ import annotations

import argparse
import gc
import random
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from pyflowkit.datastream.window import TumblingEventTimeWindows
from pyflowkit.graph.transformations import OperatorFactory
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService

WINDOW_MS = 1_000
MAX_WATERMARK = (1 << 63) - 1


def make_events(
    n: int, keys: int, per_pane: float, seed: int = 1
) -> tuple[list[tuple[str, int]], list[int]]:
    """(values, timestamps): ``(key, 1)`` over ``keys`` keys, ~``per_pane`` events per key and
    window, timestamps ascending."""
    rng = random.Random(seed)
    names = [f"k{i}" for i in range(keys)]
    values = [(rng.choice(names), 1) for _ in range(n)]
    per_window = keys * per_pane
    stamps = [int(i * WINDOW_MS / per_window) for i in range(n)]
    return values, stamps


def key(t: tuple[str, int]) -> str:
    return t[0]


def add(a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
    return (a[0], a[1] + b[1])


class SumAggregate:
    """An AggregateFunction summing the second field."""

    def create_accumulator(self) -> list[Any]:
        return [None, 0]

    def add(self, value: tuple[str, int], acc: list[Any]) -> list[Any]:
        acc[0] = value[0]
        acc[1] += value[1]
        return acc

    def get_result(self, acc: list[Any]) -> tuple[str, int]:
        return (acc[0], acc[1])

    def merge(self, a: list[Any], b: list[Any]) -> list[Any]:
        return [a[0], a[1] + b[1]]


def run_operator(kind: str, values: list[Any], stamps: list[int], batch: int) -> list[Any]:
    """One WindowOperator subtask: process the events in batches, watermarks between batches."""
    env = TaskEnvironment(
        task_name="Window",
        subtask_index=0,
        parallelism=1,
        max_parallelism=128,
        processing_time_service=ManualProcessingTimeService(0),
    )
    params: dict[str, Any] = {
        "window_assigner": TumblingEventTimeWindows(WINDOW_MS, 0),
        "allowed_lateness": 0,
    }
    if kind == "reduce":
        params.update(window_function_kind="reduce", function=add)
    else:
        params.update(window_function_kind="aggregate", function=SumAggregate())
    op = OperatorFactory("WindowOperator", params=params).create()
    out = CollectingOutput()
    op.setup(env, StreamConfig(operator_name="Window(bench)", key_selector=key), out)
    op.initialize_state(None)
    op.open()
    for i in range(0, len(values), batch):
        op.process_batch(values[i : i + batch], stamps[i : i + batch])
        op.process_watermark(stamps[min(i + batch, len(stamps)) - 1] - 1)
    op.process_watermark(MAX_WATERMARK)
    return out.values


def run_plain(values: list[Any], stamps: list[int]) -> list[Any]:
    """The same sums with a dict per window, calling the same reduce function."""
    panes: dict[tuple[int, str], Any] = {}
    for v, ts in zip(values, stamps, strict=True):
        k = (ts - ts % WINDOW_MS, key(v))
        cur = panes.get(k)
        panes[k] = v if cur is None else add(cur, v)
    return [panes[k] for k in sorted(panes)]


def timed_once(fn: Any, *args: Any) -> tuple[float, Any]:
    """CPU seconds of one run over a collected, frozen heap (gc.freeze: the collector's passes
    during the run see only what the run allocates, not the events or earlier runs' leftovers)."""
    gc.collect()
    gc.freeze()
    try:
        t0 = time.process_time()
        result = fn(*args)
        return time.process_time() - t0, result
    finally:
        gc.unfreeze()


def best_interleaved(cases: dict[str, Callable[[], Any]], repeat: int) -> dict[str, tuple]:
    """Per case the best of ``repeat`` runs and its result; the cases alternate round by round
    (the order reversed every other round), so a load burst on a shared machine hits all alike."""
    best: dict[str, tuple[float, Any]] = {name: (float("inf"), None) for name in cases}
    names = list(cases)
    for r in range(repeat):
        for name in names if r % 2 == 0 else reversed(names):
            secs, result = timed_once(cases[name])
            best[name] = (min(best[name][0], secs), result)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=1_000)
    parser.add_argument("--per-pane", type=float, default=10.0, help="events per key and window")
    parser.add_argument("--batch", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    shapes = [
        (args.keys, args.per_pane, ("reduce", "aggregate")),
        (100, 10 / 3, ("reduce",)),  # bench_spark's shape: 100 keys, a timestamp every 3 ms
    ]
    print(f"{'case':<52} {'seconds':>8} {'events/s':>12} {'× baseline':>11}")
    for keys, per_pane, kinds in shapes:
        values, stamps = make_events(args.events, keys, per_pane)
        cases: dict[str, Callable[[], Any]] = {"plain": partial(run_plain, values, stamps)}
        for kind in kinds:
            cases[kind] = partial(run_operator, kind, values, stamps, args.batch)
        best = best_interleaved(cases, args.repeat)
        base, expected = best["plain"]
        shape = f"{keys} keys, {per_pane:.1f}/pane"
        rows = [(f"plain Python loop ({shape})", base, 1.0)]
        for kind in kinds:
            secs, got = best[kind]
            if sorted(got) != sorted(expected):
                raise SystemExit(f"{kind}: the operator's window sums differ from the plain loop's")
            rows.append((f"WindowOperator {kind} ({shape})", secs, secs / base))
        for name, secs, ratio in rows:
            print(f"{name:<52} {secs:>8.3f} {args.events / secs:>12,.0f} {ratio:>10.2f}×")


if __name__ == "__main__":
    main()
