"""ExecutionState and JobStatus: Flink 1.11's values and transition rules."""

import pytest

from pyflowkit.errors import IllegalStateException
from pyflowkit.runtime.execution_state import (
    EXECUTION_TRANSITIONS,
    TASK_TRANSITIONS,
    ExecutionState,
    check_transition,
)
from pyflowkit.runtime.job_status import JobStatus, check_job_transition

S = ExecutionState


def test_enum_values_in_flink_order() -> None:
    assert [s.value for s in ExecutionState] == [
        "CREATED",
        "SCHEDULED",
        "DEPLOYING",
        "RUNNING",
        "FINISHED",
        "CANCELING",
        "CANCELED",
        "FAILED",
        "RECONCILING",
    ]
    assert [s.value for s in JobStatus] == [
        "CREATED",
        "RUNNING",
        "FAILING",
        "FAILED",
        "CANCELLING",
        "CANCELED",
        "FINISHED",
        "RESTARTING",
        "SUSPENDED",
        "RECONCILING",
    ]


def test_terminal_states() -> None:
    assert {s for s in S if s.is_terminal()} == {S.FINISHED, S.CANCELED, S.FAILED}
    assert {s for s in JobStatus if s.is_globally_terminal_state()} == {
        JobStatus.FAILED,
        JobStatus.CANCELED,
        JobStatus.FINISHED,
    }
    assert JobStatus.SUSPENDED.is_terminal_state()
    assert not JobStatus.SUSPENDED.is_globally_terminal_state()


def test_leaving_terminal_state_raises_flinks_message() -> None:
    with pytest.raises(
        IllegalStateException,
        match=r"^Cannot leave terminal state FINISHED to transition to RUNNING\.$",
    ):
        check_transition("Map (1/2)", S.FINISHED, S.RUNNING, EXECUTION_TRANSITIONS)
    with pytest.raises(
        IllegalStateException,
        match=r"^Cannot leave terminal state CANCELED to transition to RUNNING\.$",
    ):
        check_job_transition("job", JobStatus.CANCELED, JobStatus.RUNNING)


def test_task_side_has_no_scheduled() -> None:
    assert not any(S.SCHEDULED in pair for pair in TASK_TRANSITIONS)
    with pytest.raises(
        IllegalStateException, match="Map \\(1/2\\): illegal transition from CREATED to SCHEDULED"
    ):
        check_transition("Map (1/2)", S.CREATED, S.SCHEDULED, TASK_TRANSITIONS)


def test_jm_side_paths() -> None:
    for a, b in [
        (S.CREATED, S.SCHEDULED),
        (S.SCHEDULED, S.DEPLOYING),
        (S.DEPLOYING, S.RUNNING),
        (S.RUNNING, S.FINISHED),
        (S.RUNNING, S.CANCELING),
        (S.CANCELING, S.CANCELED),
        (S.SCHEDULED, S.CANCELED),
        (S.RUNNING, S.FAILED),
    ]:
        check_transition("x", a, b, EXECUTION_TRANSITIONS)
    with pytest.raises(IllegalStateException):
        check_transition("x", S.SCHEDULED, S.RUNNING, EXECUTION_TRANSITIONS)


def test_job_status_paths() -> None:
    check_job_transition("j", JobStatus.CREATED, JobStatus.RUNNING)
    check_job_transition("j", JobStatus.RUNNING, JobStatus.RESTARTING)
    check_job_transition("j", JobStatus.RESTARTING, JobStatus.RUNNING)
    check_job_transition("j", JobStatus.FAILING, JobStatus.FAILED)
    with pytest.raises(IllegalStateException, match="from state RESTARTING to CREATED"):
        check_job_transition("j", JobStatus.RESTARTING, JobStatus.CREATED)
    with pytest.raises(IllegalStateException, match="from state CREATED to FINISHED"):
        check_job_transition("j", JobStatus.CREATED, JobStatus.FINISHED)
