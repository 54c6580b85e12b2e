"""``JobClient`` of an unbounded job running on Spark (``env.execute_async()``).

Stands for Flink's ``JobClient`` (``ClusterClientJobClientAdapter``) with PyFlink 1.20's
signatures: ``get_job_id``, ``get_job_status`` (a ``JobStatus``), ``cancel``,
``stop_with_savepoint(advance_to_end_of_event_time, savepoint_directory=None)``,
``trigger_savepoint(savepoint_directory=None)``, ``get_job_execution_result``. pyflowkit's
additions: the short form ``stop_with_savepoint(path, drain=False)``, ``wait``, ``get_metrics``
and ``job`` (the ``StreamingJob`` with progress and plan).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

from pyflowkit.common.checkpointing_options import savepoint_directory
from pyflowkit.common.fs_path import local_path
from pyflowkit.common.job_client import CompletableFuture, JobClient
from pyflowkit.common.job_id import JobID
from pyflowkit.common.job_status import JobStatus
from pyflowkit.errors import IllegalArgumentException


class SparkJobClient(JobClient):
    """A handle on a running Structured Streaming query, in Flink's words."""

    def __init__(self, job: Any) -> None:
        super().__init__(job.job_id)
        self.job = job

    def get_job_id(self) -> JobID:
        return JobID(self.job.job_id)

    def get_job_status(self) -> CompletableFuture:
        """``RUNNING`` while the query runs, ``RESTARTING`` while it restarts after a failure
        (``last_failure`` names it); ``FINISHED`` / ``CANCELED`` / ``FAILED`` after."""
        if self.job.status == "RUNNING":
            self.job.poll(0)
        return CompletableFuture(JobStatus(self.job.status))

    @property
    def last_failure(self) -> str:
        """pyflowkit's: the failure the job last restarted after (exception and subtask), as
        Flink's web UI shows under Exceptions; empty if it never failed."""
        return self.job.last_failure

    def cancel(self) -> CompletableFuture:
        """Flink's ``cancel``: stop the query; the job ends CANCELED."""
        self.job.cancel()
        return CompletableFuture(None)

    def stop_with_savepoint(
        self,
        advance_to_end_of_event_time: bool | str | Path = False,
        savepoint_directory: str | Path | None = None,
        *,
        drain: bool | None = None,
    ) -> CompletableFuture:
        """Flink's ``stopWithSavepoint``: the savepoint's path; the job ends FINISHED.

        PyFlink's form ``stop_with_savepoint(advance_to_end_of_event_time, savepoint_directory)``
        or the short form ``stop_with_savepoint(path, drain=False)``; ``drain`` /
        ``advance_to_end_of_event_time`` is ``flink stop --drain``."""
        try:
            flag, path = _stop_arguments(advance_to_end_of_event_time, savepoint_directory, drain)
            target = path if path is not None else self._fresh_savepoint_path()
            return CompletableFuture(self.job.stop_with_savepoint(target, flag))
        except Exception as exc:
            return CompletableFuture(None, exc)

    def trigger_savepoint(self, savepoint_directory: str | Path | None = None) -> CompletableFuture:
        """Flink's ``triggerSavepoint``: the savepoint's path; the job keeps running."""
        try:
            path = _path_argument("trigger_savepoint", savepoint_directory)
            target = path if path is not None else self._fresh_savepoint_path()
            return CompletableFuture(self.job.trigger_savepoint(target))
        except Exception as exc:
            return CompletableFuture(None, exc)

    def get_accumulators(self) -> CompletableFuture:
        """Flink's ``getAccumulators``: name → value once the job has ended (empty before)."""
        if self.job.status == "RUNNING":
            return CompletableFuture({})
        try:
            return CompletableFuture(self.job.result().get_all_accumulator_results())
        except BaseException:
            return CompletableFuture({})

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

    def _fresh_savepoint_path(self) -> str:
        """Flink's naming under the target directory: ``savepoint-<job id prefix>-<random>``
        in ``state.savepoints.dir`` (else ``<tmp>/pyflowkit-savepoints``)."""
        base = savepoint_directory(self.job.configuration)  # a file: URI is read as a path
        name = f"savepoint-{self.job.job_id[:6]}-{uuid.uuid4().hex[:12]}"
        return os.path.join(base, name)

    def __repr__(self) -> str:
        failure = f", last failure: {self.job.last_failure}" if self.job.last_failure else ""
        return (
            f"SparkJobClient({self.job.job_name!r}, {self.job.job_id}, {self.job.status}{failure})"
        )


def _path_argument(method: str, path: Any) -> str | None:
    if path is None:
        return None
    if not isinstance(path, (str, Path)):
        raise IllegalArgumentException(
            f"JobClient.{method}: savepoint_directory must be a path, got {path!r}."
        )
    return local_path(path, f"JobClient.{method}")  # Flink's Path: file: URIs too


def _stop_arguments(first: Any, directory: Any, drain: bool | None) -> tuple[bool, str | None]:
    """(drain, path) from PyFlink's ``(advance_to_end_of_event_time, savepoint_directory)`` or
    the short ``(path, drain=…)``."""
    if isinstance(first, (str, Path)):  # the short form: the path first
        if directory is not None:
            raise IllegalArgumentException(
                "JobClient.stop_with_savepoint: give the savepoint path once, either first "
                "(stop_with_savepoint(path, drain=False)) or as savepoint_directory after "
                "advance_to_end_of_event_time."
            )
        first, directory = (False if drain is None else drain), first
    elif drain is not None:
        raise IllegalArgumentException(
            "JobClient.stop_with_savepoint: drain= goes with the short form "
            "stop_with_savepoint(path, drain=...); PyFlink's form takes "
            "advance_to_end_of_event_time first."
        )
    if not isinstance(first, bool):
        raise IllegalArgumentException(
            "JobClient.stop_with_savepoint: advance_to_end_of_event_time (drain) must be True or "
            f"False, got {first!r}."
        )
    return first, _path_argument("stop_with_savepoint", directory)
