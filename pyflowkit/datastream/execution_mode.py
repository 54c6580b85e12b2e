"""``RuntimeExecutionMode`` (PyFlink's ``pyflink.datastream.RuntimeExecutionMode``)."""

from __future__ import annotations

from enum import Enum


class RuntimeExecutionMode(Enum):
    """Flink's ``RuntimeExecutionMode``: STREAMING, BATCH or AUTOMATIC (by source boundedness)."""

    STREAMING = 0
    BATCH = 1
    AUTOMATIC = 2
