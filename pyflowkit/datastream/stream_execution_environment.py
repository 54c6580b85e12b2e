"""``StreamExecutionEnvironment`` (PyFlink's class; Flink's ``LocalStreamEnvironment``).

Holds the job-wide settings and the list of transformations (operators and sinks, as Flink's
``transformations`` list); compiles them with ``pyflowkit.graph`` and executes them on the
simulated cluster (``execution.target = local``) or on Spark (``spark``, the default).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from pyflowkit.common import python_dependencies as deps
from pyflowkit.common.configuration import Configuration
from pyflowkit.common.execution_config import ExecutionConfig, check_max_parallelism
from pyflowkit.common.flink_version import (
    FLINK_VERSION_KEY,
    FlinkVersionProfile,
    default_version,
    profile_for,
)
from pyflowkit.common.job_client import JobClient
from pyflowkit.common.job_execution_result import JobExecutionResult
from pyflowkit.common.restart_strategy import (
    FallbackRestartStrategyConfiguration,
    RestartStrategyConfiguration,
)
from pyflowkit.common.time import Duration
from pyflowkit.common.time_utils import parse_duration_option
from pyflowkit.common.typeinfo import RowTypeInfo, TypeInformation
from pyflowkit.datastream._util import check_type_info, has_class_in_mro
from pyflowkit.datastream.checkpoint_config import CheckpointConfig, _check_int
from pyflowkit.datastream.checkpointing_mode import CheckpointingMode
from pyflowkit.datastream.data_stream import DataStream
from pyflowkit.datastream.environment_capture import current_capture
from pyflowkit.datastream.execution_mode import RuntimeExecutionMode
from pyflowkit.datastream.externalized_checkpoint_retention import (
    ExternalizedCheckpointRetention,
)
from pyflowkit.datastream.time_characteristic import TimeCharacteristic
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    InvalidProgramException,
    JobExecutionException,
    ProgramAbortException,
    UnsupportedOperationException,
)
from pyflowkit.graph.transformations import (
    CACHE_CONSUMER_OPERATOR_NAME,
    Boundedness,
    ChainingStrategy,
    LegacySourceTransformation,
    OperatorFactory,
    SourceTransformation,
    Transformation,
)

DEFAULT_JOB_NAME = "Flink Streaming Job"
CHAIN_DIFFERENT_MAX_PARALLELISM = (
    "pipeline.operator-chaining.chain-operators-with-different-max-parallelism"
)
EXECUTION_TARGETS = {
    "local": "pyflowkit.runtime.local_executor",
    "spark": "pyflowkit.spark.executor",
}


def _source(module: str, name: str, *args: Any) -> Any:
    """A source reader from the operators package, or None while it is not available."""
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return cls(*args)


class StreamExecutionEnvironment:
    """PyFlink's ``StreamExecutionEnvironment`` (Flink's ``LocalStreamEnvironment``)."""

    def __init__(self, configuration: Configuration | None = None) -> None:
        self._configuration = Configuration(configuration) if configuration else Configuration()
        self._config = ExecutionConfig()
        self._checkpoint_config = CheckpointConfig()
        self._checkpoint_config._configuration = self._configuration
        self._transformations: list[Transformation] = []
        self._all_transformations: list[Transformation] = []  # incl. sources, for uid checks
        self._requested_side_outputs: dict[int, dict[str, TypeInformation]] = {}
        self._chaining_enabled = True
        self._profile = profile_for(default_version())
        self._time_characteristic_set = False  # the program chose one: a profile keeps it
        self._apply_time_defaults()
        self._runtime_mode = RuntimeExecutionMode.STREAMING
        self._buffer_timeout = 100
        self._capture = None
        self._cache_transformations: list[Any] = []  # CacheTransformations of cache()
        self._config.set_parallelism(self.get_default_local_parallelism())
        self.configure(self._configuration)

    @staticmethod
    def get_execution_environment(
        configuration: Configuration | None = None,
    ) -> StreamExecutionEnvironment:
        """A new local environment (recorded when inside ``capture_environments()``)."""
        if configuration is not None and not isinstance(configuration, Configuration):
            raise IllegalArgumentException(
                f"get_execution_environment() takes a Configuration, got {configuration!r}."
            )
        env = StreamExecutionEnvironment(configuration)
        capture = current_capture()
        if capture is not None:
            env._capture = capture
            capture.environments.append(env)
        return env

    # --- parallelism --------------------------------------------------------------------------
    def set_parallelism(self, parallelism: int) -> StreamExecutionEnvironment:
        if isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1:
            raise IllegalArgumentException(
                "The parallelism of the StreamExecutionEnvironment must be at least 1, got "
                f"{parallelism!r}."
            )
        self._config.set_parallelism(parallelism)
        return self

    def get_parallelism(self) -> int:
        return self._config.get_parallelism()

    def set_max_parallelism(self, max_parallelism: int) -> StreamExecutionEnvironment:
        check_max_parallelism(max_parallelism, "the StreamExecutionEnvironment")
        self._config.set_max_parallelism(max_parallelism)
        return self

    def get_max_parallelism(self) -> int:
        return self._config.get_max_parallelism()

    # --- modes and time -----------------------------------------------------------------------
    def set_runtime_mode(self, execution_mode: RuntimeExecutionMode) -> StreamExecutionEnvironment:
        if not isinstance(execution_mode, RuntimeExecutionMode):
            raise IllegalArgumentException(
                f"set_runtime_mode() needs a RuntimeExecutionMode, got {execution_mode!r}."
            )
        self._runtime_mode = execution_mode
        return self

    def get_runtime_mode(self) -> RuntimeExecutionMode:
        return self._runtime_mode

    def set_stream_time_characteristic(self, characteristic: TimeCharacteristic) -> None:
        """Flink 1.11: EventTime/IngestionTime set the watermark interval to 200 ms, else 0."""
        if not isinstance(characteristic, TimeCharacteristic):
            raise IllegalArgumentException(
                f"set_stream_time_characteristic() needs a TimeCharacteristic, got "
                f"{characteristic!r}."
            )
        self._time_characteristic_set = True
        self._time_characteristic = characteristic
        interval = 0 if characteristic == TimeCharacteristic.ProcessingTime else 200
        self._config.set_auto_watermark_interval(interval)

    def get_stream_time_characteristic(self) -> TimeCharacteristic:
        return self._time_characteristic

    # --- the Flink version profile (pyflowkit.flink-version) -----------------------------------
    def get_flink_version_profile(self) -> FlinkVersionProfile:
        """The rules of the Flink version this environment follows (``pyflowkit.flink-version``)."""
        return self._profile

    def _apply_time_defaults(self) -> None:
        """The profile's time characteristic and auto-watermark interval (FLINK-19317)."""
        defaults = self._profile.time_defaults
        self._time_characteristic = getattr(TimeCharacteristic, defaults.time_characteristic)
        self._config.set_auto_watermark_interval(defaults.auto_watermark_interval)

    def set_buffer_timeout(self, timeout_millis: int) -> StreamExecutionEnvironment:
        if isinstance(timeout_millis, bool) or not isinstance(timeout_millis, int):
            raise IllegalArgumentException(
                f"Buffer timeout must be an int (ms), got {timeout_millis!r}."
            )
        if timeout_millis < -1:
            raise IllegalArgumentException("Timeout of buffer must be non-negative or -1")
        self._buffer_timeout = timeout_millis
        return self

    def get_buffer_timeout(self) -> int:
        return self._buffer_timeout

    # --- chaining -----------------------------------------------------------------------------
    def disable_operator_chaining(self) -> StreamExecutionEnvironment:
        self._chaining_enabled = False
        return self

    def is_chaining_enabled(self) -> bool:
        return self._chaining_enabled

    def is_chaining_of_operators_with_different_max_parallelism_enabled(self) -> bool:
        """Whether operators with different max parallelism may chain (Flink 1.20's
        ``pipeline.operator-chaining.chain-operators-with-different-max-parallelism``, true);
        pyflowkit compiles with 1.11's rules, which always allow it, and refuses ``false``."""
        return self._configuration.get_boolean(CHAIN_DIFFERENT_MAX_PARALLELISM, True)

    # --- checkpointing and restarts -----------------------------------------------------------
    def enable_checkpointing(
        self, interval: int, mode: CheckpointingMode | None = None
    ) -> StreamExecutionEnvironment:
        _check_int(interval, "Checkpoint interval")
        if interval < 10:
            raise IllegalArgumentException(
                "Checkpoint interval must be larger than or equal to 10 ms"
            )
        if mode is not None and not isinstance(mode, CheckpointingMode):
            raise IllegalArgumentException(
                f"enable_checkpointing() mode must be a CheckpointingMode, got {mode!r}."
            )
        if mode is not None:
            self._checkpoint_config.set_checkpointing_mode(mode)
        self._checkpoint_config.set_checkpoint_interval(interval)
        return self

    def get_checkpoint_config(self) -> CheckpointConfig:
        return self._checkpoint_config

    def get_checkpoint_interval(self) -> int:
        return self._checkpoint_config.get_checkpoint_interval()

    def get_checkpointing_mode(self) -> CheckpointingMode:
        return self._checkpoint_config.get_checkpointing_mode()

    def get_checkpointing_consistency_mode(self) -> CheckpointingMode:
        """PyFlink 1.20's name of ``get_checkpointing_mode`` (the checkpoints' consistency)."""
        return self._checkpoint_config.get_checkpointing_mode()

    def is_unaligned_checkpoints_enabled(self) -> bool:
        """Flink's ``isUnalignedCheckpointsEnabled``: the checkpoint config's setting."""
        return self._checkpoint_config.is_unaligned_checkpoints_enabled()

    def is_force_unaligned_checkpoints(self) -> bool:
        """Flink's ``isForceUnalignedCheckpoints``: the checkpoint config's setting."""
        return self._checkpoint_config.is_force_unaligned_checkpoints()

    def set_restart_strategy(
        self, restart_strategy_configuration: RestartStrategyConfiguration
    ) -> None:
        self._config.set_restart_strategy(restart_strategy_configuration)

    def get_restart_strategy(self) -> RestartStrategyConfiguration:
        return self._config.get_restart_strategy()

    # --- configuration ------------------------------------------------------------------------
    def get_config(self) -> ExecutionConfig:
        return self._config

    # --- serializer registration (ExecutionConfig's; stored and reported, see its docstring) ---
    def add_default_kryo_serializer(self, type_class_name: str, serializer_class_name: str) -> None:
        """Flink's ``addDefaultKryoSerializer`` on this environment's ``ExecutionConfig``."""
        self._config.add_default_kryo_serializer(type_class_name, serializer_class_name)

    def register_type_with_kryo_serializer(
        self, type_class_name: str, serializer_class_name: str
    ) -> None:
        """Flink's ``registerTypeWithKryoSerializer`` on this environment's ``ExecutionConfig``."""
        self._config.register_type_with_kryo_serializer(type_class_name, serializer_class_name)

    def register_type(self, type_class_name: str) -> None:
        """Flink's ``registerType``: a POJO type is registered as one, any other with Kryo.

        Without a JVM no Java class can be analysed as a POJO, so the name is registered as a
        Kryo type (``get_config().get_registered_kryo_types()``).
        """
        self._config.register_kryo_type(type_class_name)

    def get_configuration(self) -> Configuration:
        return Configuration(self._configuration)

    def configure(self, configuration: Configuration) -> None:
        """Flink's ``configure(ReadableConfig)``: applies the known keys, keeps all of them.

        Everything is validated first; a bad value changes nothing.
        """
        if not isinstance(configuration, Configuration):
            raise IllegalArgumentException(
                f"configure() takes a Configuration, got {configuration!r}."
            )
        c = configuration
        updates: list[tuple[str, Any]] = []
        if c.contains_key(FLINK_VERSION_KEY):
            updates.append(("profile", profile_for(c.get_string(FLINK_VERSION_KEY) or "")))
        if c.contains_key("parallelism.default"):
            p = c.get_integer("parallelism.default")
            if p < 1:
                raise IllegalArgumentException(
                    f"Configuration 'parallelism.default' must be at least 1, got {p}."
                )
            updates.append(("parallelism", p))
        if c.contains_key("pipeline.max-parallelism"):
            m = c.get_integer("pipeline.max-parallelism")
            check_max_parallelism(m, "configuration 'pipeline.max-parallelism'")
            updates.append(("max_parallelism", m))
        if c.contains_key("pipeline.auto-watermark-interval"):
            raw = c.get_string("pipeline.auto-watermark-interval") or ""
            ms = parse_duration_option("pipeline.auto-watermark-interval", raw)
            updates.append(("watermark_interval", ms))
        if c.contains_key("pipeline.time-characteristic"):
            raw = c.get_string("pipeline.time-characteristic") or ""
            if raw not in TimeCharacteristic.__members__:
                raise IllegalArgumentException(
                    f"Configuration 'pipeline.time-characteristic' must be one of "
                    f"{list(TimeCharacteristic.__members__)}, got {raw!r}."
                )
            updates.append(("time_characteristic", TimeCharacteristic[raw]))
        if c.contains_key("execution.runtime-mode"):
            raw = (c.get_string("execution.runtime-mode") or "").upper()
            if raw not in RuntimeExecutionMode.__members__:
                raise IllegalArgumentException(
                    "Configuration 'execution.runtime-mode' must be STREAMING, BATCH or "
                    f"AUTOMATIC, got {raw!r}."
                )
            updates.append(("runtime_mode", RuntimeExecutionMode[raw]))
        if c.contains_key("execution.buffer-timeout"):
            raw = c.get_string("execution.buffer-timeout") or ""
            updates.append(
                ("buffer_timeout", parse_duration_option("execution.buffer-timeout", raw))
            )
        if c.contains_key("pipeline.operator-chaining"):
            updates.append(("chaining", c.get_boolean("pipeline.operator-chaining")))
        if c.contains_key(CHAIN_DIFFERENT_MAX_PARALLELISM) and not c.get_boolean(
            CHAIN_DIFFERENT_MAX_PARALLELISM, True
        ):
            raise IllegalArgumentException(
                f"Configuration '{CHAIN_DIFFERENT_MAX_PARALLELISM}' = false is not supported: "
                "pyflowkit compiles with Flink 1.11's chaining rules, which chain operators "
                "whatever their max parallelism. Leave it true (the default)."
            )
        if c.contains_key("pipeline.auto-generate-uids"):
            updates.append(("auto_uids", c.get_boolean("pipeline.auto-generate-uids")))
        cp_state = self._checkpoint_config._copy_state()
        try:
            self._configure_checkpointing(c)
        finally:
            new_cp_state = self._checkpoint_config._copy_state()
            self._checkpoint_config._restore_state(cp_state)
        # --- everything validated: apply ---
        self._checkpoint_config._restore_state(new_cp_state)
        for what, value in updates:
            if what == "profile":
                self._profile = value
                if not self._time_characteristic_set:
                    self._apply_time_defaults()
            elif what == "parallelism":
                self._config.set_parallelism(value)
            elif what == "max_parallelism":
                self._config.set_max_parallelism(value)
            elif what == "time_characteristic":
                self.set_stream_time_characteristic(value)
            elif what == "watermark_interval":
                pass  # applied after the time characteristic below
            elif what == "runtime_mode":
                self._runtime_mode = value
            elif what == "buffer_timeout":
                self._buffer_timeout = value
            elif what == "chaining":
                self._chaining_enabled = value
            elif what == "auto_uids":
                if value:
                    self._config.enable_auto_generated_uids()
                else:
                    self._config.disable_auto_generated_uids()
        for what, value in updates:
            if what == "watermark_interval":
                self._config.set_auto_watermark_interval(value)
        if c is not self._configuration:
            self._configuration.add_all(c)

    def _configure_checkpointing(self, c: Configuration) -> None:
        cp = self._checkpoint_config
        if c.contains_key("execution.checkpointing.interval"):
            raw = c.get_string("execution.checkpointing.interval") or ""
            cp.set_checkpoint_interval(
                parse_duration_option("execution.checkpointing.interval", raw)
            )
        if c.contains_key("execution.checkpointing.mode"):
            raw = (c.get_string("execution.checkpointing.mode") or "").upper()
            if raw not in CheckpointingMode.__members__:
                raise IllegalArgumentException(
                    "Configuration 'execution.checkpointing.mode' must be EXACTLY_ONCE or "
                    f"AT_LEAST_ONCE, got {raw!r}."
                )
            cp.set_checkpointing_mode(CheckpointingMode[raw])
        if c.contains_key("execution.checkpointing.timeout"):
            raw = c.get_string("execution.checkpointing.timeout") or ""
            cp.set_checkpoint_timeout(parse_duration_option("execution.checkpointing.timeout", raw))
        if c.contains_key("execution.checkpointing.min-pause"):
            raw = c.get_string("execution.checkpointing.min-pause") or ""
            ms = parse_duration_option("execution.checkpointing.min-pause", raw)
            cp.set_min_pause_between_checkpoints(ms)
        if c.contains_key("execution.checkpointing.max-concurrent-checkpoints"):
            n = c.get_integer("execution.checkpointing.max-concurrent-checkpoints")
            cp.set_max_concurrent_checkpoints(n)
        if c.contains_key("execution.checkpointing.tolerable-failed-checkpoints"):
            n = c.get_integer("execution.checkpointing.tolerable-failed-checkpoints")
            cp.set_tolerable_checkpoint_failure_number(n)
        if c.contains_key("execution.checkpointing.unaligned"):
            cp.enable_unaligned_checkpoints(c.get_boolean("execution.checkpointing.unaligned"))
        if c.contains_key("execution.checkpointing.unaligned.forced"):
            forced = c.get_boolean("execution.checkpointing.unaligned.forced")
            cp.set_force_unaligned_checkpoints(bool(forced))
        if c.contains_key("execution.checkpointing.aligned-checkpoint-timeout"):
            raw = c.get_string("execution.checkpointing.aligned-checkpoint-timeout") or ""
            ms = parse_duration_option("execution.checkpointing.aligned-checkpoint-timeout", raw)
            cp.set_alignment_timeout(Duration.of_millis(ms))
        key = "execution.checkpointing.externalized-checkpoint-retention"
        if c.contains_key(key):
            raw = (c.get_string(key) or "").upper()
            if raw not in ExternalizedCheckpointRetention.__members__:
                raise IllegalArgumentException(
                    f"Configuration '{key}' must be one of "
                    f"{list(ExternalizedCheckpointRetention.__members__)}, got {raw!r}."
                )
            cp.set_externalized_checkpoint_retention(ExternalizedCheckpointRetention[raw])

    def add_jars(self, *jars_path: str) -> None:
        """Refused: Java jars (connectors, Java functions) need Flink's JVM, which pyflowkit has not.

        Mirrors ``StreamExecutionEnvironment.add_jars`` (``pipeline.jars``); the environment is
        left unchanged.
        """
        raise UnsupportedOperationException(_java_only("add_jars", "pipeline.jars", jars_path))

    def add_classpaths(self, *classpaths: str) -> None:
        """Refused like ``add_jars``: Java classpaths need Flink's JVM.

        Mirrors ``StreamExecutionEnvironment.add_classpaths`` (``pipeline.classpaths``).
        """
        raise UnsupportedOperationException(
            _java_only("add_classpaths", "pipeline.classpaths", classpaths)
        )

    def create_input(self, input_format: Any, type_info: TypeInformation | None = None) -> None:
        """Refused: an ``InputFormat`` is a Java object (PyFlink's only one is ``AvroInputFormat``)
        and pyflowkit has no JVM; read with ``from_source`` (``FileSource``) instead.

        Mirrors ``StreamExecutionEnvironment.create_input``; the environment is left unchanged.
        """
        raise UnsupportedOperationException(
            _java_only("create_input", "a Java InputFormat", (input_format,))
        )

    # --- state backend and savepoint directory -------------------------------------------------
    def set_state_backend(self, state_backend: Any) -> StreamExecutionEnvironment:
        """The keyed state backend (``state.backend.type``); the 1.11 backends with paths also set
        the checkpoint storage and savepoint directory."""
        from pyflowkit.datastream.checkpoint_storage import CHECKPOINT_STORAGE, CHECKPOINTS_DIR
        from pyflowkit.datastream.state_backend import StateBackend

        if not isinstance(state_backend, StateBackend):
            raise IllegalArgumentException(
                "set_state_backend needs a StateBackend (HashMapStateBackend(), "
                f"EmbeddedRocksDBStateBackend(), …), got {state_backend!r}."
            )
        options = state_backend.configuration()
        if CHECKPOINT_STORAGE in options:  # a 1.11 backend brings its checkpoint storage
            for key in (CHECKPOINT_STORAGE, CHECKPOINTS_DIR):
                self._configuration.remove_config(key)
            self._checkpoint_config._storage = None
        for key, value in options.items():
            self._configuration.set_string(key, value)
        self._state_backend = state_backend
        return self

    def get_state_backend(self) -> Any:
        """The backend set (``None`` before ``set_state_backend``, as PyFlink)."""
        return getattr(self, "_state_backend", None)

    def enable_changelog_state_backend(self, enabled: bool) -> StreamExecutionEnvironment:
        """Flink's ``enableChangelogStateBackend`` (``state.changelog.enabled``), reported by
        ``run.checkpoint_config()``; snapshots stay pyflowkit's copy-on-write heap snapshots."""
        from pyflowkit.common.checkpointing_options import CHANGELOG_ENABLED

        if not isinstance(enabled, bool):
            raise IllegalArgumentException(
                f"enable_changelog_state_backend() needs a bool, got {enabled!r}."
            )
        self._configuration.set_string(CHANGELOG_ENABLED, str(enabled).lower())
        return self

    def is_changelog_state_backend_enabled(self) -> bool | None:
        """True/False as set, None when never set (Flink's ``TernaryBoolean.UNDEFINED``)."""
        from pyflowkit.common.checkpointing_options import CHANGELOG_ENABLED

        value = self._configuration.get_string(CHANGELOG_ENABLED)
        return None if value is None else value == "true"

    def set_default_savepoint_directory(self, directory: str) -> StreamExecutionEnvironment:
        """Where savepoints go when no path is given (``state.savepoints.dir``)."""
        from pyflowkit.datastream.checkpoint_storage import SAVEPOINTS_DIR
        from pyflowkit.datastream.checkpoint_storage import directory as checked

        path = checked(directory, "set_default_savepoint_directory()")
        self._configuration.set_string(SAVEPOINTS_DIR, path)  # type: ignore[arg-type]
        return self

    def get_default_savepoint_directory(self) -> str | None:
        from pyflowkit.datastream.checkpoint_storage import SAVEPOINTS_DIR

        return self._configuration.get_string(SAVEPOINTS_DIR)

    # --- Python dependencies (PyFlink's; made real in this process, shipped on Spark) ----------
    def _local_dependencies(self) -> deps.LocalDependencies:
        if getattr(self, "_python_deps", None) is None:
            self._python_deps = deps.LocalDependencies()
        return self._python_deps

    def add_python_file(self, file_path: str) -> None:
        """Ship a ``.py`` file, a directory or a zip/egg/whl to the workers' Python path
        (``python.files``); importable by user functions here at once, ``addPyFile`` on Spark."""
        path = deps.existing_path(file_path, "add_python_file()")
        self._local_dependencies().add_file(path)
        self._append_config_list(deps.PYTHON_FILES, [path])

    def set_python_requirements(
        self, requirements_file_path: str, requirements_cache_dir: str | None = None
    ) -> None:
        """The third-party packages the functions need (``python.requirements``). pyflowkit
        installs nothing: each must already be installed in this interpreter (the one the
        simulated cluster and a local Spark run use), else the call fails naming them."""
        path = deps.existing_path(requirements_file_path, "set_python_requirements()")
        if requirements_cache_dir is not None:
            deps.existing_path(requirements_cache_dir, "set_python_requirements()")
        unmet = deps.unmet_requirements(path)
        if unmet:
            raise UnsupportedOperationException(
                f"set_python_requirements({requirements_file_path!r}): pyflowkit installs no "
                f"packages and this interpreter ({sys.executable}) lacks: {'; '.join(unmet)}. "
                f"Run `pip install -r {requirements_file_path}` first. The environment is unchanged."
            )
        value = path if requirements_cache_dir is None else f"{path}#{requirements_cache_dir}"
        self._configuration.set_string(deps.PYTHON_REQUIREMENTS, value)

    def add_python_archive(self, archive_path: str, target_dir: str | None = None) -> None:
        """Ship a zip/tar archive, extracted into the workers' working directory under
        ``target_dir`` (default: the archive's file name) (``python.archives``); here it is
        extracted at once into a working directory on ``sys.path``, on Spark it goes to
        ``spark.archives``."""
        path = deps.existing_path(archive_path, "add_python_archive()")
        target = target_dir or os.path.basename(path)
        if os.path.isabs(target) or ".." in target.replace("\\", "/").split("/"):
            raise IllegalArgumentException(
                f"add_python_archive(): target_dir must be a relative directory name, got "
                f"{target_dir!r}."
            )
        self._local_dependencies().add_archive(path, target)
        entry = path if target_dir is None else f"{path}#{target_dir}"
        self._append_config_list(deps.PYTHON_ARCHIVES, [entry])

    def set_python_executable(self, python_exec: str) -> None:
        """The interpreter the workers run (``python.executable``): ``spark.pyspark.python`` on
        Spark; the simulated cluster, which runs functions in this interpreter, refuses another."""
        if not isinstance(python_exec, str) or not python_exec:
            raise IllegalArgumentException(
                f"set_python_executable() needs a path or command name, got {python_exec!r}."
            )
        self._configuration.set_string(deps.PYTHON_EXECUTABLE, python_exec)

    # Flink's static defaultLocalParallelism; None means the machine's cores
    _default_local_parallelism: int | None = None

    def get_default_local_parallelism(self) -> int:
        """Flink's ``getDefaultLocalParallelism``: the parallelism of new local environments."""
        return StreamExecutionEnvironment._default_local_parallelism or os.cpu_count() or 1

    def set_default_local_parallelism(self, parallelism: int) -> None:
        """Flink's static ``setDefaultLocalParallelism``: for environments created after it."""
        if isinstance(parallelism, bool) or not isinstance(parallelism, int) or parallelism < 1:
            raise IllegalArgumentException(
                f"The default local parallelism must be an int >= 1, got {parallelism!r}."
            )
        StreamExecutionEnvironment._default_local_parallelism = parallelism

    def register_slot_sharing_group(self, slot_sharing_group: Any) -> StreamExecutionEnvironment:
        """Flink's ``registerSlotSharingGroup``: declares a group's resources by its name."""
        from pyflowkit.datastream.slot_sharing_group import SlotSharingGroup

        if not isinstance(slot_sharing_group, SlotSharingGroup):
            raise IllegalArgumentException(
                "register_slot_sharing_group() needs a SlotSharingGroup "
                f"(SlotSharingGroup.builder(name)...build()), got {slot_sharing_group!r}."
            )
        groups = self.__dict__.setdefault("_slot_sharing_groups", {})
        known = groups.get(slot_sharing_group.get_name())
        if known is not None and known != slot_sharing_group:
            raise IllegalArgumentException(
                f"The slot sharing group {slot_sharing_group.get_name()} has been configured with "
                "two different resource spec."
            )
        groups[slot_sharing_group.get_name()] = slot_sharing_group
        return self

    def get_slot_sharing_groups(self) -> dict[str, Any]:
        """The registered slot sharing groups by name (pyflowkit's view of Flink's
        ``slotSharingGroupResources``)."""
        return dict(self.__dict__.get("_slot_sharing_groups", {}))

    def register_cached_file(self, file_path: str, name: str, executable: bool = False) -> None:
        """Flink's ``registerCachedFile``: functions read it as
        ``runtime_context.get_distributed_cache().get_file(name)`` (``SparkFiles`` on Spark)."""
        path = deps.existing_path(file_path, "register_cached_file()")
        if not isinstance(name, str) or not name or any(c in name for c in ",;:"):
            raise IllegalArgumentException(
                f"register_cached_file(): name must be a non-empty str without ',', ';' or ':', "
                f"got {name!r}."
            )
        key = deps.CACHED_FILES
        registered = deps.cached_files(self._configuration.get_string(key))
        if name in registered:
            raise IllegalArgumentException(
                f"register_cached_file(): a file named {name!r} is already registered "
                f"({registered[name][0]!r})."
            )
        entries = deps.split_list(self._configuration.get_string(key), ";")
        entries.append(deps.cached_file_entry(name, path, executable))
        self._configuration.set_string(key, ";".join(entries))

    def close(self) -> None:
        """Flink's ``close``: release what the environment holds here (the ``sys.path`` entries
        and extracted archives of its Python files and archives)."""
        local = getattr(self, "_python_deps", None)
        if local is not None:
            local.close()
            self._python_deps = None
        for cache in self._cache_transformations:  # Flink: closing drops the cached datasets
            self._invalidate_cache(cache)

    def _append_config_list(self, key: str, values: Iterable[str]) -> None:
        existing = deps.split_list(self._configuration.get_string(key))
        items = existing + [str(v) for v in values]
        self._configuration.set_string(key, deps.FILE_DELIMITER.join(items))

    # --- cached intermediate results (DataStream.cache) ----------------------------------------
    def _register_cache(self, cache: Any) -> None:
        """Flink's ``registerCacheTransformation``."""
        self._cache_transformations.append(cache)

    def _invalidate_cache(self, cache: Any) -> None:
        """Flink's ``invalidateClusterDataset``: the next job recomputes the stream."""
        cache.reader = None

    def _keep_caches(self, stream_graph: Any, result: Any) -> None:
        """After a job: every ``CacheWrite`` that ran becomes a ``CacheRead`` source for later
        jobs, one partition per producer subtask (Flink marks the CacheTransformation cached)."""
        from pyflowkit.operators.sources import CachedPartitionsSource

        by_node = getattr(result, "results_by_node", None) or {}
        for cache in self._cache_transformations:
            node = stream_graph.nodes.get(cache.writer.id)
            if cache.reader is not None or node is None:
                continue
            partitions: list[list[Any]] = [[] for _ in range(node.parallelism)]
            for subtask, value in by_node.get(cache.writer.id, ()):
                partitions[subtask].append(value)
            params = {"source": CachedPartitionsSource(partitions), "function": None}
            reader = LegacySourceTransformation(
                CACHE_CONSUMER_OPERATOR_NAME,
                OperatorFactory("StreamSource", ChainingStrategy.HEAD, params),
                cache.output_type,
                node.parallelism,
                Boundedness.BOUNDED,
            )
            if node.max_parallelism > 0:
                reader.max_parallelism = node.max_parallelism
            cache.reader = reader

    # --- sources ------------------------------------------------------------------------------
    def _register(self, t: Transformation) -> None:
        self._all_transformations.append(t)

    def _add_operator(self, t: Transformation) -> None:
        """Flink's ``addOperator``: operators and sinks go into the transformation list."""
        self._register(t)
        self._transformations.append(t)

    def _legacy_source(
        self,
        name: str,
        params: dict[str, Any],
        type_info: TypeInformation | None,
        parallel: bool,
        boundedness: Boundedness,
    ) -> DataStream:
        t = LegacySourceTransformation(
            name,
            OperatorFactory("StreamSource", ChainingStrategy.HEAD, params),
            type_info,
            self.get_parallelism() if parallel else 1,
            boundedness,
            parallel,
        )
        self._register(t)
        return DataStream(self, t)

    def from_collection(
        self, collection: Iterable[Any], type_info: TypeInformation | None = None
    ) -> DataStream:
        """``Source: Collection Source``, non-parallel (forced parallelism 1)."""
        check_type_info(type_info, "from_collection()")
        if isinstance(collection, (str, bytes)) or not isinstance(collection, Iterable):
            raise IllegalArgumentException(
                f"from_collection() needs a collection (list, tuple, …), got {collection!r}."
            )
        elements = list(collection)
        if not elements:
            raise IllegalArgumentException("Collection must not be empty (from_collection()).")
        if isinstance(type_info, RowTypeInfo):
            # PyFlink reads the collection with its RowTypeInfo: functions get named Rows.
            elements = [type_info.row_of(e, "Source: Collection Source") for e in elements]
        from pyflowkit.operators.declared_types import convert_collection, tuple_columns

        columns = tuple_columns(type_info, elements)
        elements = convert_collection(type_info, elements, columns)  # PyFlink narrows ints
        _refuse_null_tuple_fields(elements, type_info, columns)  # None fields stay None
        reader = _source("pyflowkit.operators.sources", "CollectionSource", elements)
        if reader is not None:  # one list (the source's own copy): user-code copies check it once
            elements = reader.elements
        params = {"source": reader, "function": None, "elements": elements}
        return self._legacy_source(
            "Collection Source", params, type_info, False, Boundedness.BOUNDED
        )

    def from_elements(self, *elements: Any) -> DataStream:
        """Flink's ``fromElements``: a Collection Source."""
        return self.from_collection(list(elements))

    def add_source(
        self,
        source_func: Any,
        source_name: str = "Custom Source",
        type_info: TypeInformation | None = None,
    ) -> DataStream:
        """``addSource``: parallel only for a ``ParallelSourceFunction``; unbounded."""
        if source_func is None or not callable(getattr(source_func, "run", None)):
            raise IllegalArgumentException(
                f"add_source() needs a SourceFunction with run(ctx), got {source_func!r}."
            )
        if not isinstance(source_name, str) or not source_name:
            raise IllegalArgumentException("add_source(): source_name must be a non-empty string.")
        check_type_info(type_info, "add_source()")
        parallel = has_class_in_mro(source_func, "ParallelSourceFunction") or bool(
            getattr(source_func, "is_parallel", False)
        )
        params = {"source": source_func, "function": source_func}
        return self._legacy_source(
            source_name, params, type_info, parallel, Boundedness.CONTINUOUS_UNBOUNDED
        )

    def socket_text_stream(
        self, hostname: str, port: int, delimiter: str = "\n", max_retry: int = 0
    ) -> DataStream:
        """Strings read from a TCP socket, one per ``delimiter`` (``Source: Socket Stream``, p 1).

        Mirrors Flink's ``socketTextStream`` (``SocketTextStreamFunction``; not in PyFlink 1.20).
        """
        from pyflowkit.common.typeinfo import Types
        from pyflowkit.operators.socket_source import SocketTextStreamFunction

        function = SocketTextStreamFunction(hostname, port, delimiter, max_retry)
        return self.add_source(function, "Socket Stream", Types.STRING())

    def from_source(
        self,
        source: Any,
        watermark_strategy: Any,
        source_name: str,
        type_info: TypeInformation | None = None,
    ) -> DataStream:
        """``fromSource`` (FLIP-27): a parallel ``SourceTransformation`` at env parallelism, run by
        ``SourceOperator``, which applies ``watermark_strategy`` per split."""
        from pyflowkit.common.watermark_strategy import WatermarkStrategy

        if source is None:
            raise IllegalArgumentException("from_source() needs a Source, got None.")
        if not isinstance(watermark_strategy, WatermarkStrategy):
            raise IllegalArgumentException(
                f"from_source() needs a WatermarkStrategy, got {watermark_strategy!r}."
            )
        if not isinstance(source_name, str) or not source_name:
            raise IllegalArgumentException("from_source(): source_name must be a non-empty string.")
        check_type_info(type_info, "from_source()")
        get_boundedness = getattr(source, "get_boundedness", None)
        boundedness = Boundedness.BOUNDED
        if callable(get_boundedness):
            value = get_boundedness()
            name = getattr(value, "name", str(value))
            if name in Boundedness.__members__:
                boundedness = Boundedness[name]
        if type_info is None:
            produced = getattr(source, "get_produced_type", None)
            type_info = produced() if callable(produced) else None
        params = {"source": source, "function": None, "watermark_strategy": watermark_strategy}
        t = SourceTransformation(
            source_name,
            OperatorFactory("SourceOperator", ChainingStrategy.HEAD, params),
            type_info,
            self.get_parallelism(),
            boundedness,
        )
        self._register(t)
        return DataStream(self, t)

    def read_text_file(self, file_path: str, charset_name: str = "UTF-8") -> DataStream:
        """``readTextFile``: one parallel ``Custom File Source`` node reading line ranges.

        (Flink splits this into a parallelism-1 monitoring source and a parallel ``Split Reader``
        operator; pyflowkit reads the splits in one source node at the reader's parallelism.)
        """
        from pyflowkit.common.typeinfo import Types

        if not isinstance(file_path, str) or not file_path:
            raise IllegalArgumentException(
                "read_text_file(): file_path must be a non-empty string."
            )
        try:
            "".encode(charset_name)
        except LookupError:
            raise IllegalArgumentException(
                f"read_text_file(): unknown charset {charset_name!r}."
            ) from None
        reader = _source("pyflowkit.operators.sources", "TextFileSource", file_path, charset_name)
        params = {"source": reader, "function": None, "path": file_path, "charset": charset_name}
        return self._legacy_source(
            "Custom File Source", params, Types.STRING(), True, Boundedness.BOUNDED
        )

    def generate_sequence(self, frm: int, to: int) -> DataStream:
        """``generateSequence``: the parallel ``Source: Sequence Source``."""
        from pyflowkit.common.typeinfo import Types

        for v in (frm, to):
            if isinstance(v, bool) or not isinstance(v, int):
                raise IllegalArgumentException(f"generate_sequence() needs ints, got {v!r}.")
        if frm > to:
            raise IllegalArgumentException(
                f"Start of sequence must not be greater than the end (generate_sequence({frm}, "
                f"{to}))."
            )
        reader = _source("pyflowkit.operators.sources", "StatefulSequenceSource", frm, to)
        params = {"source": reader, "function": None, "start": frm, "end": to}
        return self._legacy_source(
            "Sequence Source", params, Types.LONG(), True, Boundedness.BOUNDED
        )

    # --- graphs -------------------------------------------------------------------------------
    def get_transformations(self) -> list[Transformation]:
        return list(self._transformations)

    def _retained_checkpoints(self) -> int:
        """The retained-checkpoints option under the profile's key(s) (FLIP-406 in 1.20)."""
        for key in self._profile.checkpoint_keys.num_retained:
            if self._configuration.contains_key(key):
                return self._configuration.get_integer(key, 1)
        return 1

    def _settings(self, profile: FlinkVersionProfile | None = None) -> Any:
        """The frozen settings; ``profile`` compiles under another version (its time defaults
        unless the program chose a time characteristic), as ``compare_versions`` does."""
        from pyflowkit.graph.settings import EnvironmentSettings

        restart = self._config.get_restart_strategy()
        if profile is not None and profile is not self._profile:
            saved = (
                self._profile,
                self._time_characteristic,
                self._config.get_auto_watermark_interval(),
            )
            self._profile = profile
            if not self._time_characteristic_set:
                self._apply_time_defaults()
            try:
                return self._settings()
            finally:
                self._profile, self._time_characteristic = saved[0], saved[1]
                self._config.set_auto_watermark_interval(saved[2])
        return EnvironmentSettings(
            parallelism=self.get_parallelism(),
            max_parallelism=self.get_max_parallelism(),
            chaining_enabled=self._chaining_enabled,
            runtime_mode=self._runtime_mode.name,
            time_characteristic=self._time_characteristic.name,
            auto_watermark_interval=self._config.get_auto_watermark_interval(),
            buffer_timeout=self._buffer_timeout,
            auto_generated_uids=self._config.has_auto_generated_uids_enabled(),
            checkpoint=self._checkpoint_config.to_settings(self._retained_checkpoints()),
            restart_strategy=(
                None if isinstance(restart, FallbackRestartStrategyConfiguration) else restart
            ),
            configuration=self._configuration.to_dict(),
            flink_version=self._profile.version,
        )

    def get_stream_graph(
        self, job_name: str | None = None, clear_transformations: bool = False
    ) -> Any:
        """Flink's ``getStreamGraph``: runs ``StreamGraphGenerator`` over the transformations."""
        if not self._transformations:
            raise IllegalStateException(
                "No operators defined in streaming topology. Cannot execute."
            )
        from pyflowkit.graph.stream_graph_generator import StreamGraphGenerator

        graph = StreamGraphGenerator(
            list(self._transformations), self._settings(), job_name
        ).generate()
        if clear_transformations:
            self._transformations.clear()
        return graph

    def _stream_graph_under(self, version: str, job_name: str | None = None) -> Any:
        """The StreamGraph this program compiles to under ``version``'s profile (the
        environment is left as it was): ``pyflowkit.compare_versions``."""
        if not self._transformations:
            raise IllegalStateException(
                "No operators defined in streaming topology. Cannot execute."
            )
        from pyflowkit.graph.stream_graph_generator import StreamGraphGenerator

        settings = self._settings(profile_for(version))
        configuration = {**settings.configuration, FLINK_VERSION_KEY: version}
        settings = replace(settings, configuration=configuration)
        return StreamGraphGenerator(list(self._transformations), settings, job_name).generate()

    def get_job_graph(self, job_name: str | None = None) -> Any:
        from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

        return create_job_graph(self.get_stream_graph(job_name))

    def get_execution_graph(self, job_name: str | None = None) -> Any:
        from pyflowkit.graph.execution_graph import ExecutionGraph

        return ExecutionGraph.from_job_graph(self.get_job_graph(job_name))

    def get_execution_plan(self) -> str:
        """Flink 1.11's ``getExecutionPlan()`` JSON (JSONGenerator format)."""
        from pyflowkit.graph.json_plan import stream_graph_to_execution_plan

        return stream_graph_to_execution_plan(self.get_stream_graph())

    def explain_chaining(self) -> Any:
        """Why each StreamEdge is chained or not (``JobGraph.explain_chaining()``)."""
        return self.get_job_graph().explain_chaining()

    # --- execution ----------------------------------------------------------------------------
    def _executor(self) -> Any:
        target = self._configuration.get_string("execution.target", "spark") or "spark"
        module = EXECUTION_TARGETS.get(target)
        if module is None:
            raise IllegalArgumentException(
                f"Unknown execution.target {target!r}: use one of {sorted(EXECUTION_TARGETS)}."
            )
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as e:
            if e.name is not None and module.startswith(e.name):
                raise IllegalStateException(
                    f"execution.target '{target}' is not available yet: module {module} is missing."
                ) from e
            raise

    def execute(self, job_name: str | None = None, *, spark: Any = None) -> JobExecutionResult:
        """Compiles and runs the job on ``execution.target`` (``spark`` default, ``local``).

        ``spark`` (pyflowkit's addition): an existing ``SparkSession`` (classic or Connect) to run
        on; it implies the Spark target.
        """
        if not self._transformations:
            raise IllegalStateException(
                "No operators defined in streaming topology. Cannot execute."
            )
        if self._capture is not None:
            self._capture.executions.append((self, job_name))
            raise ProgramAbortException(
                f"Job {job_name or DEFAULT_JOB_NAME!r} captured by capture_environments(); "
                "it was not executed."
            )
        # Flink's execute(jobName) = execute(getStreamGraph(jobName, clearTransformations=true)):
        # the transformations are gone once the graph exists, whether the job then runs or fails
        pipeline = _StreamGraphPipeline(self, self.get_stream_graph(job_name, True))
        if spark is None:
            result = self._executor().execute(pipeline, job_name)
        else:
            executor = importlib.import_module(EXECUTION_TARGETS["spark"])
            result = executor.execute(pipeline, job_name, spark=spark)
        self._keep_caches(pipeline._stream_graph, result)
        return result

    def _start_streaming_job(self, job_name: str | None, spark: Any) -> Any:
        """An unbounded job on Spark started for ``execute_and_collect`` (None: not such a job)."""
        if self._capture is not None or not self._transformations:
            return None
        executor = importlib.import_module(EXECUTION_TARGETS["spark"]) if spark else None
        executor = executor or self._executor()
        starter = getattr(executor, "start_if_streaming", None)
        if starter is None:
            return None
        return starter(self, job_name, spark)

    def execute_async(self, job_name: str | None = None, *, spark: Any = None) -> JobClient:
        """Submits the job and returns its ``JobClient``: on the local target the job is RUNNING on
        a simulated MiniCluster (savepoints, cancel; it runs to its end when its result is asked
        for), a streaming job on Spark runs on, a bounded Spark job has finished first."""
        executor = (
            importlib.import_module(EXECUTION_TARGETS["spark"]) if spark is not None else None
        )
        executor = executor or self._executor()
        if self._capture is None and hasattr(executor, "execute_async"):
            if not self._transformations:
                raise IllegalStateException(
                    "No operators defined in streaming topology. Cannot execute."
                )
            pipeline = _StreamGraphPipeline(self, self.get_stream_graph(job_name, True))
            return executor.execute_async(pipeline, job_name, spark=spark)
        try:
            result = self.execute(job_name, spark=spark)
        except JobExecutionException as e:
            return JobClient(e.job_id, None, e)
        return JobClient(result.get_job_id(), result)

    def __repr__(self) -> str:
        return (
            f"StreamExecutionEnvironment(parallelism={self.get_parallelism()}, "
            f"transformations={len(self._transformations)})"
        )


class _StreamGraphPipeline:
    """What ``execute()`` hands an executor: the StreamGraph generated (once) at execution time.

    Stands for Flink's ``Pipeline`` given to ``PipelineExecutor.execute``; settings and
    configuration are read through to the environment, whose transformations are already cleared.
    """

    def __init__(self, env: StreamExecutionEnvironment, stream_graph: Any) -> None:
        self._env = env
        self._stream_graph = stream_graph

    def get_stream_graph(
        self, job_name: str | None = None, clear_transformations: bool = False
    ) -> Any:
        return self._stream_graph

    def get_job_graph(self, job_name: str | None = None) -> Any:
        from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

        return create_job_graph(self._stream_graph)

    def get_execution_graph(self, job_name: str | None = None) -> Any:
        from pyflowkit.graph.execution_graph import ExecutionGraph

        return ExecutionGraph.from_job_graph(self.get_job_graph(job_name))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


def _java_only(method: str, option: str, values: Iterable[str]) -> str:
    return (
        f"StreamExecutionEnvironment.{method}({', '.join(map(repr, values))}): pyflowkit runs "
        f"Python functions only and has no JVM to load Java code into ({option!r}); use a Python "
        "connector or function instead. The environment is unchanged."
    )


def _refuse_null_tuple_fields(
    elements: list[Any], type_info: TypeInformation | None, columns: list[Any] | None = None
) -> None:
    """``fromCollection`` serializes every element on the client: a None field of a declared
    tuple fails the call, as Flink's ``TupleSerializer`` does."""
    from pyflowkit.operators.declared_types import first_null_tuple_field

    found = first_null_tuple_field(type_info, elements, columns)
    if found is not None:
        index, field = found
        element = elements[index]
        raise InvalidProgramException(
            f"from_collection(): element {index} {element!r} cannot be serialized with its "
            f"declared type {type_info}: Field {field} is null, but expected to hold a value "
            "(Flink's TupleSerializer refuses null fields: NullFieldException). Declare the "
            "record as Types.ROW(...) to allow None fields."
        )
