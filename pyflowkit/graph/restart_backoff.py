"""Restart back-off strategies on a host's clock (Flink's ``RestartBackoffTimeStrategy``s), used by the
simulated cluster's scheduler and the Spark streaming job alike."""

from __future__ import annotations

from collections import deque
from typing import Any

from pyflowkit.common.restart_strategy import (
    FailureRateRestartStrategyConfiguration,
    FixedDelayRestartStrategyConfiguration,
    NoRestartStrategyConfiguration,
)
from pyflowkit.java_semantics import INT_MAX_VALUE


class RestartBackoffTimeStrategy:
    """Flink's ``RestartBackoffTimeStrategy``: ``notify_failure`` then ``can_restart``/delay.

    Abstract base (Flink's interface): the strategies below implement both methods.
    """

    backoff_time: int = 0

    def notify_failure(self, now: int) -> None:
        raise NotImplementedError

    def can_restart(self) -> bool:
        raise NotImplementedError


class NoRestartBackoffTimeStrategy(RestartBackoffTimeStrategy):
    """Flink's ``NoRestartBackoffTimeStrategy``: never restart."""

    def notify_failure(self, now: int) -> None:
        pass

    def can_restart(self) -> bool:
        return False

    def __str__(self) -> str:
        return "NoRestartBackoffTimeStrategy"


class FixedDelayRestartBackoffTimeStrategy(RestartBackoffTimeStrategy):
    """Flink's ``FixedDelayRestartBackoffTimeStrategy``: ``canRestart`` ⇔ failures ≤ attempts."""

    def __init__(self, max_attempts: int, backoff_time: int) -> None:
        self.max_number_restart_attempts = max_attempts
        self.backoff_time = backoff_time
        self.current_restart_attempt = 0

    def notify_failure(self, now: int) -> None:
        self.current_restart_attempt += 1

    def can_restart(self) -> bool:
        return self.current_restart_attempt <= self.max_number_restart_attempts

    def __str__(self) -> str:
        return (
            "FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts="
            f"{self.max_number_restart_attempts}, backoffTimeMS={self.backoff_time})"
        )


class FailureRateRestartBackoffTimeStrategy(RestartBackoffTimeStrategy):
    """Flink's ``FailureRateRestartBackoffTimeStrategy``: refuse at N failures within the interval."""

    def __init__(self, max_failures: int, interval: int, backoff_time: int) -> None:
        self.max_failures_per_interval = max_failures
        self.failures_interval = interval
        self.backoff_time = backoff_time
        self.failure_timestamps: deque[int] = deque(maxlen=max_failures)

    def notify_failure(self, now: int) -> None:
        self.failure_timestamps.append(now)

    def can_restart(self) -> bool:
        ts = self.failure_timestamps
        if len(ts) >= self.max_failures_per_interval:
            return not (ts[-1] - ts[0] <= self.failures_interval)
        return True

    def __str__(self) -> str:
        return (
            "FailureRateRestartBackoffTimeStrategy(failuresIntervalMS="
            f"{self.failures_interval}, backoffTimeMS={self.backoff_time}, "
            f"maxFailuresPerInterval={self.max_failures_per_interval})"
        )


def create_restart_backoff_strategy(
    configuration: Any, checkpointing_enabled: bool
) -> RestartBackoffTimeStrategy:
    """``RestartBackoffTimeStrategyFactoryLoader``: job setting, else 1.11's default (§5.5)."""
    if isinstance(configuration, NoRestartStrategyConfiguration):
        return NoRestartBackoffTimeStrategy()
    if isinstance(configuration, FixedDelayRestartStrategyConfiguration):
        return FixedDelayRestartBackoffTimeStrategy(
            configuration.restart_attempts, configuration.delay_between_attempts_interval_ms
        )
    if isinstance(configuration, FailureRateRestartStrategyConfiguration):
        return FailureRateRestartBackoffTimeStrategy(
            configuration.max_failure_rate,
            configuration.failure_interval_ms,
            configuration.delay_between_attempts_interval_ms,
        )
    # None or Fallback: the cluster default of Flink 1.11.
    if checkpointing_enabled:
        return FixedDelayRestartBackoffTimeStrategy(INT_MAX_VALUE, 1000)
    return NoRestartBackoffTimeStrategy()
