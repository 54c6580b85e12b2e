"""PyFlink's ``pyflink.common``: plain value types every layer may import.

Imports nothing from pyflowkit but ``pyflowkit.errors``.
"""

from pyflowkit.common.config_options import ConfigOption, ConfigOptions
from pyflowkit.common.configuration import Configuration
from pyflowkit.common.execution_config import ExecutionConfig
from pyflowkit.common.execution_mode import ExecutionMode
from pyflowkit.common.input_dependency_constraint import InputDependencyConstraint
from pyflowkit.common.job_client import CompletableFuture, JobClient
from pyflowkit.common.job_execution_result import JobExecutionResult
from pyflowkit.common.job_id import JobID
from pyflowkit.common.job_status import JobStatus
from pyflowkit.common.restart_strategy import (
    FailureRateRestartStrategyConfiguration,
    FallbackRestartStrategyConfiguration,
    FixedDelayRestartStrategyConfiguration,
    NoRestartStrategyConfiguration,
    RestartStrategies,
    RestartStrategyConfiguration,
)
from pyflowkit.common.serialization import (
    DeserializationSchema,
    Encoder,
    SerializationSchema,
    SimpleStringSchema,
)
from pyflowkit.common.serializer import TypeSerializer
from pyflowkit.common.time import Duration, Instant, Time
from pyflowkit.common.typeinfo import (
    BasicType,
    BasicTypeInfo,
    TypeInformation,
    Types,
)
from pyflowkit.common.types import Row, RowKind
from pyflowkit.common.watermark_strategy import (
    TimestampAssigner,
    WatermarkGenerator,
    WatermarkOutput,
    WatermarkStrategy,
)

__all__ = [
    "BasicType",
    "BasicTypeInfo",
    "CompletableFuture",
    "ConfigOption",
    "ConfigOptions",
    "Configuration",
    "Duration",
    "Encoder",
    "ExecutionConfig",
    "ExecutionMode",
    "FailureRateRestartStrategyConfiguration",
    "FallbackRestartStrategyConfiguration",
    "FixedDelayRestartStrategyConfiguration",
    "Instant",
    "InputDependencyConstraint",
    "JobClient",
    "JobExecutionResult",
    "JobID",
    "JobStatus",
    "NoRestartStrategyConfiguration",
    "RestartStrategies",
    "RestartStrategyConfiguration",
    "Row",
    "RowKind",
    "SimpleStringSchema",
    "SerializationSchema",
    "DeserializationSchema",
    "Time",
    "TimestampAssigner",
    "TypeInformation",
    "TypeSerializer",
    "Types",
    "WatermarkGenerator",
    "WatermarkOutput",
    "WatermarkStrategy",
]
