"""Flink's BATCH execution-mode semantics for the operators a bounded job runs on Spark.

Stands for Flink's ``BatchGroupedReduceOperator`` (1.12+): in BATCH mode a keyed reduce or
aggregation emits only the final value per key, when the MAX watermark (end of input) arrives.
It wraps the shared ``StreamGroupedReduce``'s output, so the reduce itself is still the shared one.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.operators.base import StreamOperator
from pyflowkit.operators.output import Output
from pyflowkit.state.time import MAX_WATERMARK

BATCH_FINAL_VALUE_OPERATORS = ("StreamGroupedReduce",)


class FinalValuePerKeyOutput(Output):
    """Keeps the latest output per current key; emits them (first-seen key order) at MAX."""

    def __init__(self, operator: StreamOperator, inner: Output) -> None:
        self.operator = operator
        self.inner = inner
        self.latest: dict[Any, tuple[Any, int | None]] = {}
        self.pending_keys: list[Any] | None = None

    def collect(self, value: Any, timestamp: int | None) -> None:
        self.latest[self.operator.get_current_key()] = (value, timestamp)

    def collect_batch(self, values: Any, timestamps: Any) -> None:
        """The batch path: ``pending_keys`` holds the key of each input, one output per input."""
        keys, self.pending_keys = self.pending_keys, None
        if keys is None or len(keys) != len(values):
            raise AssertionError("the keyed reduce emitted a batch without one output per input")
        latest = self.latest
        if timestamps is None:
            for key, value in zip(keys, values, strict=True):
                latest[key] = (value, None)
        else:
            for key, value, ts in zip(keys, values, timestamps, strict=True):
                latest[key] = (value, ts)

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        self.inner.collect_side(output_tag, value, timestamp)

    def flush(self) -> None:
        latest, self.latest = self.latest, {}
        for value, timestamp in latest.values():
            self.inner.collect(value, timestamp)

    def emit_watermark(self, watermark: int) -> None:
        if watermark >= MAX_WATERMARK:
            self.flush()
            self.inner.emit_watermark(watermark)

    def close(self) -> None:
        self.flush()
        self.inner.close()


def _keyed_batch(op: StreamOperator, wrapper: FinalValuePerKeyOutput) -> Any:
    """The operator's own batch path, with each input's key handed to the wrapper first."""
    inner = op.process_batch
    select = op._key_selector1  # type: ignore[attr-defined]

    def process_batch(values: Any, timestamps: Any) -> None:
        wrapper.pending_keys = [select(v) for v in values]
        inner(values, timestamps)

    return process_batch


def apply_batch_semantics(operators: list[StreamOperator]) -> list[FinalValuePerKeyOutput]:
    """Wrap the outputs of keyed reduces/aggregations; returns the wrappers (flush at end)."""
    wrappers = []
    for op in operators:
        if type(op).__name__ in BATCH_FINAL_VALUE_OPERATORS and op.output is not None:
            wrapper = FinalValuePerKeyOutput(op, op.output)
            op.output = wrapper
            op.process_batch = _keyed_batch(op, wrapper)  # type: ignore[method-assign]
            wrappers.append(wrapper)
    return wrappers
