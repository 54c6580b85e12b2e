"""``CheckpointingMode`` (PyFlink's ``pyflink.datastream.CheckpointingMode``)."""

from __future__ import annotations

from enum import Enum


class CheckpointingMode(Enum):
    """Flink's ``CheckpointingMode``: the consistency guarantee of checkpoints."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
