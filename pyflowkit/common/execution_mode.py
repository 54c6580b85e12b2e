"""``ExecutionMode`` (PyFlink's ``pyflink.common.ExecutionMode``)."""

from __future__ import annotations

from enum import Enum


class ExecutionMode(Enum):
    """Flink's ``ExecutionMode``: how the DataSet API exchanges data (pipelined or batch).

    The DataStream API ignores it (``set_runtime_mode`` decides batch vs streaming there), so
    ``ExecutionConfig.set_execution_mode`` is stored and reported only, as in Flink.
    """

    PIPELINED = 0
    PIPELINED_FORCED = 1
    BATCH = 2
    BATCH_FORCED = 3
