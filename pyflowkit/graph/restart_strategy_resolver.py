"""Which restart strategy a job runs with (``RestartBackoffTimeStrategyFactoryLoader``, 1.11).

Order: the job's own configuration (unless it is the fallback) → the cluster key
``restart-strategy`` → default: checkpointing on ⇒ fixed delay, ``Integer.MAX_VALUE`` attempts,
1 s; off ⇒ no restart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyflowkit.common.restart_strategy import (
    FailureRateRestartStrategyConfiguration,
    FallbackRestartStrategyConfiguration,
    FixedDelayRestartStrategyConfiguration,
    NoRestartStrategyConfiguration,
    RestartStrategyConfiguration,
)
from pyflowkit.common.time_utils import parse_duration_option
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import INT_MAX_VALUE

DEFAULT_RESTART_DELAY_MS = 1000


def _int_option(config: Mapping[str, Any], key: str, default: int) -> int:
    value = config.get(key)
    if value is None:
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise IllegalArgumentException(
            f"Could not parse value '{value}' for key '{key}': expected an integer."
        ) from None


def _duration_option(config: Mapping[str, Any], key: str, default_ms: int) -> int:
    value = config.get(key)
    return default_ms if value is None else parse_duration_option(key, value)


def from_cluster_configuration(config: Mapping[str, Any]) -> RestartStrategyConfiguration | None:
    """The strategy the ``restart-strategy`` key selects, or None when the key is unset."""
    name = config.get("restart-strategy")
    if name is None:
        return None
    name = str(name).strip().lower()
    if name in ("none", "off", "disable"):
        return NoRestartStrategyConfiguration()
    if name in ("fixeddelay", "fixed-delay"):
        return FixedDelayRestartStrategyConfiguration(
            _int_option(config, "restart-strategy.fixed-delay.attempts", 1),
            _duration_option(config, "restart-strategy.fixed-delay.delay", 1000),
        )
    if name in ("failurerate", "failure-rate"):
        return FailureRateRestartStrategyConfiguration(
            _int_option(config, "restart-strategy.failure-rate.max-failures-per-interval", 1),
            _duration_option(config, "restart-strategy.failure-rate.failure-rate-interval", 60_000),
            _duration_option(config, "restart-strategy.failure-rate.delay", 1000),
        )
    raise IllegalArgumentException(f"Unknown restart strategy {config.get('restart-strategy')}.")


def resolve_restart_strategy(
    job_configuration: RestartStrategyConfiguration | None,
    cluster_configuration: Mapping[str, Any],
    checkpointing_enabled: bool,
) -> RestartStrategyConfiguration:
    """``createRestartBackoffTimeStrategyFactory``: job config → cluster config → 1.11 default."""
    if job_configuration is not None and not isinstance(
        job_configuration, FallbackRestartStrategyConfiguration
    ):
        return job_configuration
    from_cluster = from_cluster_configuration(cluster_configuration)
    if from_cluster is not None:
        return from_cluster
    if checkpointing_enabled:
        return FixedDelayRestartStrategyConfiguration(INT_MAX_VALUE, DEFAULT_RESTART_DELAY_MS)
    return NoRestartStrategyConfiguration()
