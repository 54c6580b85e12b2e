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

    def __init__(self, restart_attempts: int, delay_between_attempts_interval: int) -> None:
        self.restart_attempts = restart_attempts
        self.delay_between_attempts_interval_ms = delay_between_attempts_interval

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
        self, max_failure_rate: int, failure_interval: int, delay_between_attempts_interval: int
    ) -> None:  # noqa: E501
        self.max_failure_rate = max_failure_rate
        self.failure_interval_ms = failure_interval
        self.delay_between_attempts_interval_ms = delay_between_attempts_interval

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
        if isinstance(restart_attempts, bool) or not isinstance(restart_attempts, int):
            raise TypeError(f"restart_attempts must be an int, got {restart_attempts!r}.")
        if restart_attempts < 0:
            raise ValueError(f"restart_attempts must not be negative, got {restart_attempts}.")
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
