"""Jobs with TTL state for the simulated cluster and Spark (importable on Spark's workers)."""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Time
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction
from pyflowkit.datastream.state import StateTtlConfig, ValueStateDescriptor


def _ttl(ms: int) -> StateTtlConfig:
    return StateTtlConfig.new_builder(Time.milliseconds(ms)).build()


class LastSeen(KeyedProcessFunction):
    """Emits (key, i, now, previous value of a 1 ms TTL state), then writes i."""

    def open(self, ctx: Any) -> None:
        d = ValueStateDescriptor("last", None)
        d.enable_time_to_live(_ttl(1))
        self.last = ctx.get_state(d)

    def process_element(self, value: tuple, ctx: Any) -> Any:
        now = ctx.timer_service().current_processing_time()
        yield (value[0], value[1], now, self.last.value())
        self.last.update(value[1])


def last_seen_job(env: StreamExecutionEnvironment, n: int) -> None:
    data = [(k, i) for i in range(n) for k in "ab"]
    env.from_collection(data).key_by(lambda t: t[0]).process(LastSeen()).print("seen")
