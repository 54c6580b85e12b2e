"""A job whose map function registers every kind of metric (importable on Spark's workers)."""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Types
from pyflowkit.datastream import MapFunction, StreamExecutionEnvironment

VALUES = list(range(1, 21))


class MeasuringMap(MapFunction):
    """Counts records, tracks the largest, meters events and records a distribution of values."""

    def open(self, runtime_context: Any) -> None:
        group = runtime_context.get_metrics_group().add_group("app", "measuring")
        self.records = group.counter("records")
        self.evens = group.counter("evens")
        self.largest = 0
        group.gauge("largest", lambda: self.largest)
        self.events = group.meter("events", time_span_in_seconds=60)
        self.sizes = group.distribution("sizes")

    def map(self, value: int) -> int:
        self.records.inc()
        if value % 2 == 0:
            self.evens.inc(2)
            self.evens.dec()
        self.largest = max(self.largest, value)
        self.events.mark_event()
        self.sizes.update(value)
        return value * 10


def metrics_job(env: StreamExecutionEnvironment) -> None:
    env.set_parallelism(2)
    numbers = env.from_collection(VALUES, type_info=Types.INT())
    numbers.rebalance().map(MeasuringMap(), output_type=Types.INT()).name("Measure").print("out")
