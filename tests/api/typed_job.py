"""A typed PyFlink job (subscripted ``Generic`` functions), importable on Spark's workers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pyflowkit.common import Duration, Types, WatermarkStrategy
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import (
    KeyedProcessFunction,
    ProcessWindowFunction,
    RuntimeContext,
)
from pyflowkit.datastream.state import ValueState, ValueStateDescriptor
from pyflowkit.datastream.window import TimeWindow as TW
from pyflowkit.datastream.window import Trigger, TriggerResult, TumblingEventTimeWindows


class Ts(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return value[1]


class SumPerWindow(ProcessWindowFunction[tuple, tuple, str, TW]):
    """A typed window function as PyFlink programs declare it."""

    def process(
        self, key: str, context: ProcessWindowFunction.Context[TW], elements: Iterable[tuple]
    ) -> Iterable[tuple]:
        window = context.window()
        yield (key, window.start, window.end, sum(e[2] for e in elements))


class FireEveryTwo(Trigger[tuple, TW]):
    """A typed user trigger: fires each second element and at the window end."""

    def on_element(self, element: tuple, timestamp: int, window: TW, ctx: Any) -> TriggerResult:
        ctx.register_event_time_timer(window.max_timestamp())
        return TriggerResult.FIRE if element[2] % 2 == 0 else TriggerResult.CONTINUE

    def on_processing_time(self, time: int, window: TW, ctx: Any) -> TriggerResult:
        return TriggerResult.CONTINUE

    def on_event_time(self, time: int, window: TW, ctx: Any) -> TriggerResult:
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def clear(self, window: TW, ctx: Any) -> None:
        ctx.delete_event_time_timer(window.max_timestamp())


class RunningCount(KeyedProcessFunction):
    def open(self, runtime_context: RuntimeContext) -> None:
        self.count: ValueState[int] = runtime_context.get_state(
            ValueStateDescriptor("count", Types.INT())
        )

    def process_element(self, value: tuple, ctx: Any) -> Iterable[tuple]:
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        yield (value[0], n)


ROWS = [("a", 1, 1), ("b", 2, 2), ("a", 4, 2), ("a", 12, 3), ("b", 15, 4)]
# Each pane fires on its even element (sum so far) and again at the window end.
EXPECTED_WINDOWS = sorted(
    [
        ("a", 0, 10, 3),  # element value 2: 1 + 2
        ("a", 0, 10, 3),  # window end
        ("b", 0, 10, 2),
        ("b", 0, 10, 2),
        ("a", 10, 20, 3),  # odd: only the window end
        ("b", 10, 20, 4),
        ("b", 10, 20, 4),
    ]
)


def typed_job(env: StreamExecutionEnvironment) -> None:
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(Ts())
    keyed = (
        env.from_collection(ROWS)
        .assign_timestamps_and_watermarks(strategy)
        .key_by(lambda r: r[0], key_type=Types.STRING())
    )
    keyed.window(TumblingEventTimeWindows.of(Duration.of_millis(10))).trigger(
        FireEveryTwo()
    ).process(SumPerWindow()).print("win")
    keyed.process(RunningCount()).print("count")
