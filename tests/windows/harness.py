"""A one-operator test host for window operators: manual clock, collecting output."""

from __future__ import annotations

from typing import Any

from pyflowkit.graph.transformations import OperatorFactory
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.output import CollectingOutput
from pyflowkit.operators.processing_time import ManualProcessingTimeService


class WindowHarness:
    """Flink's ``KeyedOneInputStreamOperatorTestHarness`` for one window operator subtask."""

    def __init__(
        self,
        operator_class: str = "WindowOperator",
        key_selector: Any = lambda v: v[0],
        parallelism: int = 1,
        subtask_index: int = 0,
        max_parallelism: int = 128,
        restored: Any = None,
        **params: Any,
    ) -> None:
        params.setdefault("allowed_lateness", 0)
        self.clock = ManualProcessingTimeService(0)
        self.env = TaskEnvironment(
            task_name="Window",
            subtask_index=subtask_index,
            parallelism=parallelism,
            max_parallelism=max_parallelism,
            processing_time_service=self.clock,
        )
        self.output = CollectingOutput()
        self.operator = OperatorFactory(operator_class, params=params).create()
        config = StreamConfig(operator_name="Window(test)", key_selector=key_selector)
        self.operator.setup(self.env, config, self.output)
        self.operator.initialize_state(restored)
        self.operator.open()

    def element(self, value: Any, timestamp: int | None = None) -> None:
        if self.operator._key_selector1 is not None:
            self.operator.set_key_context_element1(value)
        self.operator.process_element(value, timestamp)

    def watermark(self, watermark: int) -> None:
        self.operator.process_watermark(watermark)

    def set_processing_time(self, time: int) -> None:
        self.clock.set_current_time(time)

    @property
    def records(self) -> list[tuple[Any, int | None]]:
        return self.output.records

    @property
    def values(self) -> list[Any]:
        return self.output.values

    def snapshot(self) -> Any:
        return self.operator.snapshot_state(1, 0)
