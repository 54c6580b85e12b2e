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
    lines += checkpoint_and_recover(job, seed, failure_free_lines=len(printed))
    return StageResult(lines, [trace_path])


#: The hops of a checkpoint, in protocol order (first event of each for checkpoint 1).
CHECKPOINT_HOPS = (
    ("CheckpointCoordinator.createPendingCheckpoint", "trigger"),
    ("Task.triggerCheckpointBarrier", "at source"),
    ("SubtaskCheckpointCoordinatorImpl.checkpointState", "sync part"),
    ("AsyncCheckpointRunnable.run", "async part"),
    ("RpcCheckpointResponder.acknowledgeCheckpoint", "ack"),
    ("PendingCheckpoint.acknowledgeTask", "ack in"),
    ("CheckpointCoordinator.completePendingCheckpoint", "completed"),
    ("SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete", "notified"),
)


def with_checkpointing(job_graph: Any, interval: int = 10) -> Any:
    """The same JobGraph with periodic exactly-once checkpoints and a fixed-delay restart."""
    from dataclasses import replace

    from pyflowkit.common.restart_strategy import RestartStrategies

    settings = replace(
        job_graph.checkpointing_settings, checkpoint_interval=interval, is_exactly_once=True
    )
    return replace(
        job_graph,
        checkpointing_settings=settings,
        restart_strategy=RestartStrategies.fixed_delay_restart(3, 100),
    )


def checkpoint_hops(trace: list[Any], checkpoint_id: int = 1) -> list[str]:
    """One line per hop of checkpoint ``checkpoint_id``: its first event of each method."""
    lines = []
    for method, label in CHECKPOINT_HOPS:
        event = next(
            (e for e in trace if e.checkpoint == checkpoint_id and e.method == method), None
        )
        if event is not None:
            lines.append(f"  step {event.step:>3}  {label:<10} {event.message[:84]}")
    return lines


def checkpoint_and_recover(
    job: CompiledJob, seed: int = 0, failure_free_lines: int | None = None
) -> list[str]:
    """Checkpoint 1 hop by hop, then a task failure recovering from it with the same result."""
    from pyflowkit.runtime import predicates
    from pyflowkit.runtime.mini_cluster import MiniCluster

    cluster = MiniCluster(seed=seed, echo_print=False, source_batch=1, buffer_size=1)
    run = cluster.submit(with_checkpointing(job.job_graph))
    run.run_until(predicates.checkpoint_completed(1))
    run.run_until(
        lambda r: any(
            e.checkpoint == 1
            and e.method == "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete"
            for e in r.trace
        )
    )
    lines = ["Checkpoint 1    barrier → snapshot → acknowledge → complete → notify:"]
    lines += checkpoint_hops(run.trace)
    victim = run.job_graph.vertices[-1]
    if run.execution_state(victim.name, 0).value != "RUNNING":
        lines.append("  (the job ended before a task could be failed)")
        return lines
    run.fail_task(victim.name, 0, cause="demo: injected failure")
    failed_at = run.steps_taken
    run.run()
    restore = next(e for e in run.trace if "from latest valid checkpoint" in e.message)
    attempts = max(e.attempt_number for e in run.executions())
    printed = run.printed()
    unique = list(dict.fromkeys(printed))
    if job.example.check_printed(printed):
        verdict = "the same final result as plain Python"
    elif job.example.check_printed(unique):
        verdict = (
            f"the plain-Python result once the at-least-once print sink's "
            f"{len(printed) - len(unique)} replayed lines are removed"
        )
    else:
        raise AssertionError(f"{job.name}: the recovered run's output differs: {printed[:5]}")
    lines += [
        f"Failure         {victim.name} (1/{victim.parallelism}) failed at step {failed_at}:",
        f"  step {restore.step:>3}  {restore.message[:90]}",
        f"  job {run.job_status.name} with attempt #{attempts}; {verdict}",
    ]
    if failure_free_lines is not None:
        extra = len(printed) - failure_free_lines
        lines.append(
            f"  {len(printed)} printed lines, {extra} more than without the failure: the print "
            "sink is at-least-once (records after checkpoint 1 were replayed)"
        )
    return lines
