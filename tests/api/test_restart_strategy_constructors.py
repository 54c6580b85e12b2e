"""PyFlink's keyword constructors of the restart strategy configurations."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pyflowkit.common import RestartStrategies, Time
from pyflowkit.common.restart_strategy import (
    FailureRateRestartStrategyConfiguration,
    FixedDelayRestartStrategyConfiguration,
)


def test_keyword_construction_equals_the_factories():
    fixed = FixedDelayRestartStrategyConfiguration(
        restart_attempts=3, delay_between_attempts_interval=timedelta(seconds=10)
    )
    assert fixed == RestartStrategies.fixed_delay_restart(3, 10_000)
    assert fixed.get_delay_between_attempts_interval() == timedelta(seconds=10)
    rate = FailureRateRestartStrategyConfiguration(
        max_failure_rate=2,
        failure_interval=Time.minutes(1),
        delay_between_attempts_interval=1000,
    )
    assert rate == RestartStrategies.failure_rate_restart(2, 60_000, 1000)
    assert rate.get_failure_interval() == timedelta(minutes=1)


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda: FixedDelayRestartStrategyConfiguration(), TypeError, "restart_attempts must be"),
        (
            lambda: FixedDelayRestartStrategyConfiguration(3),
            TypeError,
            "delay_between_attempts_interval must be milliseconds",
        ),
        (
            lambda: FailureRateRestartStrategyConfiguration(0, 1000, 1000),
            ValueError,
            "max_failure_rate must be an int >= 1, got 0",
        ),
        (
            lambda: FailureRateRestartStrategyConfiguration(1, -5, 1000),
            ValueError,
            "failure_interval must not be negative",
        ),
    ],
)
def test_missing_or_bad_arguments_name_the_parameter(build, error, message):
    with pytest.raises(error, match=message):
        build()
