"""Flink 1.11's ``TimeUtils.parseDuration`` as used by duration configuration options."""

from __future__ import annotations

import datetime

import pytest

from pyflowkit.common import Configuration
from pyflowkit.common.time_utils import parse_duration, parse_duration_option
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.restart_strategy_resolver import from_cluster_configuration


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("500", 500),
        ("500 ms", 500),
        ("2millis", 2),
        ("10 s", 10_000),
        ("3 secs", 3_000),
        ("1 min", 60_000),
        ("2 minutes", 120_000),
        ("1 h", 3_600_000),
        ("1 DAYS", 86_400_000),
        ("1500 µs", 1),
        ("999999 ns", 0),
    ],
)
def test_units_as_flink_labels_them(text: str, ms: int) -> None:
    assert parse_duration(text) == ms


def test_mins_is_not_a_flink_label() -> None:
    with pytest.raises(IllegalArgumentException) as info:
        parse_duration("2 mins")
    assert str(info.value).startswith(
        "Time interval unit label 'mins' does not match any of the recognized units: "
        "DAYS: (d | day | days), HOURS: (h | hour | hours), MINUTES: (min | minute | minutes), "
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [("  ", "argument is an empty- or whitespace-only string"), ("s", "text does not start")],
)
def test_malformed_text(text: str, message: str) -> None:
    with pytest.raises(IllegalArgumentException, match=message):
        parse_duration(text)


def test_option_error_names_the_key_as_flinks_configuration() -> None:
    with pytest.raises(
        IllegalArgumentException,
        match=r"^Could not parse value 'soon' for key 'execution.checkpointing.interval'\.",
    ):
        parse_duration_option("execution.checkpointing.interval", "soon")


def test_environment_and_restart_strategy_share_the_parser() -> None:
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string("execution.checkpointing.interval", "2 min")
    )
    assert env.get_checkpoint_config().get_checkpoint_interval() == 120_000
    strategy = from_cluster_configuration(
        {"restart-strategy": "fixed-delay", "restart-strategy.fixed-delay.delay": "3 s"}
    )
    assert strategy.get_delay_between_attempts_interval() == datetime.timedelta(seconds=3)
    with pytest.raises(IllegalArgumentException, match="for key 'execution.buffer-timeout'"):
        StreamExecutionEnvironment.get_execution_environment(
            Configuration().set_string("execution.buffer-timeout", "fast")
        )
