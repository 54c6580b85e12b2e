"""Demo stage: run an example on the embedded Spark session and check it against plain Python.

No Flink counterpart; it shows what ``env.execute()`` does by default: one Spark stage per
JobVertex, ship strategies as Spark partitioning, Flink's result (``JobExecutionResult``).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.examples.demo import CompiledJob, StageResult


def session_master(session: Any) -> str:
    """``local[*]``, ``spark://…`` or ``sc://…`` for the summary line."""
    try:
        return str(session.conf.get("spark.master"))
    except Exception:  # Spark Connect may not expose spark.master
        return "Spark Connect"


def run_on_spark(job: CompiledJob, spark: Any = None) -> StageResult:
    """Run the JobGraph on Spark, summarise the plan and the run, write ``spark_plan.txt``."""
    from pyflowkit.spark.executor import execute
    from pyflowkit.spark.preflight import SparkEnvironmentError
    from pyflowkit.spark.session import get_session, is_connect

    try:
        session = get_session(None, spark)
    except SparkEnvironmentError as exc:  # no Java, old pyarrow, …: say so, keep the demo going
        return StageResult([f"Spark           not run: {exc}"], [])
    result = execute(job.job_graph, spark=session, print_output=False)
    plan, progress = result.spark_plan, result.progress
    printed = result.print_lines
    ok = job.example.check_printed(printed)
    edges = ", ".join(e.ship_strategy for e in plan.edges) or "none"
    lines = [
        f"Spark           {len(plan.stages)} stages on {session_master(session)} "
        f"({plan.runtime_mode}); job edges as repartitions by subtask: {edges}",
        f"                job {result.get_job_id()[:8]}… FINISHED in {result.get_net_runtime()} ms"
        + (
            f" (Spark: {progress.jobs_done} jobs, {progress.stages_done} stages, "
            f"{progress.tasks_done} tasks)"
            if progress is not None and progress.jobs_done
            # a Spark Connect session has no status tracker to count them
            else " (on the local Spark service)"
            if is_connect(session)
            else ""
        )
        + f"; {len(printed)} printed lines "
        + ("match the plain-Python result" if ok else "DIFFER from the plain-Python result"),
    ]
    job.out_dir.mkdir(parents=True, exist_ok=True)
    plan_path = job.out_dir / "spark_plan.txt"
    plan_path.write_text(str(plan) + "\n", encoding="utf-8")
    if not ok:
        raise AssertionError(f"{job.name}: the Spark run's output differs: {printed[:5]}")
    return StageResult(lines, [plan_path])
