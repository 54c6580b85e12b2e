"""``execution.target = local``: run a job to the end on a simulated MiniCluster (fast mode).

Stands for Flink's ``LocalExecutor`` + ``PerJobMiniClusterFactory``: ``local.number-taskmanager``
TaskManagers (default 1) with ``taskmanager.numberOfTaskSlots`` slots, or by default the job's
required slots divided among them (``cluster_size.local_execution_size``).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.job_execution_result import JobExecutionResult
from pyflowkit.errors import RestartGuardException
from pyflowkit.runtime.cluster_size import local_execution_size
from pyflowkit.runtime.job_run import JobRun
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.mini_cluster import MiniCluster, _configuration, to_job_graph
from pyflowkit.runtime.restart_guard import (
    DEFAULT_MAX_RESTARTS,
    MAX_RESTARTS_KEY,
    check_max_restarts,
)


def job_execution_result(run: JobRun) -> JobExecutionResult:
    """The ``JobExecutionResult`` of a FINISHED run (raises ``JobExecutionException`` if FAILED)."""
    run.raise_if_failed()
    if run.job_status is not JobStatus.FINISHED:
        raise RuntimeError(
            f"Job {run.job_graph.job_name} ({run.job_id}) ended in state {run.job_status.value}, "
            "not FINISHED."
        )
    jm = run.job_master
    assert jm is not None
    stamps = jm.status_timestamps
    net_runtime = stamps[JobStatus.FINISHED.value] - stamps.get(JobStatus.RUNNING.value, 0)
    result = JobExecutionResult(
        run.job_id,
        net_runtime,
        accumulators=merged_accumulators(run),
        results=run.results(),
        job_name=run.job_graph.job_name,
    )
    result.results_by_node = {k: list(v) for k, v in run.host.results_by_node.items()}  # type: ignore[attr-defined]
    result.printed = run.printed()  # type: ignore[attr-defined]
    result.metrics = final_metrics(run)  # type: ignore[attr-defined]
    return result


def final_metrics(run: JobRun) -> dict[str, dict[str, Any]]:
    """Each finished subtask ("Map (1/2)") → its operators' user metrics, as the Spark result."""
    metrics: dict[str, dict[str, Any]] = {}
    for te in run.task_executors:
        for task in te.tasks.values():
            values = task.task_env.metric_registry.values()
            if task.state.value == "FINISHED" and values:
                metrics[task.task_env.task_name_with_subtasks] = values
    return dict(sorted(metrics.items()))


def merged_accumulators(run: JobRun, states: tuple[str, ...] = ("FINISHED",)) -> dict[str, Any]:
    """Accumulators of every task attempt in ``states`` (the final ones by default), merged by
    name (numbers add up)."""
    merged: dict[str, Any] = {}
    for te in run.task_executors:
        for task in te.tasks.values():
            if task.state.value not in states:
                continue
            for name, value in task.task_env.accumulators.items():
                if name in merged and isinstance(value, (int, float)):
                    merged[name] += value
                else:
                    merged.setdefault(name, value)
    return merged


def _submit(
    env_or_job_graph: Any, job_name: str | None, cluster_options: dict[str, Any]
) -> tuple[JobRun, int | None]:
    """The job on its own MiniCluster (nothing has run yet) and its restart guard."""
    job_graph = to_job_graph(env_or_job_graph, job_name, seed=cluster_options.get("seed", 0))
    size = local_execution_size(job_graph)
    options = {
        "task_managers": size.task_managers,
        "slots_per_task_manager": size.slots_per_task_manager,
    }
    options.update(cluster_options)
    configured = _configuration(job_graph).get(MAX_RESTARTS_KEY, DEFAULT_MAX_RESTARTS)
    max_restarts = check_max_restarts(configured, MAX_RESTARTS_KEY)
    return MiniCluster(**options).submit(job_graph), max_restarts


def execute_async(
    env_or_job_graph: Any, job_name: str | None = None, spark: Any = None, **cluster_options: Any
) -> Any:
    """Flink's ``executeAsync`` on the local target: the job is submitted and RUNNING; the
    returned ``JobClient`` takes savepoints, cancels it or runs it to its end."""
    from pyflowkit.runtime.job_client import MiniClusterJobClient

    run, max_restarts = _submit(env_or_job_graph, job_name, cluster_options)
    return MiniClusterJobClient(run, max_restarts)


def execute(
    env_or_job_graph: Any, job_name: str | None = None, **cluster_options: Any
) -> JobExecutionResult:
    """Compile, run on a MiniCluster in fast mode, and return Flink's ``JobExecutionResult``."""
    run, max_restarts = _submit(env_or_job_graph, job_name, cluster_options)
    try:
        run.run(max_restarts=max_restarts)
    except RestartGuardException:
        run.cancel()  # the cell returns: cancel the looping job and let it reach CANCELED
        run.run(max_restarts=None)
        raise
    return job_execution_result(run)
