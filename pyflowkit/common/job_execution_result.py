"""``JobExecutionResult`` (PyFlink's ``pyflink.common.JobExecutionResult``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyflowkit.common.job_id import JobID


class JobExecutionResult:
    """Flink's ``JobExecutionResult``: job id, net runtime (ms), accumulators.

    ``results`` (pyflowkit's addition) maps each sink's name to the records it received, as our
    runtimes collect them.
    """

    def __init__(
        self,
        job_id: str,
        net_runtime: int,
        accumulators: Mapping[str, Any] | None = None,
        results: Mapping[str, list[Any]] | None = None,
        job_name: str | None = None,
    ) -> None:
        self.job_id = job_id
        self.net_runtime = net_runtime
        self.accumulators: dict[str, Any] = dict(accumulators or {})
        self.results: dict[str, list[Any]] = {k: list(v) for k, v in (results or {}).items()}
        self.job_name = job_name

    def get_job_id(self) -> JobID:
        return JobID(self.job_id)

    def get_net_runtime(self) -> int:
        return self.net_runtime

    def get_accumulator_result(self, accumulator_name: str) -> Any:
        return self.accumulators.get(accumulator_name)

    def get_all_accumulator_results(self) -> dict[str, Any]:
        return dict(self.accumulators)

    def get_job_execution_result(self) -> JobExecutionResult:
        return self

    def is_job_execution_result(self) -> bool:
        return True

    def __str__(self) -> str:
        return f"JobExecutionResult(job_id={self.job_id}, net_runtime={self.net_runtime} ms)"

    __repr__ = __str__
