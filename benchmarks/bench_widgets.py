"""Python-side cost of the notebook widgets: Stepper time per step (64 subtasks, every pane updated:
graph states, tasks, sequence diagram, timeline, checkpoints, exceptions), first render of a
200-vertex JobGraph. Ratios are against baselines measured in the same run; printed as a table.

Times are CPU time, the best of ``--rounds`` rounds after one warm-up round (the first steps of a
process import the runtime's modules lazily); steps are timed from a fresh run over a collected,
frozen heap (gc.freeze), so what ran before them does not move them. The stepped job gets a slot
per subtask of a vertex (4 TaskManagers x 4 slots for parallelism 16, as Flink's local MiniCluster
gives a job as many slots as its parallelism); the benchmark refuses to report steps of a job that
is not RUNNING.

    .venv/bin/python benchmarks/bench_widgets.py [--rounds N] [--steps N]
"""

from __future__ import annotations

import argparse
import gc
import time

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.notebook.graph_view import GraphView
from pyflowkit.notebook.stepper import Stepper

PARALLELISM = 16
TASK_MANAGERS, SLOTS = 4, 4  # 16 slots: one per subtask of a vertex (slot sharing)


def wide_env(parallelism: int = PARALLELISM):
    """sequence source → map → key_by/reduce → print at parallelism 16, chaining off: 64 subtasks."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    env.disable_operator_chaining()
    src = env.generate_sequence(1, 2000)
    src.map(lambda n: (n % 50, 1)).key_by(lambda t: t[0]).reduce(
        lambda a, b: (a[0], a[1] + b[1])
    ).print()
    return env


def long_env(vertices: int = 200):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.disable_operator_chaining()
    stream = env.from_collection([1, 2, 3])
    for _ in range(vertices - 2):
        stream = stream.map(lambda x: x)
    stream.print()
    return env


def per_step(stepper: Stepper, steps: int, with_widget: bool) -> float:
    """CPU seconds per step over the first ``steps`` steps of a fresh run of the job. The heap
    that earlier rounds left is collected and frozen first, so the collector's passes during the
    steps see only what the steps allocate, whatever ran before in the process."""
    stepper.submit()
    run = stepper.run
    step = stepper.step if with_widget else run.step
    gc.collect()
    gc.freeze()
    try:
        start = time.process_time()
        for _ in range(steps):
            step()
        elapsed = time.process_time() - start
    finally:
        gc.unfreeze()
    if run.job_status.name != "RUNNING":
        raise SystemExit(
            f"the stepped job is {run.job_status.name} after {steps} steps, not RUNNING "
            f"({run.failure_cause}): its steps would not measure a running job"
        )
    return elapsed / steps


def first_render() -> tuple[float, float, int]:
    """CPU seconds to compile the 200-vertex JobGraph and to render it in a new GraphView."""
    env = long_env()
    t0 = time.process_time()
    job_graph = env.get_job_graph()
    t1 = time.process_time()
    GraphView(job_graph)
    t2 = time.process_time()
    return t1 - t0, t2 - t1, len(job_graph.vertices)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    stepper = Stepper(wide_env(), task_managers=TASK_MANAGERS, slots=SLOTS)
    subtasks = sum(v.parallelism for v in stepper.job_graph.vertices)
    bare = widget = t_compile = t_render = float("inf")
    for round_ in range(args.rounds + 1):  # round 0 warms up (lazy imports), not counted
        times = (
            per_step(stepper, args.steps, with_widget=False),
            per_step(stepper, args.steps, with_widget=True),
            *first_render()[:2],
        )
        if round_:
            bare, widget = min(bare, times[0]), min(widget, times[1])
            t_compile, t_render = min(t_compile, times[2]), min(t_render, times[3])
    vertices = first_render()[2]
    rows = [
        ("JobRun.step (baseline)", f"{bare * 1e3:.3f} ms", "1.00x", ""),
        (
            f"Stepper.step + sequence diagram + timeline, {subtasks} subtasks",
            f"{widget * 1e3:.3f} ms",
            f"{widget / bare:.2f}x",
            f"Python side {(widget - bare) * 1e3:.2f} ms (goal <= 10 ms)",
        ),
        ("compile 200-vertex JobGraph (baseline)", f"{t_compile * 1e3:.1f} ms", "1.00x", ""),
        (
            f"GraphView first render ({vertices} vertices)",
            f"{t_render * 1e3:.1f} ms",
            f"{t_render / t_compile:.2f}x",
            "",
        ),
    ]
    print(
        f"pyflowkit widgets benchmark (CPU time, best of {args.rounds} rounds after a warm-up; "
        f"{args.steps} steps from submit)"
    )
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'time':>10}  {'ratio':>7}  note")
    for name, t, ratio, note in rows:
        print(f"{name:<{width}}  {t:>10}  {ratio:>7}  {note}")


if __name__ == "__main__":
    main()
