"""Flink's BATCH execution-mode semantics on Spark: those of the shared operators, not a copy.

A chain built for BATCH (``OperatorChain`` with the job's resolved runtime mode, see
``pyflowkit.task.execution_mode``) already runs Flink 1.12's ``BatchGroupedReduceOperator``
(one final value per key when the end-of-input ``MAX`` watermark arrives), its timer services fire
processing-time timers at end of input, and its sources/timestamp assigners emit no progressive
watermarks. This module only checks that a BATCH stage got such a chain.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import IllegalStateException
from pyflowkit.operators.base import StreamOperator


def apply_batch_semantics(operators: list[StreamOperator]) -> list[Any]:
    """Check that every operator was set up for BATCH; returns the outputs left to flush (none).

    Raises ``IllegalStateException`` naming the operator when the chain was built for STREAMING
    (its keyed reduces would emit running updates instead of final values).
    """
    for op in operators:
        if not op.config.is_batch:
            raise IllegalStateException(
                f"Operator '{op.config.operator_name}' was set up for "
                f"{op.config.runtime_mode}, but the Spark stage runs in BATCH execution mode: "
                "build its OperatorChain with runtime_mode='BATCH'."
            )
    return []
