"""A broadcast state job: thresholds broadcast to every subtask, events keyed by sensor."""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import BroadcastProcessFunction, KeyedBroadcastProcessFunction
from pyflowkit.datastream.state import MapStateDescriptor, ValueStateDescriptor

RULES = MapStateDescriptor("rules", Types.STRING(), Types.INT())
COUNT = ValueStateDescriptor("count", Types.INT())


class Alert(KeyedBroadcastProcessFunction[str, tuple, tuple, tuple]):
    """Counts readings per sensor; alerts above the broadcast threshold of its kind."""

    def open(self, ctx: Any) -> None:
        self.count = ctx.get_state(COUNT)

    def process_element(self, value: tuple, ctx: Any) -> Any:
        self.count.update((self.count.value() or 0) + 1)
        threshold = ctx.get_broadcast_state(RULES).get(value[1])
        if threshold is not None and value[2] > threshold:
            yield ("alert", ctx.get_current_key(), value[2], threshold)

    def process_broadcast_element(self, value: tuple, ctx: Any) -> Any:
        ctx.get_broadcast_state(RULES).put(value[0], value[1])
        if value[0] == "reset":
            ctx.apply_to_keyed_state(COUNT, lambda key, state: state.clear())
        return None


class Tag(BroadcastProcessFunction[int, str, str]):
    def process_element(self, value: int, ctx: Any) -> Any:
        prefix = ctx.get_broadcast_state(RULES).get("prefix")
        yield f"{prefix}{value}"

    def process_broadcast_element(self, value: str, ctx: Any) -> Any:
        ctx.get_broadcast_state(RULES).put("prefix", value)
        return None


def alert_job(env: StreamExecutionEnvironment, events: list[tuple], rules: list[tuple]) -> Any:
    rules_stream = env.from_collection(rules).broadcast(RULES)
    return (
        env.from_collection(events)
        .key_by(lambda e: e[0], key_type=Types.STRING())
        .connect(rules_stream)
        .process(Alert())
    )
