"""Task/Execution states and their legal transitions (Flink 1.11's ``ExecutionState``)."""

from __future__ import annotations

from enum import Enum

from pyflowkit.errors import IllegalStateException


class ExecutionState(Enum):
    """Flink 1.11's ``org.apache.flink.runtime.execution.ExecutionState`` (declaration order)."""

    CREATED = "CREATED"
    SCHEDULED = "SCHEDULED"
    DEPLOYING = "DEPLOYING"
    RUNNING = "RUNNING"
    FINISHED = "FINISHED"
    CANCELING = "CANCELING"
    CANCELED = "CANCELED"
    FAILED = "FAILED"
    RECONCILING = "RECONCILING"

    def is_terminal(self) -> bool:
        """``ExecutionState.isTerminal``: FINISHED, CANCELED or FAILED."""
        return self in _TERMINAL


_TERMINAL = frozenset({ExecutionState.FINISHED, ExecutionState.CANCELED, ExecutionState.FAILED})

S = ExecutionState

# JobMaster-side Execution transitions (reference §5.2, DefaultScheduler).
EXECUTION_TRANSITIONS: frozenset[tuple[ExecutionState, ExecutionState]] = frozenset(
    {
        (S.CREATED, S.SCHEDULED),
        (S.SCHEDULED, S.DEPLOYING),
        (S.CREATED, S.DEPLOYING),
        (S.DEPLOYING, S.RUNNING),
        (S.RUNNING, S.FINISHED),
        (S.DEPLOYING, S.FINISHED),
        (S.RUNNING, S.CANCELING),
        (S.DEPLOYING, S.CANCELING),
        (S.CANCELING, S.CANCELED),
        (S.CREATED, S.CANCELED),
        (S.SCHEDULED, S.CANCELED),
    }
    | {(s, S.FAILED) for s in (S.CREATED, S.SCHEDULED, S.DEPLOYING, S.RUNNING, S.CANCELING)}
)

# TaskExecutor-side Task transitions (reference §5.3): no SCHEDULED.
TASK_TRANSITIONS: frozenset[tuple[ExecutionState, ExecutionState]] = frozenset(
    {
        (S.CREATED, S.DEPLOYING),
        (S.DEPLOYING, S.RUNNING),
        (S.RUNNING, S.FINISHED),
        (S.CREATED, S.CANCELING),
        (S.DEPLOYING, S.CANCELING),
        (S.RUNNING, S.CANCELING),
        (S.CANCELING, S.CANCELED),
        (S.CREATED, S.FAILED),
        (S.DEPLOYING, S.FAILED),
        (S.RUNNING, S.FAILED),
    }
)


def check_transition(
    subject: str,
    current: ExecutionState,
    target: ExecutionState,
    legal: frozenset[tuple[ExecutionState, ExecutionState]],
) -> None:
    """Raise Flink's ``IllegalStateException`` unless ``current → target`` is legal."""
    if current.is_terminal():
        raise IllegalStateException(
            f"Cannot leave terminal state {current.value} to transition to {target.value}."
        )
    if (current, target) not in legal:
        raise IllegalStateException(
            f"{subject}: illegal transition from {current.value} to {target.value} "
            "(not a Flink 1.11 ExecutionState transition)."
        )
