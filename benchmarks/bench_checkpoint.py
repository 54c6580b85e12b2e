"""Checkpoint cost on the simulated cluster (fast mode), measured against baselines of the same run.

1. Throughput of a keyed word count with a checkpoint every ~10,000 records vs checkpointing off
   (the interval is simulated time; it is calibrated from the baseline run's records per ms), in
   alternating rounds: the median wall-clock time and the best CPU time of each (the CPU time is
   the measure a loaded machine moves least), and the CPU cost per checkpoint.
2. Checkpoint duration as keyed state grows (1k, 10k, 100k keys): wall-clock time of the
   synchronous and asynchronous parts summed over the subtasks, and the state size; then the
   asynchronous part of the next checkpoint, taken after 1,000 more records on a single key.

3. Checkpoint cost by number of keys (issue #25 item 5): the keyed job over 1,000, 200,000 and
   1,000,000 keys, parallelism 2, a checkpoint every ~1,000 records (10 ms of simulated time at
   a source batch of 100 records per step, the same for both runs), with and without checkpoints
   in the same run (alternating rounds: ``--rounds``); records/s and CPU seconds, their ratios,
   memory and the load average.

Prints three tables.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from collections import defaultdict
from typing import Any

from bench_runtime import VOCABULARY, add, key, pair  # the word count's user functions

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import JobStatus, MiniCluster
from pyflowkit.runtime.checkpoint import subtask_coordinator as sc


def job(words: list[str], parallelism: int, interval: int | None) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if interval is not None:
        env.enable_checkpointing(interval)
    (env.from_collection(words).map(pair).key_by(key).reduce(add).add_sink(lambda value: None))
    return env.get_job_graph("checkpoint bench")


def run_once(words: list[str], parallelism: int, interval: int | None) -> tuple[float, Any]:
    wall, _cpu, run = timed_run(words, parallelism, interval)
    return wall, run


def timed_run(
    words: list[str], parallelism: int, interval: int | None, **cluster: Any
) -> tuple[float, float, Any]:
    """One run: (wall-clock seconds, CPU seconds of this process, the finished run)."""
    graph = job(words, parallelism, interval)
    run = MiniCluster(echo_print=False, seed=1, **cluster).submit(graph)
    t0, c0 = time.perf_counter(), time.process_time()
    run.run()
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
    if run.job_status is not JobStatus.FINISHED:
        raise RuntimeError(f"job ended {run.job_status}: {run.failure_cause}")
    return elapsed, cpu, run


def throughput_table(n_words: int, parallelism: int, every: int, reps: int) -> None:
    words = [VOCABULARY[i % len(VOCABULARY)] for i in range(n_words)]
    _, _, base_run = timed_run(words, parallelism, None)  # calibrates the interval (and warms up)
    records_per_ms = n_words / max(1, base_run.now)
    interval = max(10, round(every / records_per_ms))
    base_times, base_cpu, cp_times, cp_cpu, cp_run = [], [], [], [], None
    for _ in range(reps):  # alternating rounds: both runs see the same load
        t, c, _ = timed_run(words, parallelism, None)
        base_times.append(t)
        base_cpu.append(c)
        t, c, cp_run = timed_run(words, parallelism, interval)
        cp_times.append(t)
        cp_cpu.append(c)
    assert cp_run is not None
    completed = int((cp_run.checkpoints_frame()["status"] == "COMPLETED").sum())
    base, with_cp = statistics.median(base_times), statistics.median(cp_times)
    base_c, with_c = min(base_cpu), min(cp_cpu)
    print(
        f"\nThroughput, {n_words:,} words, parallelism {parallelism}, {reps} alternating rounds: "
        "median wall-clock seconds and best CPU seconds"
    )
    print(
        f"{'run':<34}{'seconds':>10}{'words/s':>14}{'checkpoints':>13}{'ratio':>8}"
        f"{'CPU s':>9}{'CPU ratio':>11}"
    )
    print(
        f"{'checkpointing off (baseline)':<34}{base:>10.3f}{n_words / base:>14,.0f}{0:>13}"
        f"{1:>8.2f}{base_c:>9.3f}{1:>11.2f}"
    )
    label = f"every {interval} ms (~{every:,} records)"
    print(
        f"{label:<34}{with_cp:>10.3f}{n_words / with_cp:>14,.0f}{completed:>13}"
        f"{with_cp / base:>8.2f}{with_c:>9.3f}{with_c / base_c:>11.2f}"
    )
    per_checkpoint = (with_c - base_c) / max(1, completed) * 1000
    print(f"CPU per checkpoint (best rounds): {per_checkpoint:.2f} ms")


class SnapshotTimer:
    """Wall-clock time of the sync and async parts per checkpoint id (summed over subtasks)."""

    def __init__(self) -> None:
        self.sync: dict[int, float] = defaultdict(float)
        self.asynchronous: dict[int, float] = defaultdict(float)
        self._orig = (
            sc.SubtaskCheckpointCoordinator.checkpoint_state,
            sc.SubtaskCheckpointCoordinator.finish_async,
        )

    def __enter__(self) -> SnapshotTimer:
        orig_sync, orig_async = self._orig
        timer = self

        def checkpoint_state(self: Any, barrier: Any, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            out = orig_sync(self, barrier, *args, **kwargs)  # (1.20 adds operators_finished)
            timer.sync[barrier.id] += time.perf_counter() - t0
            return out

        def finish_async(self: Any, sync: Any) -> Any:
            t0 = time.perf_counter()
            out = orig_async(self, sync)
            timer.asynchronous[sync.barrier.id] += time.perf_counter() - t0
            return out

        sc.SubtaskCheckpointCoordinator.checkpoint_state = checkpoint_state  # type: ignore[method-assign]
        sc.SubtaskCheckpointCoordinator.finish_async = finish_async  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        (
            sc.SubtaskCheckpointCoordinator.checkpoint_state,
            sc.SubtaskCheckpointCoordinator.finish_async,
        ) = self._orig  # type: ignore[method-assign]


NEVER = 10**12  # a checkpoint interval (ms of simulated time) no run reaches


def state_growth_table(sizes: list[int], parallelism: int) -> None:
    print(f"\nCheckpoint duration as keyed state grows, parallelism {parallelism}")
    print(
        f"{'keys':>9}{'state bytes':>14}{'sync ms':>10}{'async ms':>10}{'total ms':>10}"
        f"{'per 1k keys':>13}{'next async ms':>16}"
    )
    for n in sizes:
        # every key once, then a tail that keeps the source running while the checkpoint is taken
        words = [f"k{i}" for i in range(n)] + ["k0"] * max(20_000, n)
        # periodic checkpoints on (as a checkpointing job has them), each taken here by hand
        graph = job(words, parallelism, NEVER)
        run = MiniCluster(echo_print=False, seed=1).submit(graph)
        reduce_vertex = run.job_graph.vertices[-1]
        run._set_fast(True)

        def records_in(r: Any = run, jv: Any = reduce_vertex) -> int:
            tasks = [r._task(jv.id, i) for i in range(jv.parallelism)]
            return sum(t.invokable.records_in for t in tasks if t is not None)

        while records_in() < n:
            run._step_once()
        with SnapshotTimer() as timer:
            cid = run.trigger_checkpoint()
            assert cid is not None
            stats = run.checkpoint_coordinator.stats.by_id[cid]
            while stats["status"] == "IN_PROGRESS":
                run._step_once()
            # a second checkpoint after 1,000 more records, all on one key ("k0")
            while records_in() < n + 1_000:
                run._step_once()
            next_cid = run.trigger_checkpoint()
            assert next_cid is not None
            next_stats = run.checkpoint_coordinator.stats.by_id[next_cid]
            while next_stats["status"] == "IN_PROGRESS":
                run._step_once()
            for st in (stats, next_stats):  # a failed checkpoint would print zeros
                if st["status"] != "COMPLETED":
                    raise RuntimeError(f"checkpoint {st['id']} ended {st['status']}")
        run.cancel()
        run.run()
        sync_ms, async_ms = timer.sync[cid] * 1000, timer.asynchronous[cid] * 1000
        total = sync_ms + async_ms
        print(
            f"{n:>9,}{stats['state_size']:>14,}{sync_ms:>10.1f}{async_ms:>10.1f}"
            f"{total:>10.1f}{total / (n / 1000):>13.2f}"
            f"{timer.asynchronous[next_cid] * 1000:>16.1f}"
        )


KEYS_SOURCE_BATCH = 100  # records a source emits per step: ~1,000 records per 10 ms checkpoint


def keys_table(key_counts: list[int], n_records: int, parallelism: int, rounds: int = 1) -> None:
    """The keyed job over ``n`` keys (``k0``, ``k1``, … cycled), checkpointing off and every
    10 ms (the shortest interval Flink allows), in ``rounds`` alternating rounds in the same
    process: the best wall-clock and the best CPU time of each (the CPU ratio is the figure a
    loaded machine moves least)."""
    print(
        f"\nCheckpoint cost by number of keys: {n_records:,} records, parallelism {parallelism}, "
        f"a checkpoint every 10 ms (source batch {KEYS_SOURCE_BATCH}), best of {rounds} "
        "alternating round(s)"
    )
    print(
        f"{'keys':>10}{'distinct':>10}{'off s':>8}{'off rec/s':>11}{'on s':>8}{'on rec/s':>11}"
        f"{'ratio':>7}{'off CPU s':>11}{'on CPU s':>10}{'CPU ratio':>11}{'checkpoints':>13}"
        f"{'rec/chk':>9}{'max RSS MB':>12}{'load avg':>10}"
    )
    for n_keys in key_counts:
        words = [f"k{i % n_keys}" for i in range(n_records)]
        off = on = off_cpu = on_cpu = float("inf")
        completed = 0
        for _ in range(rounds):
            wall, cpu, _ = timed_run(words, parallelism, None, fast_source_batch=KEYS_SOURCE_BATCH)
            off, off_cpu = min(off, wall), min(off_cpu, cpu)
            wall, cpu, run = timed_run(words, parallelism, 10, fast_source_batch=KEYS_SOURCE_BATCH)
            on, on_cpu = min(on, wall), min(on_cpu, cpu)
            completed = run.checkpoints_overview()["counts"]["completed"]
            del run
        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{n_keys:>10,}{min(n_keys, n_records):>10,}{off:>8.2f}{n_records / off:>11,.0f}"
            f"{on:>8.2f}{n_records / on:>11,.0f}{on / off:>7.2f}{off_cpu:>11.2f}{on_cpu:>10.2f}"
            f"{on_cpu / off_cpu:>11.2f}{completed:>13,}{n_records / max(1, completed):>9,.0f}"
            f"{rss_mb:>12,.0f}{os.getloadavg()[0]:>10.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--words", type=int, default=500_000)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--every", type=int, default=10_000, help="records per checkpoint")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument(
        "--keys", type=int, nargs="+", default=[1_000, 200_000, 1_000_000], help="third table"
    )
    parser.add_argument("--records", type=int, default=400_000, help="third table's records")
    parser.add_argument("--rounds", type=int, default=1, help="third table's alternating rounds")
    parser.add_argument("--only-keys", action="store_true", help="the third table only")
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = parser.parse_args()
    if args.quick:
        args.words, args.reps, args.sizes = 50_000, 1, [1_000, 5_000]
        args.keys, args.records = [1_000, 20_000], 40_000
    if not args.only_keys:
        throughput_table(args.words, args.parallelism, args.every, args.reps)
        state_growth_table(args.sizes, args.parallelism)
    keys_table(args.keys, args.records, args.parallelism, args.rounds)


if __name__ == "__main__":
    main()
