"""Tiny operators for testing the Spark host before/independently of the shared operator set."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.graph.transformations import ChainingStrategy
from pyflowkit.operators.base import StreamOperator
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.time import MAX_WATERMARK


class Status(Enum):
    MORE_AVAILABLE = 0
    END_OF_INPUT = 1


class HostTestSource(StreamOperator):
    """Subtask i emits elements[i::p] (timestamps = the element index when ``timestamps``)."""

    chaining_strategy = ChainingStrategy.HEAD
    is_source = True

    def __init__(self, elements: list[Any], timestamps: bool = False) -> None:
        super().__init__()
        self.elements = elements
        self.timestamps = timestamps

    @classmethod
    def from_params(cls, params):
        return cls(params["elements"], params.get("timestamps", False))

    def open(self) -> None:
        env = self.environment
        self.pending = list(enumerate(self.elements))[env.subtask_index :: env.parallelism]
        self.pos = 0

    def emit_next(self, max_records: int) -> Status:
        chunk = self.pending[self.pos : self.pos + max_records]
        self.pos += len(chunk)
        for i, v in chunk:
            self.output.collect(v, i if self.timestamps else None)
            if self.timestamps:
                self.output.emit_watermark(i)
        if self.pos >= len(self.pending):
            self.output.emit_watermark(MAX_WATERMARK)
            return Status.END_OF_INPUT
        return Status.MORE_AVAILABLE


class HostTestMap(StreamOperator):
    chaining_strategy = ChainingStrategy.ALWAYS

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    @classmethod
    def from_params(cls, params):
        return cls(params["function"])

    def process_element(self, value, timestamp) -> None:
        self.output.collect(self.fn(value), timestamp)


class HostTestRunningCount(StreamOperator):
    """Keyed: emits (key, count so far, subtask index) for every record."""

    def process_element(self, value, timestamp) -> None:
        state = self.get_partitioned_state(ValueStateDescriptor("count"))
        n = (state.value() or 0) + 1
        state.update(n)
        self.output.collect((self.get_current_key(), n, self.environment.subtask_index), timestamp)


class HostTestWatermarkLog(StreamOperator):
    """Emits ('wm', watermark) for every watermark it receives (then forwards it)."""

    chaining_strategy = ChainingStrategy.ALWAYS

    def process_element(self, value, timestamp) -> None:
        self.output.collect(value, timestamp)

    def process_watermark(self, watermark: int) -> None:
        self.output.collect(("wm", watermark), None)
        super().process_watermark(watermark)


class HostTestCollectSink(StreamOperator):
    chaining_strategy = ChainingStrategy.ALWAYS

    def process_element(self, value, timestamp) -> None:
        self.environment.collect(self.config.node_id, value)


class HostTestPrintSink(StreamOperator):
    chaining_strategy = ChainingStrategy.ALWAYS

    def process_element(self, value, timestamp) -> None:
        env = self.environment
        prefix = f"{env.subtask_index + 1}> " if env.parallelism > 1 else ""
        env.print_line(f"{prefix}{value}", False)


for _cls in (
    HostTestSource,
    HostTestMap,
    HostTestRunningCount,
    HostTestWatermarkLog,
    HostTestCollectSink,
    HostTestPrintSink,
):
    register_operator(_cls.__name__, _cls)
