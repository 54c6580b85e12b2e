"""Python-side cost of the notebook widgets: Stepper time per step (64 subtasks, every pane updated:
graph states, tasks, sequence diagram, timeline, checkpoints, exceptions), first render of a
200-vertex JobGraph. Ratios are against baselines measured in the same run; printed as a table."""

from __future__ import annotations

import time

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.notebook.graph_view import GraphView
from pyflowkit.notebook.stepper import Stepper


def wide_env(parallelism: int = 16):
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
    stepper.submit()
    run = stepper.run
    start = time.perf_counter()
    for _ in range(steps):
        if with_widget:
            stepper.step()
        else:
            run.step()
    return (time.perf_counter() - start) / steps


def main() -> None:
    stepper = Stepper(wide_env())
    subtasks = sum(v.parallelism for v in stepper.job_graph.vertices)
    bare = per_step(stepper, 300, with_widget=False)
    widget = per_step(stepper, 300, with_widget=True)
    env = long_env()
    t0 = time.perf_counter()
    job_graph = env.get_job_graph()
    t_compile = time.perf_counter() - t0
    t0 = time.perf_counter()
    GraphView(job_graph)
    t_render = time.perf_counter() - t0
    rows = [
        ("JobRun.step (baseline)", f"{bare * 1e3:.2f} ms", "1.00x", ""),
        (
            f"Stepper.step + sequence diagram + timeline, {subtasks} subtasks",
            f"{widget * 1e3:.2f} ms",
            f"{widget / bare:.2f}x",
            f"Python side {(widget - bare) * 1e3:.2f} ms (goal <= 10 ms)",
        ),
        ("compile 200-vertex JobGraph (baseline)", f"{t_compile * 1e3:.0f} ms", "1.00x", ""),
        (
            f"GraphView first render ({len(job_graph.vertices)} vertices)",
            f"{t_render * 1e3:.0f} ms",
            f"{t_render / t_compile:.2f}x",
            "",
        ),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'time':>10}  {'ratio':>7}  note")
    for name, t, ratio, note in rows:
        print(f"{name:<{width}}  {t:>10}  {ratio:>7}  {note}")


if __name__ == "__main__":
    main()
