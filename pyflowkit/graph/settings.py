"""The environment settings a StreamGraph is generated with (Flink's ``ExecutionConfig`` +
``CheckpointConfig`` + the relevant ``Configuration`` keys), frozen at generation time."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.common.flink_version import default_version, profile_for

MINIMAL_CHECKPOINT_TIME = 10  # CheckpointCoordinatorConfiguration.MINIMAL_CHECKPOINT_TIME (ms)
DEFAULT_JOB_NAME = "Flink Streaming Job"


@dataclass(frozen=True)
class CheckpointSettings:
    """A frozen copy of Flink's ``CheckpointConfig`` (defaults are Flink 1.11's)."""

    interval: int = -1  # ms; -1 = checkpointing disabled
    mode: str = "EXACTLY_ONCE"  # CheckpointingMode name: EXACTLY_ONCE / AT_LEAST_ONCE
    timeout: int = 600_000
    min_pause: int = 0
    max_concurrent: int = 1
    tolerable_failures: int = 0
    unaligned: bool = False
    # None, RETAIN_ON_CANCELLATION or DELETE_ON_CANCELLATION
    externalized_retention: str | None = None
    num_retained: int = 1  # state.checkpoints.num-retained
    prefer_checkpoint_for_recovery: bool = False
    aligned_checkpoint_timeout: int = 0  # ms; 1.20's ALIGNED_CHECKPOINT_TIMEOUT (0 in 1.11)
    force_unaligned: bool = False  # 1.20's setForceUnalignedCheckpoints

    @property
    def enabled(self) -> bool:
        return self.interval > 0


@dataclass(frozen=True)
class EnvironmentSettings:
    """What ``StreamGraphGenerator`` needs from the environment, frozen at ``get_stream_graph()``."""

    parallelism: int
    max_parallelism: int = -1  # -1 = unset (ExecutionConfig default)
    chaining_enabled: bool = True
    runtime_mode: str = "STREAMING"  # RuntimeExecutionMode name: STREAMING / BATCH / AUTOMATIC
    # None: the version profile's TIME_DEFAULTS (1.11: ProcessingTime, 0 ms; 1.20: EventTime,
    # 200 ms), as the StreamExecutionEnvironment applies them
    time_characteristic: str = None  # type: ignore[assignment]
    auto_watermark_interval: int = None  # type: ignore[assignment]  # ms
    buffer_timeout: int = 100
    auto_generated_uids: bool = True
    checkpoint: CheckpointSettings = field(default_factory=CheckpointSettings)
    restart_strategy: Any = None  # pyflowkit.common.RestartStrategyConfiguration or None (fallback)
    configuration: dict[str, str] = field(default_factory=dict)  # every Configuration key as set
    # the environment's pyflowkit.flink-version profile (unset: the entry point's default)
    flink_version: str = field(default_factory=default_version)

    def __post_init__(self) -> None:
        defaults = profile_for(self.flink_version).time_defaults
        if self.time_characteristic is None:
            object.__setattr__(self, "time_characteristic", defaults.time_characteristic)
        if self.auto_watermark_interval is None:
            object.__setattr__(self, "auto_watermark_interval", defaults.auto_watermark_interval)
