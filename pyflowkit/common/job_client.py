"""``JobClient`` (PyFlink's ``pyflink.common.JobClient``) for ``execute_async``."""

from __future__ import annotations

from pyflowkit.common.completable_future import CompletableFuture
from pyflowkit.common.job_execution_result import JobExecutionResult
from pyflowkit.common.job_id import JobID


class JobClient:
    """Flink's ``JobClient``: a handle on a submitted job (our executors finish synchronously)."""

    def __init__(
        self,
        job_id: str,
        result: JobExecutionResult | None = None,
        error: BaseException | None = None,
    ) -> None:
        self._job_id = job_id
        self._result = result
        self._error = error

    def get_job_id(self) -> JobID:
        return JobID(self._job_id)

    def get_job_status(self) -> CompletableFuture:
        return CompletableFuture("FAILED" if self._error is not None else "FINISHED")

    def cancel(self) -> CompletableFuture:
        return CompletableFuture(None)

    def get_job_execution_result(self) -> CompletableFuture:
        return CompletableFuture(self._result, self._error)
