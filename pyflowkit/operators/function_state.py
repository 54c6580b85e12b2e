"""User functions with their own checkpointed state (Flink's ``CheckpointedFunction``).

A function hosted by an ``AbstractUdfStreamOperator`` that implements ``snapshot_state`` and
``initialize_state`` is snapshotted before its operator's state backends, and initialized after
they are created (Flink's ``StreamingFunctionUtils.snapshotFunctionState``/``restoreFunctionState``).
Every host calls these around its chain's ``initialize_state`` / ``snapshot_state`` (the simulated
cluster's checkpoint driver, the Spark executors).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pyflowkit.datastream.functions import CheckpointedFunction

__all__ = [
    "CheckpointedFunction",
    "FunctionInitializationContext",
    "FunctionSnapshotContext",
    "checkpointed_function_of",
    "initialize_function_states",
    "snapshot_function_states",
]


@dataclass
class FunctionSnapshotContext:
    """Flink's ``FunctionSnapshotContext``."""

    checkpoint_id: int
    checkpoint_timestamp: int

    def get_checkpoint_id(self) -> int:
        return self.checkpoint_id

    def get_checkpoint_timestamp(self) -> int:
        return self.checkpoint_timestamp


@dataclass
class FunctionInitializationContext:
    """Flink's ``FunctionInitializationContext``: is this a restore, and the state stores."""

    restored: bool
    operator_state_store: Any
    keyed_state_store: Any = None

    def is_restored(self) -> bool:
        return self.restored

    def get_operator_state_store(self) -> Any:
        return self.operator_state_store

    def get_keyed_state_store(self) -> Any:
        return self.keyed_state_store


def checkpointed_function_of(operator: Any) -> CheckpointedFunction | None:
    """The operator's user function if it is a ``CheckpointedFunction`` (a ``StreamSource``'s
    is the ``SourceFunction`` it runs: ``AbstractUdfStreamOperator.function_with_state``)."""
    return getattr(operator, "function_with_state", None)


def initialize_function_states(operators: list[Any]) -> None:
    """``restoreFunctionState`` for every chained operator's user function (after its backends)."""
    for op in operators:
        fn = checkpointed_function_of(op)
        if fn is not None:
            # Flink deserializes a function per subtask; here one instance is shared by the
            # subtasks, so each subtask gets its own shallow copy (initialize_state resets it).
            fn = copy.copy(fn)
            op.use_function(fn)
            backend = op.operator_state_backend
            fn.initialize_state(
                FunctionInitializationContext(
                    bool(getattr(backend, "is_restored", False)), backend, op.keyed_state_backend
                )
            )


def snapshot_function_states(operators: list[Any], checkpoint_id: int, timestamp: int) -> None:
    """``snapshotFunctionState`` for every chained operator's user function."""
    for op in operators:
        fn = checkpointed_function_of(op)
        if fn is not None:
            fn.snapshot_state(FunctionSnapshotContext(checkpoint_id, timestamp))
