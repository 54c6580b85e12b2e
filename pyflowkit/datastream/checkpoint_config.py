"""``CheckpointConfig`` (PyFlink's ``pyflink.datastream.CheckpointConfig``), live on the env.

Flink 1.11 defaults and validation messages (reference §7.1); ``to_settings()`` freezes it into
``pyflowkit.graph.settings.CheckpointSettings``.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pyflowkit.datastream.checkpointing_mode import CheckpointingMode
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import INT_MAX_VALUE

MINIMAL_CHECKPOINT_TIME = 10  # CheckpointConfig / CheckpointCoordinatorConfiguration (ms)
UNLIMITED_TOLERABLE_FAILURE_NUMBER = INT_MAX_VALUE


class ExternalizedCheckpointCleanup(Enum):
    """Flink's ``CheckpointConfig.ExternalizedCheckpointCleanup``."""

    DELETE_ON_CANCELLATION = 0
    RETAIN_ON_CANCELLATION = 1


def _check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalArgumentException(f"{what} must be an int (milliseconds), got {value!r}.")
    return value


class CheckpointConfig:
    """Flink's ``CheckpointConfig``: interval, mode, timeout, pauses, retention."""

    def __init__(self) -> None:
        self._interval = -1
        self._mode = CheckpointingMode.EXACTLY_ONCE
        self._timeout = 600_000
        self._min_pause = 0
        self._max_concurrent = 1
        self._tolerable_failures: int | None = None
        self._unaligned = False
        self._externalized: ExternalizedCheckpointCleanup | None = None
        self._prefer_checkpoint_for_recovery = False
        self._fail_on_checkpointing_errors = True

    # --- enabling / interval ------------------------------------------------------------------
    def is_checkpointing_enabled(self) -> bool:
        return self._interval > 0

    def get_checkpoint_interval(self) -> int:
        return self._interval

    def set_checkpoint_interval(self, checkpoint_interval: int) -> CheckpointConfig:
        _check_int(checkpoint_interval, "Checkpoint interval")
        if checkpoint_interval < MINIMAL_CHECKPOINT_TIME:
            raise IllegalArgumentException(
                f"Checkpoint interval must be larger than or equal to {MINIMAL_CHECKPOINT_TIME} ms"
            )
        self._interval = checkpoint_interval
        return self

    def get_checkpointing_mode(self) -> CheckpointingMode:
        return self._mode

    def set_checkpointing_mode(self, checkpointing_mode: CheckpointingMode) -> CheckpointConfig:
        if not isinstance(checkpointing_mode, CheckpointingMode):
            raise IllegalArgumentException(
                "Checkpointing mode must be CheckpointingMode.EXACTLY_ONCE or AT_LEAST_ONCE, got "
                f"{checkpointing_mode!r}."
            )
        self._mode = checkpointing_mode
        return self

    # --- timing -------------------------------------------------------------------------------
    def get_checkpoint_timeout(self) -> int:
        return self._timeout

    def set_checkpoint_timeout(self, checkpoint_timeout: int) -> CheckpointConfig:
        _check_int(checkpoint_timeout, "Checkpoint timeout")
        if checkpoint_timeout < MINIMAL_CHECKPOINT_TIME:
            raise IllegalArgumentException(
                f"Checkpoint timeout must be larger than or equal to {MINIMAL_CHECKPOINT_TIME} ms"
            )
        self._timeout = checkpoint_timeout
        return self

    def get_min_pause_between_checkpoints(self) -> int:
        return self._min_pause

    def set_min_pause_between_checkpoints(
        self, min_pause_between_checkpoints: int
    ) -> CheckpointConfig:
        _check_int(min_pause_between_checkpoints, "Minimum pause between checkpoints")
        if min_pause_between_checkpoints < 0:
            raise IllegalArgumentException("Pause value must be zero or positive")
        self._min_pause = min_pause_between_checkpoints
        return self

    def get_max_concurrent_checkpoints(self) -> int:
        return self._max_concurrent

    def set_max_concurrent_checkpoints(self, max_concurrent_checkpoints: int) -> CheckpointConfig:
        _check_int(max_concurrent_checkpoints, "Maximum concurrent checkpoints")
        if max_concurrent_checkpoints < 1:
            raise IllegalArgumentException(
                "The maximum number of concurrent attempts must be at least one."
            )
        self._max_concurrent = max_concurrent_checkpoints
        return self

    # --- failures -----------------------------------------------------------------------------
    def is_fail_on_checkpointing_errors(self) -> bool:
        return self._fail_on_checkpointing_errors

    def set_fail_on_checkpointing_errors(
        self, fail_on_checkpointing_errors: bool
    ) -> CheckpointConfig:
        """Deprecated in Flink 1.11: sets the tolerable failures to 0 (fail) or
        ``Integer.MAX_VALUE`` (don't), and does nothing once that number was configured."""
        if self._tolerable_failures is not None:
            return self  # Flink only logs a warning here
        self._fail_on_checkpointing_errors = bool(fail_on_checkpointing_errors)
        self._tolerable_failures = (
            0 if fail_on_checkpointing_errors else UNLIMITED_TOLERABLE_FAILURE_NUMBER
        )
        return self

    def get_tolerable_checkpoint_failure_number(self) -> int:
        return self._tolerable_failures or 0

    def set_tolerable_checkpoint_failure_number(
        self, tolerable_checkpoint_failure_number: int
    ) -> CheckpointConfig:
        _check_int(tolerable_checkpoint_failure_number, "Tolerable checkpoint failure number")
        if tolerable_checkpoint_failure_number < 0:
            raise IllegalArgumentException(
                "The tolerable failure checkpoint number must be non-negative."
            )
        self._tolerable_failures = tolerable_checkpoint_failure_number
        return self

    # --- retention / alignment ----------------------------------------------------------------
    def enable_externalized_checkpoints(
        self, cleanup_mode: ExternalizedCheckpointCleanup
    ) -> CheckpointConfig:
        if not isinstance(cleanup_mode, ExternalizedCheckpointCleanup):
            raise IllegalArgumentException(
                "enable_externalized_checkpoints needs an ExternalizedCheckpointCleanup, got "
                f"{cleanup_mode!r}."
            )
        self._externalized = cleanup_mode
        return self

    # --- checkpoint storage (Flink 1.20's CheckpointConfig#setCheckpointStorage) --------------
    def _options(self) -> Any:
        """The environment's Configuration this config writes storage options into."""
        from pyflowkit.common.configuration import Configuration

        if getattr(self, "_configuration", None) is None:
            self._configuration = Configuration()
        return self._configuration

    def set_checkpoint_storage(self, storage: Any) -> CheckpointConfig:
        """Where checkpoints go: ``JobManagerCheckpointStorage`` or
        ``FileSystemCheckpointStorage`` (``state.checkpoint-storage``, ``state.checkpoints.dir``)."""
        from pyflowkit.datastream.checkpoint_storage import (
            CHECKPOINT_STORAGE,
            CHECKPOINTS_DIR,
            CheckpointStorage,
        )

        if not isinstance(storage, CheckpointStorage):
            raise IllegalArgumentException(
                "set_checkpoint_storage needs a CheckpointStorage (JobManagerCheckpointStorage() or "
                f"FileSystemCheckpointStorage('file:///tmp/chk')), got {storage!r}."
            )
        options = self._options()
        for key in (CHECKPOINT_STORAGE, CHECKPOINTS_DIR):
            options.remove_config(key)
        for key, value in storage.configuration().items():
            options.set_string(key, value)
        self._storage = storage
        return self

    def set_checkpoint_storage_dir(self, checkpoint_path: str) -> CheckpointConfig:
        """Shorthand for ``set_checkpoint_storage(FileSystemCheckpointStorage(checkpoint_path))``."""
        from pyflowkit.datastream.checkpoint_storage import FileSystemCheckpointStorage

        return self.set_checkpoint_storage(FileSystemCheckpointStorage(checkpoint_path))

    def get_checkpoint_storage(self) -> Any:
        """The storage set, else the one the options name (``JobManagerCheckpointStorage`` by
        default, ``FileSystemCheckpointStorage`` when ``state.checkpoints.dir`` is set)."""
        from pyflowkit.datastream.checkpoint_storage import (
            CHECKPOINT_STORAGE,
            CHECKPOINTS_DIR,
            FileSystemCheckpointStorage,
            JobManagerCheckpointStorage,
        )

        storage = getattr(self, "_storage", None)
        if storage is not None:
            return storage
        path = self._options().get_string(CHECKPOINTS_DIR)
        if self._options().get_string(CHECKPOINT_STORAGE) == "jobmanager" or not path:
            return JobManagerCheckpointStorage(path)
        return FileSystemCheckpointStorage(path)

    def is_externalized_checkpoints_enabled(self) -> bool:
        return self._externalized is not None

    def get_externalized_checkpoint_cleanup(self) -> ExternalizedCheckpointCleanup | None:
        return self._externalized

    def is_prefer_checkpoint_for_recovery(self) -> bool:
        return self._prefer_checkpoint_for_recovery

    def set_prefer_checkpoint_for_recovery(
        self, prefer_checkpoint_for_recovery: bool
    ) -> CheckpointConfig:
        self._prefer_checkpoint_for_recovery = bool(prefer_checkpoint_for_recovery)
        return self

    def enable_unaligned_checkpoints(self, enabled: bool = True) -> CheckpointConfig:
        self._unaligned = bool(enabled)
        return self

    def disable_unaligned_checkpoints(self) -> CheckpointConfig:
        self._unaligned = False
        return self

    def is_unaligned_checkpoints_enabled(self) -> bool:
        return self._unaligned

    # --- freezing -----------------------------------------------------------------------------
    def to_settings(self, num_retained: int = 1) -> Any:
        """A frozen ``CheckpointSettings`` for the graph generator."""
        from pyflowkit.graph.settings import CheckpointSettings

        return CheckpointSettings(
            interval=self._interval,
            mode=self._mode.name,
            timeout=self._timeout,
            min_pause=self._min_pause,
            max_concurrent=self._max_concurrent,
            tolerable_failures=self._tolerable_failures or 0,
            unaligned=self._unaligned,
            externalized_retention=self._externalized.name if self._externalized else None,
            num_retained=num_retained,
            prefer_checkpoint_for_recovery=self._prefer_checkpoint_for_recovery,
        )

    def _copy_state(self) -> dict[str, Any]:
        return dict(vars(self))

    def _restore_state(self, state: dict[str, Any]) -> None:
        vars(self).clear()
        vars(self).update(state)
