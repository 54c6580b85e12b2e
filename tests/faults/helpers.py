"""Shared helpers of the fault tables: build a job, run it, walk a failure's cause chain."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.runtime import ExecutionState, JobStatus, MiniCluster

TERMINAL = {ExecutionState.FINISHED, ExecutionState.CANCELED, ExecutionState.FAILED}


def environment(build: Callable[[StreamExecutionEnvironment], Any], parallelism: int = 2) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism)
    build(env)
    return env


def chain_of(exc: BaseException | None) -> list[BaseException]:
    out = []
    while exc is not None and exc not in out:
        out.append(exc)
        exc = exc.__cause__
    return out


def run_to_end(env: Any, **cluster: Any) -> Any:
    run = MiniCluster(echo_print=False, **cluster).submit(env)
    run.run()
    return run


def assert_cleanly_failed(run: Any) -> None:
    """FAILED, every task terminal, nothing left to step."""
    assert run.job_status is JobStatus.FAILED, run.job_status
    assert all(e.state in TERMINAL for e in run.executions()), [
        (e.vertex.name, e.state) for e in run.executions()
    ]
    assert not run.has_next()
