"""GPRS usage alerts per geohash: alert when usage rises by more than 70 % twice in a row.

Modelled on a classic Flink CEP tutorial job (GPRS traffic per geohash cell): ``key_by(geohash)``,
``count_window(2, 1)`` turns consecutive readings into a delta, and a ``KeyedProcessFunction`` with
``ValueState`` alerts on two consecutive deltas above 70 %.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from pyflowkit.common import Types, WatermarkStrategy
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import KeyedProcessFunction, ProcessWindowFunction
from pyflowkit.datastream.state import ValueStateDescriptor

JOB_NAME = "GPRS usage alerts"
THRESHOLD = 0.70  # a delta above +70 % is a surge
GEOHASHES = ("u4pruyd", "u4pruyf", "u33dc1v", "gcpvj0e")
READINGS_PER_CELL = 10
START_MS = 1_600_000_000_000
READING_INTERVAL_MS = 60_000
#: (geohash, reading index) → usage multiplier: two consecutive surges in u4pruyf and gcpvj0e
#: (alerts), a single surge in u33dc1v (no alert).
SURGES = {
    ("u4pruyf", 4): 2.0,
    ("u4pruyf", 5): 4.0,
    ("u33dc1v", 7): 2.0,
    ("gcpvj0e", 8): 2.0,
    ("gcpvj0e", 9): 4.0,
}

EVENT_TYPE = Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()])  # geohash, ts, MB
DELTA_TYPE = Types.TUPLE([Types.STRING(), Types.LONG(), Types.DOUBLE()])  # geohash, ts, delta


def gprs_events(seed: int = 7) -> list[tuple[str, int, float]]:
    """Deterministic synthetic readings ``(geohash, timestamp ms, usage MB)`` in time order."""
    rng = random.Random(seed)
    events = []
    for reading in range(READINGS_PER_CELL):
        for cell, geohash in enumerate(GEOHASHES):
            baseline = 100.0 * (cell + 1)
            noise = rng.uniform(0.97, 1.03)  # at most ±6 % between normal readings
            usage = baseline * SURGES.get((geohash, reading), 1.0) * noise
            timestamp = START_MS + reading * READING_INTERVAL_MS + cell * 1_000
            events.append((geohash, timestamp, round(usage, 1)))
    return events


class ReadingTimestamp(TimestampAssigner):
    """Event time is the reading's timestamp."""

    def extract_timestamp(self, value: tuple[str, int, float], record_timestamp: int) -> int:
        return value[1]


class UsageDelta(ProcessWindowFunction):
    """Relative change between the two readings in a ``count_window(2, 1)``."""

    def process(
        self, key: str, context: ProcessWindowFunction.Context, elements: Iterable[tuple]
    ) -> Iterable[tuple[str, int, float]]:
        readings = list(elements)
        if len(readings) < 2:  # the first reading of a cell has nothing to compare with
            return
        (_, _, previous), (_, timestamp, current) = readings[-2], readings[-1]
        yield key, timestamp, (current - previous) / previous


class TwoConsecutiveSurges(KeyedProcessFunction):
    """Alerts when a cell's delta exceeds the threshold twice in a row (keyed ``ValueState``)."""

    def open(self, runtime_context) -> None:
        descriptor = ValueStateDescriptor("previous_delta", Types.DOUBLE())
        self.previous_delta = runtime_context.get_state(descriptor)

    def process_element(self, value: tuple[str, int, float], ctx) -> Iterable[str]:
        geohash, timestamp, delta = value
        previous = self.previous_delta.value()
        if previous is not None and previous > THRESHOLD and delta > THRESHOLD:
            yield alert_text(geohash, timestamp, previous, delta)
        self.previous_delta.update(delta)


def alert_text(geohash: str, timestamp: int, previous: float, delta: float) -> str:
    return f"ALERT {geohash} at {timestamp}: GPRS usage up {previous:.0%}, then {delta:.0%}"


def build(env: StreamExecutionEnvironment) -> None:
    """Source → Timestamps/Watermarks → keyed count window (delta) → keyed alerts → print."""
    env.set_parallelism(2)
    readings = env.from_collection(gprs_events(), type_info=EVENT_TYPE)
    readings = readings.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(ReadingTimestamp())
    )
    deltas = (
        readings.key_by(lambda event: event[0], key_type=Types.STRING())
        .count_window(2, 1)
        .process(UsageDelta(), output_type=DELTA_TYPE)
    )
    alerts = deltas.key_by(lambda delta: delta[0], key_type=Types.STRING()).process(
        TwoConsecutiveSurges(), output_type=Types.STRING()
    )
    alerts.print()


def expected_output(events: list[tuple[str, int, float]] | None = None) -> list[str]:
    """The alerts computed in plain Python (order: by time, as one cell's alerts are ordered)."""
    last: dict[str, float] = {}
    previous_delta: dict[str, float] = {}
    alerts = []
    for geohash, timestamp, usage in events if events is not None else gprs_events():
        if geohash in last:
            delta = (usage - last[geohash]) / last[geohash]
            before = previous_delta.get(geohash)
            if before is not None and before > THRESHOLD and delta > THRESHOLD:
                alerts.append(alert_text(geohash, timestamp, before, delta))
            previous_delta[geohash] = delta
        last[geohash] = usage
    return alerts


def check_printed(lines: list[str]) -> bool:
    """Whether print-sink lines (``k> ALERT …``) are exactly the plain-Python alerts."""
    bodies = [line.split("> ", 1)[1] if "> " in line else line for line in lines]
    return sorted(bodies) == sorted(expected_output())


def main() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    build(env)
    env.execute(JOB_NAME)


if __name__ == "__main__":
    main()
