"""``JobClient`` of an unbounded job running on Spark (``env.execute_async()``).

Stands for Flink's ``JobClient`` (``ClusterClientJobClientAdapter``): ``get_job_id``,
``get_job_status``, ``cancel``, ``stop_with_savepoint``, ``trigger_savepoint``,
``get_job_execution_result``; a status is Flink's ``JobStatus``
name. pyflowkit's additions: ``wait``, ``get_metrics`` and ``job`` (the ``StreamingJob`` with progress and plan).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.job_client import CompletableFuture


class SparkJobClient:
    """A handle on a running Structured Streaming query, in Flink's words."""

    def __init__(self, job: Any) -> None:
        self.job = job

    def get_job_id(self) -> str:
        return self.job.job_id

    def get_job_status(self) -> CompletableFuture:
        """``RUNNING`` while the query runs; ``FINISHED`` / ``CANCELED`` / ``FAILED`` after."""
        if self.job.status == "RUNNING":
            self.job.poll(0)
        return CompletableFuture(self.job.status)

    def cancel(self) -> CompletableFuture:
        """Flink's ``cancel``: stop the query; the job ends CANCELED."""
        self.job.cancel()
        return CompletableFuture(None)

    def stop_with_savepoint(
        self, savepoint_directory: str, drain: bool = False
    ) -> CompletableFuture:
        """Flink's ``stopWithSavepoint``: the savepoint's path; the job ends FINISHED."""
        try:
            return CompletableFuture(self.job.stop_with_savepoint(savepoint_directory, drain))
        except Exception as exc:
            return CompletableFuture(None, exc)

    def trigger_savepoint(self, savepoint_directory: str) -> CompletableFuture:
        """Flink's ``triggerSavepoint``: the savepoint's path; the job keeps running."""
        try:
            return CompletableFuture(self.job.trigger_savepoint(savepoint_directory))
        except Exception as exc:
            return CompletableFuture(None, exc)

    def get_metrics(self) -> dict[str, dict[str, Any]]:
        """pyflowkit's: each subtask's user metrics (counters, gauges, meters, distributions)
        as of its last micro-batch — what Flink's REST API ``/jobs/:id/vertices/:vid/metrics``
        reports per subtask; the same shape as the batch result's ``metrics``."""
        return self.job.metric_values()

    def wait(self, timeout: float | None = None) -> str:
        """Block until the job ends (or ``timeout`` s); the final status."""
        return self.job.wait(timeout)

    def get_job_execution_result(self) -> CompletableFuture:
        """The result once the job has ended (waits for it)."""
        self.job.wait()
        try:
            return CompletableFuture(self.job.result())
        except BaseException as exc:
            return CompletableFuture(None, exc)

    def __repr__(self) -> str:
        return f"SparkJobClient({self.job.job_name!r}, {self.job.job_id}, {self.job.status})"
