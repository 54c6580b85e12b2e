"""Java long bounds and time conversion shared by windows, triggers, assigners and evictors."""

from __future__ import annotations

import datetime
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import LONG_MAX_VALUE, LONG_MIN_VALUE

MIN_LONG_VALUE = LONG_MIN_VALUE  # PyFlink's names in pyflink.datastream.window
MAX_LONG_VALUE = LONG_MAX_VALUE

NO_TIMESTAMP_MESSAGE = (
    "Record has Long.MIN_VALUE timestamp (= no timestamp marker). Is the time characteristic "
    "set to 'ProcessingTime', or did you forget to call "
    "'DataStream.assignTimestampsAndWatermarks(...)'?"
)


def to_millis(value: Any, what: str) -> int:
    """Milliseconds of a ``Time``/``Duration`` (has ``to_milliseconds()``), timedelta or int."""
    if isinstance(value, bool):
        raise IllegalArgumentException(f"{what} must be a Time or milliseconds, got {value!r}.")
    if isinstance(value, int):
        return value
    if hasattr(value, "to_milliseconds"):
        return int(value.to_milliseconds())
    if isinstance(value, datetime.timedelta):
        return value // datetime.timedelta(milliseconds=1)
    raise IllegalArgumentException(f"{what} must be a Time or milliseconds, got {value!r}.")


def _java_rem(a: int, b: int) -> int:
    """Java's ``%`` on longs (the result takes the sign of the dividend)."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r
