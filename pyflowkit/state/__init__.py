"""Keyed and operator state, timers, watermark valve, snapshots and key groups (Flink's state
backends and ``KeyGroupRangeAssignment``).

Names are re-exported lazily: the graph compiler imports ``key_groups`` without loading the
backends.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "HeapKeyedStateBackend": "pyflowkit.state.heap_keyed_state_backend",
    "StateTable": "pyflowkit.state.heap_keyed_state_backend",
    "OperatorStateBackend": "pyflowkit.state.operator_state_backend",
    "OperatorSnapshot": "pyflowkit.state.snapshot",
    "assign_snapshot": "pyflowkit.state.snapshot",
    "LONG_MAX_VALUE": "pyflowkit.state.time",
    "LONG_MIN_VALUE": "pyflowkit.state.time",
    "MAX_WATERMARK": "pyflowkit.state.time",
    "VOID_NAMESPACE": "pyflowkit.state.time",
    "InternalTimer": "pyflowkit.state.timer_service",
    "InternalTimerService": "pyflowkit.state.timer_service",
    "InternalTimeServiceManager": "pyflowkit.state.timer_service",
    "StatusWatermarkValve": "pyflowkit.state.watermark_valve",
}


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'pyflowkit.state' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = sorted(_EXPORTS)
