"""Seeded MiniCluster scenarios whose saved traces and outputs must never depend on the process.

Run as ``python -m tests.runtime.determinism_scenarios OUT_DIR SAVEPOINT_DIR [EXTRA_IDS]``: writes
one ``<scenario>.trace.json`` (``JobRun.save_trace``) and one ``<scenario>.out.txt`` per scenario,
after taking ``EXTRA_IDS`` node ids with throwaway pipelines.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import MiniCluster
from pyflowkit.runtime.predicates import checkpoint_completed, job_finished
from pyflowkit.runtime.two_phase_commit import TransactionStore
from tests.checkpoint.jobs import word_count
from tests.checkpoint.test_sync_savepoint_mailbox import job as timer_job

Scenario = Callable[[Path], tuple[Any, str]]  # savepoint dir -> (finished JobRun, more output)


def _keyed_job(parallelism: int = 2, interval: int | None = 10) -> StreamExecutionEnvironment:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    if interval is not None:
        env.enable_checkpointing(interval)
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 50))
    env.from_collection([f"w{i % 7}" for i in range(60)]).map(lambda w: (w, 1)).key_by(
        lambda t: t[0]
    ).reduce(lambda a, b: (a[0], a[1] + b[1])).print()
    return env


def submission(_: Path) -> tuple[Any, str]:
    """Submission to FINISHED, no checkpoints."""
    run = MiniCluster(echo_print=False, seed=3).submit(_keyed_job(interval=None), "submission")
    run.run_until(job_finished())
    return run, ""


def checkpoints(_: Path) -> tuple[Any, str]:
    """Periodic checkpoints of a transactional word count, to the end."""
    store = TransactionStore()
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(
        word_count(store, parallelism=2, interval=20), "checkpoints"
    )
    run.run_until(job_finished())
    store.commit_final_transactions()
    return run, repr(store.committed)


def failures(_: Path) -> tuple[Any, str]:
    """A task failure after checkpoint 1 and a TaskExecutor loss after checkpoint 3."""
    run = MiniCluster(echo_print=False, seed=5, task_managers=2, source_batch=2).submit(
        _keyed_job(), "failures"
    )
    run.run_until(checkpoint_completed(1))
    run.fail_task("Map", 1, cause="injected")
    run.run_until(checkpoint_completed(3))
    run.fail_task_manager(1)
    run.run_until(job_finished())
    return run, ""


def stop_with_savepoint(savepoint_dir: Path) -> tuple[Any, str]:
    """A stop-with-savepoint after checkpoint 1 (the synchronous savepoint mailbox loop)."""
    run = MiniCluster(echo_print=False, seed=1, source_batch=2).submit(timer_job())
    run.run_until(checkpoint_completed(1))
    sp = run.stop_with_savepoint(savepoint_dir)
    path = run.savepoint_path(sp)
    run.run_until(job_finished())
    return run, path


def same_named_sources(_: Path) -> tuple[Any, str]:
    """Two sources both named ``Collection Source``, with different parallelisms downstream."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    env.enable_checkpointing(10)
    a = env.from_collection([("a", i) for i in range(20)])
    b = env.from_collection([("b", i) for i in range(20)])
    a.map(lambda t: t).set_parallelism(3).union(b.map(lambda t: t)).key_by(lambda t: t[1] % 3).map(
        lambda t: f"{t[0]}{t[1]}"
    ).print()
    b.map(lambda t: t[1]).print()
    run = MiniCluster(echo_print=False, seed=2, source_batch=3).submit(env, "twins")
    run.run_until(job_finished())
    return run, ""


SCENARIOS: dict[str, Scenario] = {
    "submission": submission,
    "checkpoints": checkpoints,
    "failures": failures,
    "stop_with_savepoint": stop_with_savepoint,
    "same_named_sources": same_named_sources,
}


def take_node_ids(n: int) -> None:
    """Build throwaway pipelines taking ``n`` node ids from the process-wide counter."""
    env = StreamExecutionEnvironment.get_execution_environment()
    for _ in range(n):
        env.from_collection([1])


def run_all(out_dir: Path, savepoint_dir: Path) -> None:
    """Every scenario's saved trace and outputs into ``out_dir`` (savepoints under one path)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, scenario in SCENARIOS.items():
        shutil.rmtree(savepoint_dir, ignore_errors=True)
        run, more = scenario(savepoint_dir)
        run.save_trace(out_dir / f"{name}.trace.json")
        results = {k: [repr(v) for v in vs] for k, vs in sorted(run.results().items())}
        lines = [f"status={run.job_status.name}", *run.printed(), repr(results), more]
        (out_dir / f"{name}.out.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    take_node_ids(int(sys.argv[3]) if len(sys.argv) > 3 else 0)
    run_all(Path(sys.argv[1]), Path(sys.argv[2]))
