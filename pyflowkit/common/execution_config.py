"""``ExecutionConfig`` (PyFlink's ``pyflink.common.ExecutionConfig``, Flink's class)."""

from __future__ import annotations

import re
import warnings

from pyflowkit.common.execution_mode import ExecutionMode
from pyflowkit.common.input_dependency_constraint import InputDependencyConstraint
from pyflowkit.common.restart_strategy import (
    FallbackRestartStrategyConfiguration,
    RestartStrategyConfiguration,
)
from pyflowkit.errors import IllegalArgumentException

PARALLELISM_DEFAULT = -1  # ExecutionConfig.PARALLELISM_DEFAULT
UPPER_BOUND_MAX_PARALLELISM = 1 << 15  # KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM
DEFAULT_TASK_CANCELLATION_TIMEOUT = 180_000  # TaskManagerOptions.TASK_CANCELLATION_TIMEOUT (ms)
_JAVA_CLASS_NAME = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")


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


def check_java_class_name(name: object, method: str) -> str:
    """A fully qualified Java class name (``com.acme.Pojo``, ``a.B$Inner``), as PyFlink's
    ``load_java_class`` needs; anything else is refused naming ``method``."""
    if not isinstance(name, str) or not _JAVA_CLASS_NAME.fullmatch(name):
        raise IllegalArgumentException(
            f"ExecutionConfig.{method} takes fully qualified Java class names such as "
            f"'com.example.MyPojo', got {name!r}. The config is unchanged."
        )
    return name


class ExecutionConfig:
    """Flink's ``ExecutionConfig``: job-wide parallelism, watermark interval, restart strategy.

    Serializer settings (Kryo/Avro/POJO registrations, forced Kryo/Avro, generic types, auto
    type registration) tune Flink's Java serializers. pyflowkit runs no JVM: records without
    declared types travel pickled (PyFlink's ``PICKLED_BYTE_ARRAY``, which is not a Kryo type in
    PyFlink either) and declared ``Types`` become Arrow/Spark columns, so these settings are
    stored and returned by their getters, with PyFlink's defaults and validation, and change
    nothing else -- as in a PyFlink job whose records are all Python objects.
    """

    PARALLELISM_DEFAULT = PARALLELISM_DEFAULT  # -1: the environment's default parallelism
    PARALLELISM_UNKNOWN = -2  # not known yet (Flink's ExecutionConfig.PARALLELISM_UNKNOWN)

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
        self._task_cancellation_timeout = DEFAULT_TASK_CANCELLATION_TIMEOUT
        self._execution_mode = ExecutionMode.PIPELINED
        self._input_dependency_constraint = InputDependencyConstraint.ANY
        self._force_kryo = False
        self._force_avro = False
        self._generic_types = True
        self._auto_type_registration = True
        self._use_snapshot_compression = False
        # Flink keeps these in LinkedHashMap / LinkedHashSet: registration order, no duplicates
        self._default_kryo_serializers: dict[str, str] = {}
        self._kryo_serializers: dict[str, str] = {}
        self._kryo_types: dict[str, None] = {}
        self._pojo_types: dict[str, None] = {}

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

    def get_task_cancellation_timeout(self) -> int:
        """Ms after which a stuck task cancellation is a fatal TaskManager error (0: never).

        Flink's ``getTaskCancellationTimeout``; stored and reported: a simulated task never
        hangs in cancellation, and Spark cancels its own tasks.
        """
        return self._task_cancellation_timeout

    def set_task_cancellation_timeout(self, timeout: int) -> ExecutionConfig:
        """Flink's ``setTaskCancellationTimeout``: ``timeout`` >= 0 ms (0 disables it)."""
        if isinstance(timeout, bool) or not isinstance(timeout, int) or timeout < 0:
            raise IllegalArgumentException(f"Timeout needs to be >= 0, got {timeout!r}.")
        self._task_cancellation_timeout = timeout
        return self

    def set_execution_mode(self, execution_mode: ExecutionMode) -> ExecutionConfig:
        """The DataSet exchange mode (Flink's ``setExecutionMode``); the DataStream API runs by
        ``set_runtime_mode``, so this is stored and reported only, as in Flink."""
        if not isinstance(execution_mode, ExecutionMode):
            raise IllegalArgumentException(
                f"set_execution_mode() needs an ExecutionMode, got {execution_mode!r}."
            )
        self._execution_mode = execution_mode
        return self

    def get_execution_mode(self) -> ExecutionMode:
        """Flink's ``getExecutionMode`` (``PIPELINED`` unless set)."""
        return self._execution_mode

    def set_default_input_dependency_constraint(
        self, input_dependency_constraint: InputDependencyConstraint
    ) -> ExecutionConfig:
        """Deprecated in Flink 1.13 and read by no scheduler; stored, with PyFlink's warning."""
        warnings.warn(
            "Deprecated in 1.13. InputDependencyConstraint is not used anywhere. Therefore, the "
            "method call set_default_input_dependency_constraint is obsolete.",
            DeprecationWarning,
            stacklevel=2,
        )
        if not isinstance(input_dependency_constraint, InputDependencyConstraint):
            raise IllegalArgumentException(
                "set_default_input_dependency_constraint() needs an InputDependencyConstraint, "
                f"got {input_dependency_constraint!r}."
            )
        self._input_dependency_constraint = input_dependency_constraint
        return self

    def get_default_input_dependency_constraint(self) -> InputDependencyConstraint:
        """Deprecated in Flink 1.13 (``ANY`` unless set); warns as PyFlink does."""
        warnings.warn(
            "Deprecated in 1.13. InputDependencyConstraint is not used anywhere. Therefore, the "
            "method call get_default_input_dependency_constraint is obsolete.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self._input_dependency_constraint

    # --- serializer settings (stored and reported: see the class docstring) --------------------
    def enable_force_kryo(self) -> ExecutionConfig:
        """Flink's ``enableForceKryo``: Kryo even for POJOs (a Java serializer choice)."""
        self._force_kryo = True
        return self

    def disable_force_kryo(self) -> ExecutionConfig:
        self._force_kryo = False
        return self

    def is_force_kryo_enabled(self) -> bool:
        return self._force_kryo

    def enable_generic_types(self) -> ExecutionConfig:
        """Flink's ``enableGenericTypes`` (the default)."""
        self._generic_types = True
        return self

    def disable_generic_types(self) -> ExecutionConfig:
        """Flink's ``disableGenericTypes``: Java types that would go through Kryo are refused;
        Python records (pickled, or declared ``Types``) never are, here as in PyFlink."""
        self._generic_types = False
        return self

    def has_generic_types_disabled(self) -> bool:
        return not self._generic_types

    def enable_force_avro(self) -> ExecutionConfig:
        """Flink's ``enableForceAvro``: Avro for POJOs (a Java serializer choice)."""
        self._force_avro = True
        return self

    def disable_force_avro(self) -> ExecutionConfig:
        self._force_avro = False
        return self

    def is_force_avro_enabled(self) -> bool:
        return self._force_avro

    def add_default_kryo_serializer(
        self, type_class_name: str, serializer_class_name: str
    ) -> ExecutionConfig:
        """Flink's ``addDefaultKryoSerializer``: Java class names, kept in registration order."""
        t = check_java_class_name(type_class_name, "add_default_kryo_serializer")
        s = check_java_class_name(serializer_class_name, "add_default_kryo_serializer")
        self._default_kryo_serializers[t] = s
        return self

    def register_type_with_kryo_serializer(
        self, type_class_name: str, serializer_class_name: str
    ) -> ExecutionConfig:
        """Flink's ``registerTypeWithKryoSerializer``: Java class names, in registration order."""
        t = check_java_class_name(type_class_name, "register_type_with_kryo_serializer")
        s = check_java_class_name(serializer_class_name, "register_type_with_kryo_serializer")
        self._kryo_serializers[t] = s
        return self

    def register_pojo_type(self, type_class_name: str) -> ExecutionConfig:
        """Flink's ``registerPojoType``: a Java class name, registered once."""
        self._pojo_types[check_java_class_name(type_class_name, "register_pojo_type")] = None
        return self

    def register_kryo_type(self, type_class_name: str) -> ExecutionConfig:
        """Flink's ``registerKryoType``: a Java class name, registered once."""
        self._kryo_types[check_java_class_name(type_class_name, "register_kryo_type")] = None
        return self

    def get_registered_types_with_kryo_serializer_classes(self) -> dict[str, str]:
        return dict(self._kryo_serializers)

    def get_default_kryo_serializer_classes(self) -> dict[str, str]:
        return dict(self._default_kryo_serializers)

    def get_registered_kryo_types(self) -> list[str]:
        return list(self._kryo_types)

    def get_registered_pojo_types(self) -> list[str]:
        return list(self._pojo_types)

    def is_auto_type_registration_disabled(self) -> bool:
        return not self._auto_type_registration

    def disable_auto_type_registration(self) -> ExecutionConfig:
        """Flink's ``disableAutoTypeRegistration`` (Kryo registration of types in use)."""
        self._auto_type_registration = False
        return self

    def is_use_snapshot_compression(self) -> bool:
        """Whether keyed state in full checkpoints and savepoints is (snappy) compressed."""
        return self._use_snapshot_compression

    def set_use_snapshot_compression(self, use_snapshot_compression: bool) -> ExecutionConfig:
        """Flink's ``setUseSnapshotCompression``: an encoding of the snapshot files (their
        contents and every restore are the same either way); stored and reported."""
        if not isinstance(use_snapshot_compression, bool):
            raise IllegalArgumentException(
                "set_use_snapshot_compression() takes True or False, got "
                f"{use_snapshot_compression!r}."
            )
        self._use_snapshot_compression = use_snapshot_compression
        return self

    def set_global_job_parameters(
        self, global_job_parameters_dict: dict[str, str]
    ) -> ExecutionConfig:  # noqa: E501
        self._global_job_parameters = dict(global_job_parameters_dict)
        return self

    def get_global_job_parameters(self) -> dict[str, str]:
        return dict(self._global_job_parameters)

    def _copy_state(self) -> dict:
        # the registries are mutated in place: copy them so a restored state is the old one
        return {k: dict(v) if isinstance(v, dict) else v for k, v in vars(self).items()}

    def _restore_state(self, state: dict) -> None:
        vars(self).clear()
        vars(self).update(state)
