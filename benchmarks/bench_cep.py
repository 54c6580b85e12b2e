"""CEP throughput and state: the two-state strict-contiguity pattern with ``within`` on the
MiniCluster in fast mode vs a hand-written per-key state machine in plain Python (same run).

Prints a table. Goals (issue 10 §5): 1,000,000 events over 1,000 keys at p=2 in fast mode
≥ 300,000 events/s and ≤ 4× the state machine; the shared buffer stays pruned (the CEP state
after the run is bounded by what ``within`` can hold, not by the stream).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from pyflowkit.cep import CEP, Pattern
from pyflowkit.common import Configuration, Time
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import JobStatus, MiniCluster

KEYS = 1000
THRESHOLD = 70
WITHIN = Time.minutes(15)


def make_events(n: int, seed: int = 1) -> list[tuple[int, int]]:
    """(key, level) with levels uniform in 0..99: ~30 % are high, ~9 % of pairs match."""
    rng = random.Random(seed)
    return [(rng.randrange(KEYS), rng.randrange(100)) for _ in range(n)]


def key(e: tuple[int, int]) -> int:
    return e[0]


def high(e: tuple[int, int]) -> bool:
    return e[1] > THRESHOLD


def state_machine(events: list[tuple[int, int]]) -> int:
    """The hand-written matcher: per key, was the previous event high? (clock: never expires
    within 15 minutes of a run of seconds, as in the CEP job)."""
    previous_high: dict[int, bool] = {}
    matches = 0
    for e in events:
        k = key(e)
        h = high(e)
        if h and previous_high.get(k, False):
            matches += 1
        previous_high[k] = h
    return matches


def cep_job(events: list[tuple[int, int]], parallelism: int) -> Any:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    pattern = Pattern.begin("first").where(high).next("second").where(high).within(WITHIN)
    counts = [0]

    def count(_value: Any) -> None:
        counts[0] += 1

    CEP.pattern(env.from_collection(events).key_by(key), pattern).select(
        lambda m: m["second"][0]
    ).add_sink(count)
    return env, counts


def run_cep(events: list[tuple[int, int]], parallelism: int) -> tuple[int, dict[str, int]]:
    """(matches, CEP state sizes after the run) on the MiniCluster in fast mode."""
    env, counts = cep_job(events, parallelism)
    run = MiniCluster(task_managers=1, slots_per_task_manager=parallelism, echo_print=False).submit(
        env
    )
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    return counts[0], cep_state_sizes(run)


def cep_state_sizes(run: Any) -> dict[str, int]:
    """Entries per CEP state name over all subtasks (per-key map sizes summed)."""
    sizes: dict[str, int] = {}
    vertex = next(v for v in run.job_graph.vertices if v.name.startswith("CepOperator"))
    for i in range(vertex.parallelism):
        state = run.keyed_state(vertex.name, i).get("CepOperator", {})
        for name, per_key in state.items():
            n = sum(len(v) if isinstance(v, dict) else 1 for v in per_key.values())
            sizes[name] = sizes.get(name, 0) + n
    return sizes


def timed(fns: dict[str, Callable[[], Any]], runs: int) -> dict[str, tuple[float, Any]]:
    """Name → (best CPU time, result), the sides alternating within each round."""
    out: dict[str, tuple[float, Any]] = {name: (float("inf"), None) for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            t0 = time.process_time()
            result = fn()
            out[name] = (min(out[name][0], time.process_time() - t0), result)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    events = make_events(args.events)
    results = timed(
        {
            "state machine": lambda: state_machine(events),
            "cep": lambda: run_cep(events, args.parallelism),
        },
        args.runs,
    )
    base_t, base_matches = results["state machine"]
    cep_t, (cep_matches, sizes) = results["cep"]
    assert cep_matches == base_matches, (cep_matches, base_matches)
    n = len(events)
    print(
        f"CEP: {n:,} events over {KEYS:,} keys, begin.where(high).next.where(high)"
        f".within(15 min), p={args.parallelism}, best CPU time of {args.runs}"
    )
    rows = [
        ("hand-written per-key state machine", base_t),
        ("CepOperator on the MiniCluster, fast mode", cep_t),
    ]
    print(f"| {'run':<44} | {'CPU time':>9} | {'events/s':>11} | {'vs machine':>10} |")
    print(f"|{'-' * 46}|{'-' * 11}|{'-' * 13}|{'-' * 12}|")
    for name, t in rows:
        print(f"| {name:<44} | {t:>8.3f}s | {n / t:>11,.0f} | {t / base_t:>9.2f}× |")
    print(f"matches: {cep_matches:,} (both)")
    quarter = n // 4
    _, early = run_cep(events[:quarter], args.parallelism)
    print("CEP state entries after the run (all subtasks), a quarter of the stream vs all of it:")
    for name in sorted(set(sizes) | set(early)):
        print(
            f"  {name:<28} {early.get(name, 0):>7,} after {quarter:,}   {sizes.get(name, 0):>7,} after {n:,}"
        )
    rate_ok = n / cep_t >= 300_000
    ratio_ok = cep_t / base_t <= 4.0
    print(
        f"goals: >= 300,000 events/s {'met' if rate_ok else 'NOT met'}; "
        f"<= 4x the state machine {'met' if ratio_ok else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
