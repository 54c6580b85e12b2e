"""CEP jobs for the runtime, Spark and recovery tests, with their results computed in plain Python."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pyflowkit.cep import CEP, Pattern
from pyflowkit.common import Configuration, WatermarkStrategy
from pyflowkit.common.restart_strategy import RestartStrategies
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import StreamExecutionEnvironment, TimeCharacteristic

KEYS = ("k0", "k1", "k2", "k3", "k4")
WITHIN = 25  # ms


def readings(n: int = 120) -> list[tuple[str, int, int]]:
    """(key, event time, level): a deterministic mix where some levels exceed 70."""
    out = []
    for i in range(n):
        key = KEYS[(i * 7) % len(KEYS)]
        level = (i * 37 + (i // 5) * 11) % 100
        out.append((key, i * 3, level))
    return out


class EventTime(TimestampAssigner):
    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return value[1]


def high(e: tuple[str, int, int]) -> bool:
    return e[2] > 70


def two_high_pattern() -> Pattern:
    """Two consecutive high levels of one key within ``WITHIN`` ms (the reference job's shape)."""
    return (
        Pattern.begin("first").where(high).next("second").where(high).within(WITHIN)
    )  # fmt: skip


def pair(match: dict[str, list]) -> tuple[str, int, int]:
    first, second = match["first"][0], match["second"][0]
    return (first[0], first[1], second[1])


def expected_pairs(
    events: list[tuple[str, int, int]] | None = None, within: int = WITHIN
) -> Counter[Any]:
    """The hand-written per-key state machine: previous event high, this one high, in window."""
    last: dict[str, tuple[str, int, int]] = {}
    out: Counter[Any] = Counter()
    for e in events if events is not None else readings():
        prev = last.get(e[0])
        if prev is not None and high(prev) and high(e) and e[1] - prev[1] < within:
            out[(e[0], prev[1], e[1])] += 1
        last[e[0]] = e
    return out


def environment(
    parallelism: int, *, interval: int | None = None, local: bool = True
) -> StreamExecutionEnvironment:
    conf = Configuration()
    if local:
        conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)
    if interval is not None:
        env.enable_checkpointing(interval)
        env.set_restart_strategy(RestartStrategies.fixed_delay_restart(1000, 10))
    return env


def keyed_pairs(env: StreamExecutionEnvironment, events: list | None = None) -> Any:
    """readings → event time → key_by(key) → CEP(two high) → select(pair)."""
    stream = env.from_collection(events if events is not None else readings())
    stream = stream.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    return CEP.pattern(stream.key_by(lambda e: e[0]), two_high_pattern()).select(pair)


def strip(lines: list[str]) -> list[str]:
    return [line.split("> ", 1)[1] if "> " in line[:5] else line for line in lines]
