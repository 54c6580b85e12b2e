"""CEP throughput and state: the two-state strict-contiguity pattern with ``within`` on the
MiniCluster in fast mode vs a hand-written per-key state machine (same run), written twice: as a
``KeyedProcessFunction`` job on the same MiniCluster (same source, ``key_by`` and sink: what
notebook 7 imitated CEP with before) and as a plain Python loop over the events.

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
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.runtime import JobStatus, MiniCluster

KEYS = 1000
THRESHOLD = 70
WITHIN = Time.minutes(15)
WITHIN_MS = 15 * 60 * 1000


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


class PairOfHighs(KeyedProcessFunction):
    """The same state machine as a ``KeyedProcessFunction`` (what notebook 7 imitated CEP with):
    per key, the time of the previous event if it was high; a high event within 15 minutes of
    it is a match (``within``: the second event less than the window after the first)."""

    def open(self, runtime_context: Any) -> None:
        self.previous = runtime_context.get_state(ValueStateDescriptor("previous-high"))

    def process_element(self, value: tuple[int, int], ctx: Any) -> Any:
        previous = self.previous
        if value[1] > THRESHOLD:
            now = ctx.timer_service().current_processing_time()
            since = previous.value()
            previous.update(now)
            if since is not None and now - since < WITHIN_MS:
                yield value[0]
        else:
            previous.clear()


def state_machine_job(events: list[tuple[int, int]], parallelism: int) -> int:
    """Matches of ``PairOfHighs`` on the MiniCluster in fast mode (same source, key_by, sink)."""
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    counts = [0]

    def count(_value: Any) -> None:
        counts[0] += 1

    env.from_collection(events).key_by(key).process(PairOfHighs()).add_sink(count)
    run = MiniCluster(task_managers=1, slots_per_task_manager=parallelism, echo_print=False).submit(
        env
    )
    run.run()
    assert run.job_status is JobStatus.FINISHED, run.failure_traceback
    return counts[0]


def cep_job(events: list[tuple[int, int]], parallelism: int) -> Any:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    pattern = Pattern.begin("first").where(high).next("second").where(high).within(WITHIN)
    counts = [0]

    def count(_value: Any) -> None:
        counts[0] += 1

    # the events carry no timestamps: match in processing time (since Flink 1.12 a pattern
    # stream is in event time unless it says so, FLINK-19326)
    CEP.pattern(env.from_collection(events).key_by(key), pattern).in_processing_time().select(
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
            "loop": lambda: state_machine(events),
            "job": lambda: state_machine_job(events, args.parallelism),
            "cep": lambda: run_cep(events, args.parallelism),
        },
        args.runs,
    )
    loop_t, loop_matches = results["loop"]
    job_t, job_matches = results["job"]
    cep_t, (cep_matches, sizes) = results["cep"]
    assert cep_matches == loop_matches == job_matches, (cep_matches, loop_matches, job_matches)
    n = len(events)
    print(
        f"CEP: {n:,} events over {KEYS:,} keys, begin.where(high).next.where(high)"
        f".within(15 min), p={args.parallelism}, best CPU time of {args.runs}"
    )
    rows = [
        ("state machine, a plain Python loop", loop_t),
        ("state machine, KeyedProcessFunction job", job_t),
        ("CepOperator job", cep_t),
    ]
    print(
        f"| {'run (jobs: MiniCluster, fast mode)':<40} | {'CPU time':>9} | {'events/s':>11} "
        f"| {'vs loop':>8} | {'vs KPF job':>10} |"
    )
    print(f"|{'-' * 42}|{'-' * 11}|{'-' * 13}|{'-' * 10}|{'-' * 12}|")
    for name, t in rows:
        print(
            f"| {name:<40} | {t:>8.3f}s | {n / t:>11,.0f} | {t / loop_t:>7.2f}× "
            f"| {t / job_t:>9.2f}× |"
        )
    print(f"matches: {cep_matches:,} (all three)")
    quarter = n // 4
    _, early = run_cep(events[:quarter], args.parallelism)
    print("CEP state entries after the run (all subtasks), a quarter of the stream vs all of it:")
    for name in sorted(set(sizes) | set(early)):
        print(
            f"  {name:<28} {early.get(name, 0):>7,} after {quarter:,}   {sizes.get(name, 0):>7,} after {n:,}"
        )
    rate_ok = n / cep_t >= 300_000
    print(
        f"goals: >= 300,000 events/s {'met' if rate_ok else 'NOT met'}; <= 4x the hand-written "
        f"state machine: as a job on the same runtime {cep_t / job_t:.2f}x "
        f"({'met' if cep_t / job_t <= 4.0 else 'NOT met'}), as a plain loop {cep_t / loop_t:.1f}x "
        f"({'met' if cep_t / loop_t <= 4.0 else 'NOT met'})"
    )


if __name__ == "__main__":
    main()
