"""``ExecutionConfig`` (PyFlink's ``pyflink.common.ExecutionConfig``, Flink's class)."""

from __future__ import annotations

from pyflowkit.common.restart_strategy import (
    FallbackRestartStrategyConfiguration,
    RestartStrategyConfiguration,
)
from pyflowkit.errors import IllegalArgumentException

PARALLELISM_DEFAULT = -1  # ExecutionConfig.PARALLELISM_DEFAULT
UPPER_BOUND_MAX_PARALLELISM = 1 << 15  # KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM


def check_parallelism(parallelism: int, owner: str) -> None:
    """``ExecutionConfig.setParallelism``: at least 1, or PARALLELISM_DEFAULT (-1)."""
    if isinstance(parallelism, bool) or not isinstance(parallelism, int):
        raise IllegalArgumentException(
            f"Parallelism of {owner} must be an int, got {parallelism!r}."
        )
    if parallelism < 1 and parallelism != PARALLELISM_DEFAULT:
        raise IllegalArgumentException(
            "Parallelism must be at least one, or ExecutionConfig.PARALLELISM_DEFAULT (use system "
            f"default). {owner} was given {parallelism}."
        )


def check_max_parallelism(max_parallelism: int, owner: str) -> None:
    """``setMaxParallelism``: 0 < maxParallelism <= 32768."""
    if isinstance(max_parallelism, bool) or not isinstance(max_parallelism, int):
        raise IllegalArgumentException(
            f"Maximum parallelism of {owner} must be an int, got {max_parallelism!r}."
        )
    if not 0 < max_parallelism <= UPPER_BOUND_MAX_PARALLELISM:
        raise IllegalArgumentException(
            f"maxParallelism is out of bounds 0 < maxParallelism <= {UPPER_BOUND_MAX_PARALLELISM}."
            f" Found: {max_parallelism} ({owner})."
        )


class ExecutionConfig:
    """Flink's ``ExecutionConfig``: job-wide parallelism, watermark interval, restart strategy."""

    def __init__(self) -> None:
        self._parallelism = PARALLELISM_DEFAULT
        self._max_parallelism = -1
        self._auto_watermark_interval = 0  # 1.11 default (ProcessingTime)
        self._auto_generated_uids = True
        self._object_reuse = False
        self._closure_cleaner = True
        self._restart_strategy: RestartStrategyConfiguration = (
            FallbackRestartStrategyConfiguration()
        )
        self._latency_tracking_interval = 0
        self._task_cancellation_interval = 30_000
        self._global_job_parameters: dict[str, str] = {}

    def get_parallelism(self) -> int:
        return self._parallelism

    def set_parallelism(self, parallelism: int) -> ExecutionConfig:
        check_parallelism(parallelism, "the execution config")
        self._parallelism = parallelism
        return self

    def get_max_parallelism(self) -> int:
        return self._max_parallelism

    def set_max_parallelism(self, max_parallelism: int) -> ExecutionConfig:
        check_max_parallelism(max_parallelism, "the execution config")
        self._max_parallelism = max_parallelism
        return self

    def set_auto_watermark_interval(self, interval: int) -> ExecutionConfig:
        if isinstance(interval, bool) or not isinstance(interval, int) or interval < 0:
            raise IllegalArgumentException(
                f"Auto watermark interval must not be negative, got {interval!r}."
            )
        self._auto_watermark_interval = interval
        return self

    def get_auto_watermark_interval(self) -> int:
        return self._auto_watermark_interval

    def enable_auto_generated_uids(self) -> ExecutionConfig:
        self._auto_generated_uids = True
        return self

    def disable_auto_generated_uids(self) -> ExecutionConfig:
        self._auto_generated_uids = False
        return self

    def has_auto_generated_uids_enabled(self) -> bool:
        return self._auto_generated_uids

    def enable_object_reuse(self) -> ExecutionConfig:
        self._object_reuse = True
        return self

    def disable_object_reuse(self) -> ExecutionConfig:
        self._object_reuse = False
        return self

    def is_object_reuse_enabled(self) -> bool:
        return self._object_reuse

    def enable_closure_cleaner(self) -> ExecutionConfig:
        self._closure_cleaner = True
        return self

    def disable_closure_cleaner(self) -> ExecutionConfig:
        self._closure_cleaner = False
        return self

    def is_closure_cleaner_enabled(self) -> bool:
        return self._closure_cleaner

    def set_restart_strategy(
        self, restart_strategy_configuration: RestartStrategyConfiguration
    ) -> None:
        if not isinstance(restart_strategy_configuration, RestartStrategyConfiguration):
            raise TypeError(
                "set_restart_strategy needs a RestartStrategyConfiguration from "
                f"RestartStrategies, got {restart_strategy_configuration!r}."
            )
        self._restart_strategy = restart_strategy_configuration

    def get_restart_strategy(self) -> RestartStrategyConfiguration:
        return self._restart_strategy

    def set_latency_tracking_interval(self, interval: int) -> ExecutionConfig:
        self._latency_tracking_interval = interval
        return self

    def get_latency_tracking_interval(self) -> int:
        return self._latency_tracking_interval

    def set_task_cancellation_interval(self, interval: int) -> ExecutionConfig:
        self._task_cancellation_interval = interval
        return self

    def get_task_cancellation_interval(self) -> int:
        return self._task_cancellation_interval

    def set_global_job_parameters(
        self, global_job_parameters_dict: dict[str, str]
    ) -> ExecutionConfig:  # noqa: E501
        self._global_job_parameters = dict(global_job_parameters_dict)
        return self

    def get_global_job_parameters(self) -> dict[str, str]:
        return dict(self._global_job_parameters)

    def _copy_state(self) -> dict:
        return dict(vars(self))

    def _restore_state(self, state: dict) -> None:
        vars(self).clear()
        vars(self).update(state)
