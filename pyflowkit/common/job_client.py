"""``JobClient`` (PyFlink's ``pyflink.common.JobClient``) for ``execute_async``."""

from __future__ import annotations

from pyflowkit.common.completable_future import CompletableFuture
from pyflowkit.common.job_execution_result import JobExecutionResult
from pyflowkit.common.job_id import JobID
from pyflowkit.common.job_status import JobStatus
from pyflowkit.errors import IllegalStateException


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
        """Flink's ``getJobStatus``: a ``JobStatus`` (FAILED or FINISHED: this job has ended)."""
        return CompletableFuture(
            JobStatus.FAILED if self._error is not None else JobStatus.FINISHED
        )

    def cancel(self) -> CompletableFuture:
        return CompletableFuture(None)

    def stop_with_savepoint(
        self, advance_to_end_of_event_time: bool, savepoint_directory: str | None = None
    ) -> CompletableFuture:
        """Flink's ``stopWithSavepoint``: fails, this job has already ended."""
        return CompletableFuture(None, self._not_running("stop_with_savepoint"))

    def trigger_savepoint(self, savepoint_directory: str | None = None) -> CompletableFuture:
        """Flink's ``triggerSavepoint``: fails, this job has already ended."""
        return CompletableFuture(None, self._not_running("trigger_savepoint"))

    def get_accumulators(self) -> CompletableFuture:
        """Flink's ``getAccumulators``: name → value of the finished job (empty if it failed)."""
        if self._result is None:
            return CompletableFuture({})
        return CompletableFuture(self._result.get_all_accumulator_results())

    def get_job_execution_result(self) -> CompletableFuture:
        return CompletableFuture(self._result, self._error)

    def _not_running(self, method: str) -> IllegalStateException:
        status = self.get_job_status().result()
        return IllegalStateException(
            f"JobClient.{method}: job {self._job_id} has already reached the terminal state "
            f"{status.name}; a savepoint needs a RUNNING job."
        )
