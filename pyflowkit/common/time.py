"""``Duration``, ``Time`` and ``Instant`` (PyFlink's ``pyflink.common.time``)."""

from __future__ import annotations

from functools import total_ordering


@total_ordering
class _Amount:
    """An amount of time compared by one integer (nanoseconds or milliseconds)."""

    __slots__ = ()

    def _amount(self) -> int:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._amount() == other._amount()  # type: ignore[attr-defined]

    def __lt__(self, other: _Amount) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._amount() < other._amount()

    def __hash__(self) -> int:
        return hash(self._amount())


class Duration(_Amount):
    """PyFlink's ``Duration`` (Java's ``java.time.Duration``), held in nanoseconds."""

    __slots__ = ("_nanos",)

    def __init__(self, nanos: int) -> None:
        if isinstance(nanos, bool) or not isinstance(nanos, int):
            raise TypeError(f"Duration needs an int number of nanoseconds, got {nanos!r}.")
        self._nanos = nanos

    @staticmethod
    def of_days(days: int) -> Duration:
        return Duration(int(days) * 86_400_000_000_000)

    @staticmethod
    def of_hours(hours: int) -> Duration:
        return Duration(int(hours) * 3_600_000_000_000)

    @staticmethod
    def of_minutes(minutes: int) -> Duration:
        return Duration(int(minutes) * 60_000_000_000)

    @staticmethod
    def of_seconds(seconds: int) -> Duration:
        return Duration(int(seconds) * 1_000_000_000)

    @staticmethod
    def of_millis(millis: int) -> Duration:
        return Duration(int(millis) * 1_000_000)

    @staticmethod
    def of_nanos(nanos: int) -> Duration:
        return Duration(int(nanos))

    def to_milliseconds(self) -> int:
        return self._nanos // 1_000_000

    def to_nanos(self) -> int:
        return self._nanos

    def _amount(self) -> int:
        return self._nanos

    def __repr__(self) -> str:
        return f"Duration.of_millis({self.to_milliseconds()})"

    def __str__(self) -> str:
        """Java's ISO-8601 ``Duration.toString`` for whole milliseconds (``PT5S``, ``PT0.1S``)."""
        ms = self.to_milliseconds()
        if ms == 0:
            return "PT0S"
        sign = "-" if ms < 0 else ""
        ms = abs(ms)
        hours, rem = divmod(ms, 3_600_000)
        minutes, rem = divmod(rem, 60_000)
        seconds, millis = divmod(rem, 1000)
        out = "PT"
        if hours:
            out += f"{sign}{hours}H"
        if minutes:
            out += f"{sign}{minutes}M"
        if seconds or millis:
            frac = f".{millis:03d}".rstrip("0") if millis else ""
            out += f"{sign}{seconds}{frac}S"
        return out


class Time(_Amount):
    """PyFlink's ``Time`` (Flink's ``org.apache.flink.api.common.time.Time``), in milliseconds."""

    __slots__ = ("_milliseconds",)

    def __init__(self, milliseconds: int) -> None:
        if isinstance(milliseconds, bool) or not isinstance(milliseconds, int):
            raise TypeError(f"Time needs an int number of milliseconds, got {milliseconds!r}.")
        self._milliseconds = milliseconds

    @staticmethod
    def milliseconds(milliseconds: int) -> Time:
        return Time(int(milliseconds))

    @staticmethod
    def seconds(seconds: int) -> Time:
        return Time(int(seconds) * 1000)

    @staticmethod
    def minutes(minutes: int) -> Time:
        return Time(int(minutes) * 60_000)

    @staticmethod
    def hours(hours: int) -> Time:
        return Time(int(hours) * 3_600_000)

    @staticmethod
    def days(days: int) -> Time:
        return Time(int(days) * 86_400_000)

    def to_milliseconds(self) -> int:
        return self._milliseconds

    def _amount(self) -> int:
        return self._milliseconds

    def __repr__(self) -> str:
        return f"Time.milliseconds({self._milliseconds})"

    def __str__(self) -> str:
        """Flink's ``Time.toString()``: ``<ms> ms``."""
        return f"{self._milliseconds} ms"


class Instant:
    """PyFlink's ``Instant``: a point on the time line (epoch seconds + nanos)."""

    def __init__(self, seconds: int, nanos: int) -> None:
        self.seconds = seconds
        self.nanos = nanos

    @staticmethod
    def of_epoch_milli(epoch_milli: int) -> Instant:
        secs, ms = divmod(int(epoch_milli), 1000)
        return Instant(secs, ms * 1_000_000)

    def to_epoch_milli(self) -> int:
        return self.seconds * 1000 + self.nanos // 1_000_000

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Instant) and (self.seconds, self.nanos) == (
            other.seconds,
            other.nanos,
        )

    def __hash__(self) -> int:
        return hash((self.seconds, self.nanos))

    def __repr__(self) -> str:
        return f"Instant({self.seconds}, {self.nanos})"
