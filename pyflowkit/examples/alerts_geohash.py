"""AlertsGeoHashRepSubJob: GPRS usage alarms per geohash with Flink CEP, as the reference story writes it.

An endless generator of ``GeoHashEvent``s (pause 1000 ms, events std 100, mean 180, 1 zone;
seeded with Java's ``java.util.Random``) → ``key_by(geohash)`` → ``count_window(2, 1).apply(...)``
giving each event its usage delta (the first event of a key gets 0) → ``key_by(geohash)`` → the
pattern ``begin("first").where(delta > 70 %).next("second").where(delta > 70 %)
.within(Time.minutes(15))`` → ``select`` a ``(first, second)`` pair → ``print("ALARM")``.
Parallelism 1, processing time (Flink 1.11's default). The condition does Java's ``int``
arithmetic: ``delta * 100`` wraps at 32 bits and ``/ total`` truncates toward zero, then the
quotient becomes a double compared with 70.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pyflowkit.cep import CEP, Pattern
from pyflowkit.common import Configuration, Time
from pyflowkit.common.flink_version import FLINK_VERSION_KEY, V1_11
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.datastream.functions import SourceFunction, WindowFunction

JOB_NAME = "AlertsGeoHashRepSubJob"
PAUSE_MS = 1000  # the generator's pause between events
EVENTS_STD = 100
EVENTS_MEAN = 180
ZONES = 1
SEED = 71
GEOHASHES = ("u4pruyd", "u4pruyf", "u33dc1v", "gcpvj0e")  # zone i uses GEOHASHES[i]
THRESHOLD_PERCENT = 70
DEMO_EVENTS = 60  # a bounded run (demo, Spark batch, tests); None runs endlessly


@dataclass(frozen=True)
class GeoHashEvent:
    """The story's ``GeoHashEvent``: a geohash cell, its GPRS events and their change."""

    geohash: str
    total_gprs_events: int
    delta_gprs_events: int = 0

    def __repr__(self) -> str:  # Java's toString
        return (
            f"GeoHashEvent{{geohash='{self.geohash}', totalGprsEvents={self.total_gprs_events}, "
            f"deltaGprsEvents={self.delta_gprs_events}}}"
        )


# ---- Java arithmetic --------------------------------------------------------------------------
def java_int(x: int) -> int:
    """A Java ``int``: two's complement, 32 bits."""
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def java_int_div(a: int, b: int) -> int:
    """Java's ``int / int``: truncates toward zero (``ArithmeticException`` on zero)."""
    if b == 0:
        raise ZeroDivisionError("/ by zero")
    q = abs(a) // abs(b)
    return java_int(q if (a >= 0) == (b > 0) else -q)


class JavaRandom:
    """``java.util.Random``: the 48-bit LCG and ``nextGaussian`` (polar method), so a seed gives
    the same numbers as the Java job."""

    _MULT, _ADD, _MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1

    def __init__(self, seed: int) -> None:
        self._seed = (seed ^ self._MULT) & self._MASK
        self._next_next_gaussian: float | None = None

    def _next(self, bits: int) -> int:
        self._seed = (self._seed * self._MULT + self._ADD) & self._MASK
        return java_int(self._seed >> (48 - bits))

    def next_double(self) -> float:
        return ((self._next(26) << 27) + self._next(27)) * (1.0 / (1 << 53))

    def next_gaussian(self) -> float:
        if self._next_next_gaussian is not None:
            value, self._next_next_gaussian = self._next_next_gaussian, None
            return value
        while True:
            v1 = 2 * self.next_double() - 1
            v2 = 2 * self.next_double() - 1
            s = v1 * v1 + v2 * v2
            if 0 < s < 1:
                break
        multiplier = math.sqrt(-2 * math.log(s) / s)
        self._next_next_gaussian = v2 * multiplier
        return v1 * multiplier


def generate(max_events: int | None = DEMO_EVENTS, seed: int = SEED) -> Iterator[GeoHashEvent]:
    """The generator's events: per round one event per zone, ``(int)(gaussian * std + mean)``
    GPRS events (at least 1)."""
    rng = JavaRandom(seed)
    n = 0
    while max_events is None or n < max_events:
        for zone in range(ZONES):
            total = max(1, java_int(int(rng.next_gaussian() * EVENTS_STD + EVENTS_MEAN)))
            yield GeoHashEvent(GEOHASHES[zone % len(GEOHASHES)], total)
            n += 1
            if max_events is not None and n >= max_events:
                return


class GeoHashEventsGenerator(SourceFunction):
    """The story's generator source (``SourceFunction``); endless when ``max_events`` is None.

    The Java source sleeps ``PAUSE_MS`` after each event; ``ctx.sleep`` is that pause: on the
    simulated cluster it passes on the simulated clock (processing time, which the CEP
    operator's ``within`` and the checkpoint interval see); Spark does not wait. The records
    also carry ``i * PAUSE_MS`` as their timestamps.
    """

    def __init__(self, max_events: int | None = DEMO_EVENTS, seed: int = SEED) -> None:
        self.max_events = max_events
        self.seed = seed

    def run(self, ctx: Any) -> Iterator[None]:
        for i, event in enumerate(generate(self.max_events, self.seed)):
            ctx.collect_with_timestamp(event, i * PAUSE_MS)
            ctx.sleep(PAUSE_MS)
            yield None

    def cancel(self) -> None:
        self.max_events = 0


class GprsDelta(WindowFunction):
    """``countWindow(2, 1).apply``: the newest event with its change from the one before (0 for
    the first event of a geohash, whose window holds only itself)."""

    def apply(
        self, key: str, window: Any, inputs: Iterable[GeoHashEvent]
    ) -> Iterable[GeoHashEvent]:
        events = list(inputs)
        last = events[-1]
        delta = (
            java_int(last.total_gprs_events - events[0].total_gprs_events)
            if len(events) == 2
            else 0
        )
        yield GeoHashEvent(last.geohash, last.total_gprs_events, delta)


def is_surge(event: GeoHashEvent) -> bool:
    """``(double) (delta * 100 / total) > 70`` with Java ``int`` arithmetic."""
    percent = java_int_div(java_int(event.delta_gprs_events * 100), event.total_gprs_events)
    return float(percent) > THRESHOLD_PERCENT


def alarm_pattern() -> Pattern:
    """Two consecutive surges of one geohash within 15 minutes."""
    return (
        Pattern.begin("first").where(is_surge)
        .next("second").where(is_surge)
        .within(Time.minutes(15))
    )  # fmt: skip


def to_alarm(match: dict[str, list[GeoHashEvent]]) -> tuple[GeoHashEvent, GeoHashEvent]:
    """``PatternSelectFunction``: the ``(first, second)`` pair."""
    return (match["first"][0], match["second"][0])


def generator_source(env: StreamExecutionEnvironment, max_events: int | None = DEMO_EVENTS) -> Any:
    """``env.addSource(new GeoHashEventsGenerator(...))``; bounded when ``max_events`` is set."""
    events = env.add_source(GeoHashEventsGenerator(max_events))
    if max_events is not None:  # the generator stops after max_events: a bounded source
        t = events.get_transformation()
        t.boundedness = type(t.boundedness).BOUNDED  # Flink's Boundedness.BOUNDED
    return events


def build(env: StreamExecutionEnvironment, max_events: int | None = DEMO_EVENTS) -> None:
    """The job as written; ``max_events=None`` makes the generator endless. The seed job runs on
    Flink 1.11 (the classroom's version), pinned here whatever the environment's default."""
    env.configure(Configuration().set_string(FLINK_VERSION_KEY, V1_11))
    env.set_parallelism(1)
    events = generator_source(env, max_events)
    deltas = (
        events.key_by(lambda e: e.geohash)
        .count_window(2, 1)
        .apply(GprsDelta())
    )  # fmt: skip
    alarms = CEP.pattern(deltas.key_by(lambda e: e.geohash), alarm_pattern()).select(to_alarm)
    alarms.print("ALARM")


def alarm_line(first: GeoHashEvent, second: GeoHashEvent) -> str:
    """A printed alarm as Flink's ``Tuple2.toString``: ``ALARM> (first,second)``."""
    return f"ALARM> {(first, second)!s}"


def expected_output(max_events: int | None = DEMO_EVENTS) -> list[str]:
    """The alarms computed in plain Python: consecutive surges of a geohash (1 s apart, well
    within 15 minutes)."""
    last_total: dict[str, int] = {}
    previous: dict[str, GeoHashEvent] = {}
    out = []
    for e in generate(max_events):
        before = last_total.get(e.geohash)
        delta = java_int(e.total_gprs_events - before) if before is not None else 0
        current = GeoHashEvent(e.geohash, e.total_gprs_events, delta)
        prev = previous.get(e.geohash)
        if prev is not None and is_surge(prev) and is_surge(current):
            out.append(alarm_line(prev, current))
        previous[e.geohash] = current
        last_total[e.geohash] = e.total_gprs_events
    return out


def check_printed(lines: list[str]) -> bool:
    """Whether the print sink's lines are exactly the plain-Python alarms."""
    return sorted(lines) == sorted(expected_output())


def main() -> None:
    """The seed job runs on Flink 1.11 (the classroom's version): ``build`` pins it."""
    env = StreamExecutionEnvironment.get_execution_environment()
    build(env)
    env.execute(JOB_NAME)


if __name__ == "__main__":
    main()
