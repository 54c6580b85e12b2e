"""Flink's ``CheckpointedFunction`` helpers where the runtime's checkpoint code imports them from;
they live in ``pyflowkit.operators.function_state`` (every host restores and snapshots its
operators' function state: the simulated cluster, the Spark executors)."""

from pyflowkit.operators.function_state import (
    CheckpointedFunction,
    FunctionInitializationContext,
    FunctionSnapshotContext,
    checkpointed_function_of,
    initialize_function_states,
    snapshot_function_states,
)

__all__ = [
    "CheckpointedFunction",
    "FunctionInitializationContext",
    "FunctionSnapshotContext",
    "checkpointed_function_of",
    "initialize_function_states",
    "snapshot_function_states",
]
