"""Demo stage: step an example through submission on the simulated MiniCluster, then run it.

No Flink counterpart; it narrates what Flink 1.11's MiniCluster does for ``env.execute()``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pyflowkit.examples.demo import CompiledJob, StageResult

#: Flink methods worth a line each in the demo's submission summary, in the order they happen.
MILESTONES = (
    "Dispatcher.submitJob",
    "JobManagerRunnerImpl.grantLeadership",
    "DefaultScheduler.startScheduling",
    "SlotPool.requestNewAllocatedSlot",
    "TaskExecutor.requestSlot",
    "Execution.deploy",
    "TaskExecutor.submitTask",
    "StreamTask.invoke",
)


def submission_summary(trace: list[Any]) -> list[str]:
    """The first event of each milestone method, plus how many events each component caused."""
    lines: list[str] = []
    seen: set[str] = set()
    for event in trace:
        if event.method in MILESTONES and event.method not in seen:
            seen.add(event.method)
            lines.append(f"  step {event.step:>3}  {event.method:<38} {event.message[:70]}")
    components = Counter(e.component.split(" (")[0] for e in trace if "(" not in e.component)
    busiest = ", ".join(f"{name} {n}" for name, n in components.most_common(6))
    lines.append(f"  events by component: {busiest}")
    return lines


def run_on_mini_cluster(job: CompiledJob, seed: int = 0) -> StageResult:
    """Step until every task is RUNNING (narrating the submission), then run to the end."""
    from pyflowkit.runtime import predicates
    from pyflowkit.runtime.mini_cluster import MiniCluster

    cluster = MiniCluster(task_managers=2, slots_per_task_manager=2, seed=seed, echo_print=False)
    run = cluster.submit(job.job_graph)
    run.run_until(predicates.all_tasks_in("RUNNING"))
    deployed_at = run.steps_taken
    lines = [f"MiniCluster     all tasks RUNNING after {deployed_at} steps (seed {seed}):"]
    lines += submission_summary(run.trace)
    run.run()
    printed = run.printed()
    ok = job.example.check_printed(printed)
    lines.append(
        f"                job {run.job_status.name} after {run.steps_taken} steps, "
        f"{len(run.trace)} trace events; {len(printed)} printed lines "
        + ("match the plain-Python result" if ok else "DIFFER from the plain-Python result")
    )
    job.out_dir.mkdir(parents=True, exist_ok=True)
    trace_path = run.save_trace(job.out_dir / "trace.json")
    if not ok:
        raise AssertionError(f"{job.name}: the simulated cluster's output differs: {printed[:5]}")
    return StageResult(lines, [trace_path])
