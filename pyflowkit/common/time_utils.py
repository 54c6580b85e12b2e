"""Duration strings of Flink's configuration (``10 s``, ``500 ms``, ``1 min``).

Flink 1.11's ``org.apache.flink.util.TimeUtils.parseDuration`` and the wrapping error of
``Configuration.getOptional`` ("Could not parse value ... for key ...").
"""

from __future__ import annotations

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import LONG_MAX_VALUE

# TimeUtils.TimeUnit: (name, nanoseconds, labels); plural(...) labels also accept a trailing "s"
_TIME_UNITS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("DAYS", 86_400_000_000_000, ("d", "day", "days")),
    ("HOURS", 3_600_000_000_000, ("h", "hour", "hours")),
    ("MINUTES", 60_000_000_000, ("min", "minute", "minutes")),
    ("SECONDS", 1_000_000_000, ("s", "sec", "secs", "second", "seconds")),
    (
        "MILLISECONDS",
        1_000_000,
        ("ms", "milli", "millis", "millisecond", "milliseconds"),
    ),
    (
        "MICROSECONDS",
        1_000,
        ("µs", "micro", "micros", "microsecond", "microseconds"),
    ),
    ("NANOSECONDS", 1, ("ns", "nano", "nanos", "nanosecond", "nanoseconds")),
)
_NANOS_BY_LABEL = {label: nanos for _, nanos, labels in _TIME_UNITS for label in labels}


def _all_units() -> str:
    """``TimeUnit.getAllUnits()``: ``DAYS: (d | day | days), HOURS: (…), …``."""
    return ", ".join(f"{name}: ({' | '.join(labels)})" for name, _, labels in _TIME_UNITS)


def parse_duration(text: str) -> int:
    """``TimeUtils.parseDuration(text).toMillis()``: a number and an optional unit (default ms)."""
    trimmed = str(text).strip()
    if not trimmed:
        raise IllegalArgumentException("argument is an empty- or whitespace-only string")
    end = 0
    while end < len(trimmed) and trimmed[end].isdigit():
        end += 1
    number, unit_label = trimmed[:end], trimmed[end:].strip().lower()
    if not number:
        raise IllegalArgumentException("text does not start with a number")
    value = int(number)
    if value > LONG_MAX_VALUE:
        raise IllegalArgumentException(
            f"The value '{number}' cannot be re represented as 64bit number (numeric overflow)."
        )
    if not unit_label:
        return value
    if unit_label not in _NANOS_BY_LABEL:
        raise IllegalArgumentException(
            f"Time interval unit label '{unit_label}' does not match any of the recognized "
            f"units: {_all_units()}"
        )
    return value * _NANOS_BY_LABEL[unit_label] // 1_000_000


def parse_duration_option(key: str, text: str) -> int:
    """A duration option in ms; a bad value raises ``Could not parse value '…' for key '…'.``."""
    try:
        return parse_duration(text)
    except IllegalArgumentException as cause:
        raise IllegalArgumentException(
            f"Could not parse value '{text}' for key '{key}'. ({cause})"
        ) from cause
