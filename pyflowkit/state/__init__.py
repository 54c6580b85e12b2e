"""Keyed and operator state, timers, watermark valve and snapshots (Flink's state backends)."""

from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend, StateTable
from pyflowkit.state.operator_state_backend import OperatorStateBackend
from pyflowkit.state.snapshot import OperatorSnapshot, assign_snapshot
from pyflowkit.state.time import LONG_MAX_VALUE, LONG_MIN_VALUE, MAX_WATERMARK, VOID_NAMESPACE
from pyflowkit.state.timer_service import (
    InternalTimer,
    InternalTimerService,
    InternalTimeServiceManager,
)
from pyflowkit.state.watermark_valve import StatusWatermarkValve

__all__ = [
    "HeapKeyedStateBackend",
    "InternalTimeServiceManager",
    "InternalTimer",
    "InternalTimerService",
    "LONG_MAX_VALUE",
    "LONG_MIN_VALUE",
    "MAX_WATERMARK",
    "OperatorSnapshot",
    "OperatorStateBackend",
    "StateTable",
    "StatusWatermarkValve",
    "VOID_NAMESPACE",
    "assign_snapshot",
]
