"""Restart-strategy configurations (PyFlink's ``pyflink.common.restart_strategy``).

Flink's ``RestartStrategies`` and its ``RestartStrategyConfiguration`` classes, with Flink 1.11's
``getDescription()`` texts. Delays are milliseconds (``int``), a ``timedelta``, ``Time`` or
``Duration``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pyflowkit.common.time import Duration, Time


def _to_millis(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what} must be milliseconds (int), a timedelta, Time or Duration.")
    if isinstance(value, int):
        ms = value
    elif isinstance(value, timedelta):
        ms = int(value / timedelta(milliseconds=1))
    elif isinstance(value, (Time, Duration)):
        ms = value.to_milliseconds()
    else:
        raise TypeError(
            f"{what} must be milliseconds (int), a timedelta, Time or Duration; got {value!r}."
        )
    if ms < 0:
        raise ValueError(f"{what} must not be negative, got {ms} ms.")
    return ms


def _count(value: Any, what: str, low: int) -> int:
    """An int >= ``low`` (restart attempts, failure rate), else an error naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {value!r}.")
    if value < low:
        rule = "must not be negative" if low == 0 else f"must be an int >= {low}"
        raise ValueError(f"{what} {rule}, got {value}.")
    return value


class RestartStrategyConfiguration:
    """Flink's ``RestartStrategies.RestartStrategyConfiguration``."""

    def get_description(self) -> str:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(vars(self).items()))))


class NoRestartStrategyConfiguration(RestartStrategyConfiguration):
    """Flink's ``NoRestartStrategyConfiguration``: never restart."""

    def get_description(self) -> str:
        return "Restart deactivated."

    def __repr__(self) -> str:
        return "NoRestartStrategyConfiguration{}"


class FixedDelayRestartStrategyConfiguration(RestartStrategyConfiguration):
    """Flink's ``FixedDelayRestartStrategyConfiguration``: n attempts, a fixed delay between."""

    def __init__(
        self, restart_attempts: int | None = None, delay_between_attempts_interval: Any = None
    ) -> None:
        """PyFlink's keyword form; intervals are ms, ``timedelta``, ``Time`` or ``Duration``."""
        self.restart_attempts = _count(restart_attempts, "restart_attempts", 0)
        self.delay_between_attempts_interval_ms = _to_millis(
            delay_between_attempts_interval, "delay_between_attempts_interval"
        )

    def get_restart_attempts(self) -> int:
        return self.restart_attempts

    def get_delay_between_attempts_interval(self) -> timedelta:
        return timedelta(milliseconds=self.delay_between_attempts_interval_ms)

    def get_description(self) -> str:
        delay = Time(self.delay_between_attempts_interval_ms)
        return f"Restart with fixed delay ({delay}). #{self.restart_attempts} restart attempts."

    def __repr__(self) -> str:
        return (
            f"FixedDelayRestartStrategyConfiguration{{restartAttempts={self.restart_attempts}, "
            f"delayBetweenAttemptsInterval={Time(self.delay_between_attempts_interval_ms)}}}"
        )


class FailureRateRestartStrategyConfiguration(RestartStrategyConfiguration):
    """Flink's ``FailureRateRestartStrategyConfiguration``: at most n failures per interval."""

    def __init__(
        self,
        max_failure_rate: int | None = None,
        failure_interval: Any = None,
        delay_between_attempts_interval: Any = None,
    ) -> None:
        """PyFlink's keyword form; intervals are ms, ``timedelta``, ``Time`` or ``Duration``."""
        self.max_failure_rate = _count(max_failure_rate, "max_failure_rate", 1)
        self.failure_interval_ms = _to_millis(failure_interval, "failure_interval")
        self.delay_between_attempts_interval_ms = _to_millis(
            delay_between_attempts_interval, "delay_between_attempts_interval"
        )

    def get_max_failure_rate(self) -> int:
        return self.max_failure_rate

    def get_failure_interval(self) -> timedelta:
        return timedelta(milliseconds=self.failure_interval_ms)

    def get_delay_between_attempts_interval(self) -> timedelta:
        return timedelta(milliseconds=self.delay_between_attempts_interval_ms)

    def get_description(self) -> str:
        return (
            f"Failure rate restart with maximum of {self.max_failure_rate} failures within "
            f"interval {Time(self.failure_interval_ms)} and fixed delay "
            f"{Time(self.delay_between_attempts_interval_ms)}."
        )

    def __repr__(self) -> str:
        return (
            f"FailureRateRestartStrategyConfiguration{{maxFailureRate={self.max_failure_rate}, "
            f"failureInterval={Time(self.failure_interval_ms)}, "
            f"delayBetweenAttemptsInterval={Time(self.delay_between_attempts_interval_ms)}}}"
        )


class FallbackRestartStrategyConfiguration(RestartStrategyConfiguration):
    """Flink's ``FallbackRestartStrategyConfiguration``: use the cluster's restart strategy."""

    def get_description(self) -> str:
        return "Cluster level default restart strategy"

    def __repr__(self) -> str:
        return "FallbackRestartStrategyConfiguration{}"


class RestartStrategies:
    """PyFlink's ``RestartStrategies``: factory of restart-strategy configurations."""

    NoRestartStrategyConfiguration = NoRestartStrategyConfiguration
    FixedDelayRestartStrategyConfiguration = FixedDelayRestartStrategyConfiguration
    FailureRateRestartStrategyConfiguration = FailureRateRestartStrategyConfiguration
    FallbackRestartStrategyConfiguration = FallbackRestartStrategyConfiguration

    @staticmethod
    def no_restart() -> RestartStrategyConfiguration:
        return NoRestartStrategyConfiguration()

    @staticmethod
    def fall_back_restart() -> RestartStrategyConfiguration:
        return FallbackRestartStrategyConfiguration()

    @staticmethod
    def fixed_delay_restart(
        restart_attempts: int, delay_between_attempts: Any
    ) -> RestartStrategyConfiguration:
        _count(restart_attempts, "restart_attempts", 0)
        delay = _to_millis(delay_between_attempts, "delay_between_attempts")
        return FixedDelayRestartStrategyConfiguration(restart_attempts, delay)

    @staticmethod
    def failure_rate_restart(
        failure_rate: int, failure_interval: Any, delay_interval: Any
    ) -> RestartStrategyConfiguration:
        if isinstance(failure_rate, bool) or not isinstance(failure_rate, int) or failure_rate < 1:
            raise ValueError(f"failure_rate must be an int >= 1, got {failure_rate!r}.")
        interval = _to_millis(failure_interval, "failure_interval")
        delay = _to_millis(delay_interval, "delay_interval")
        return FailureRateRestartStrategyConfiguration(failure_rate, interval, delay)
