"""Runtime test fixtures: every JobRun made in a test has its state transitions checked."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from pyflowkit.runtime.execution_state import (
    EXECUTION_TRANSITIONS,
    TASK_TRANSITIONS,
    ExecutionState,
)
from pyflowkit.runtime.job_run import JobRun
from pyflowkit.runtime.job_status import JOB_TRANSITIONS, JobStatus


def assert_legal_transitions(run: JobRun) -> None:
    """Every state change in the trace is a legal Flink 1.11 transition, chained per subject."""
    last: dict[tuple, str] = {}
    for e in run.trace:
        if e.new_state is None:
            continue
        if e.method == "ExecutionGraph.transitionState":
            pair = (JobStatus(e.old_state), JobStatus(e.new_state))
            assert pair in JOB_TRANSITIONS, f"illegal job transition {pair} at step {e.step}"
            key: tuple = ("job", e.job)
        else:
            table = EXECUTION_TRANSITIONS if e.component == "JobMaster" else TASK_TRANSITIONS
            pair2 = (ExecutionState(e.old_state), ExecutionState(e.new_state))
            assert pair2 in table, f"illegal {e.component} transition {pair2} at step {e.step}"
            attempt_id = re.search(r"\(([0-9a-f]{32})\) switched", e.message)
            assert attempt_id, e.message
            key = (e.component == "JobMaster", attempt_id.group(1))
        if key in last:
            assert last[key] == e.old_state, f"{key}: {last[key]} then {e.old_state}→{e.new_state}"
        else:
            assert e.old_state == "CREATED", f"{key} starts from {e.old_state}"
        last[key] = e.new_state


@pytest.fixture(autouse=True)
def _check_all_transitions(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[JobRun]]:
    runs: list[JobRun] = []
    original = JobRun._build

    def build(self: JobRun, echo: bool) -> None:
        original(self, echo)
        runs.append(self)

    monkeypatch.setattr(JobRun, "_build", build)
    yield runs
    for run in runs:
        assert_legal_transitions(run)
