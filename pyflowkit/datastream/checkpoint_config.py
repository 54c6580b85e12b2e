"""``CheckpointConfig`` (PyFlink's ``pyflink.datastream.CheckpointConfig``), live on the env.

Flink 1.11 defaults and validation messages (reference §7.1); ``to_settings()`` freezes it into
``pyflowkit.graph.settings.CheckpointSettings``.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pyflowkit.common.time import Duration
from pyflowkit.datastream.checkpointing_mode import CheckpointingMode
from pyflowkit.datastream.externalized_checkpoint_retention import (
    ExternalizedCheckpointRetention,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import INT_MAX_VALUE

MINIMAL_CHECKPOINT_TIME = 10  # CheckpointConfig / CheckpointCoordinatorConfiguration (ms)
UNLIMITED_TOLERABLE_FAILURE_NUMBER = INT_MAX_VALUE


class ExternalizedCheckpointCleanup(Enum):
    """Flink's ``CheckpointConfig.ExternalizedCheckpointCleanup``."""

    DELETE_ON_CANCELLATION = 0
    RETAIN_ON_CANCELLATION = 1
    NO_EXTERNALIZED_CHECKPOINTS = 2


def _check_int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalArgumentException(f"{what} must be an int (milliseconds), got {value!r}.")
    return value


class CheckpointConfig:
    """Flink's ``CheckpointConfig``: interval, mode, timeout, pauses, retention."""

    DEFAULT_MODE = CheckpointingMode.EXACTLY_ONCE
    DEFAULT_TIMEOUT = 10 * 60 * 1000  # ms
    DEFAULT_MIN_PAUSE_BETWEEN_CHECKPOINTS = 0
    DEFAULT_MAX_CONCURRENT_CHECKPOINTS = 1

    def __init__(self) -> None:
        self._interval = -1
        self._mode = self.DEFAULT_MODE
        self._timeout = self.DEFAULT_TIMEOUT
        self._min_pause = self.DEFAULT_MIN_PAUSE_BETWEEN_CHECKPOINTS
        self._max_concurrent = self.DEFAULT_MAX_CONCURRENT_CHECKPOINTS
        self._tolerable_failures: int | None = None
        self._unaligned = False
        # an ExternalizedCheckpointRetention name (1.20's default: none retained)
        self._externalized = ExternalizedCheckpointRetention.NO_EXTERNALIZED_CHECKPOINTS.name
        self._alignment_timeout = Duration.of_millis(0)  # ALIGNED_CHECKPOINT_TIMEOUT default
        self._force_unaligned = False
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
        """Retain checkpoints after the job ends; ``cleanup_mode`` says whether cancelling
        deletes them (Flink's ``enableExternalizedCheckpoints``)."""
        return self._set_retention(cleanup_mode, ExternalizedCheckpointCleanup)

    def set_externalized_checkpoint_cleanup(
        self, cleanup_mode: ExternalizedCheckpointCleanup
    ) -> CheckpointConfig:
        """Flink 1.20's name of ``enable_externalized_checkpoints``
        (``NO_EXTERNALIZED_CHECKPOINTS`` turns retention off)."""
        return self._set_retention(cleanup_mode, ExternalizedCheckpointCleanup)

    def set_externalized_checkpoint_retention(
        self, retention_mode: ExternalizedCheckpointRetention
    ) -> CheckpointConfig:
        """Flink 1.20's ``setExternalizedCheckpointRetention``: the JobGraph's retention policy,
        which the CheckpointCoordinator applies when the job FAILS or is CANCELED."""
        return self._set_retention(retention_mode, ExternalizedCheckpointRetention)

    def _set_retention(self, mode: Any, kind: type[Enum]) -> CheckpointConfig:
        # PyFlink converts either enum by its member name (``_to_j_externalized_checkpoint_*``
        # read ``self.name``): an ExternalizedCheckpointRetention works for the cleanup setters
        if not isinstance(mode, (ExternalizedCheckpointCleanup, ExternalizedCheckpointRetention)):
            names = ", ".join(f"{kind.__name__}.{m}" for m in kind.__members__)
            raise IllegalArgumentException(
                f"Externalized checkpoint retention must be one of {names}, got {mode!r}."
            )
        self._externalized = mode.name
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
        """The storage set with ``set_checkpoint_storage``/``set_checkpoint_storage_dir``, or None
        (PyFlink 1.20: Java's ``getCheckpointStorage()``, null unless set; the options
        ``state.checkpoint-storage``/``state.checkpoints.dir`` alone set none)."""
        return getattr(self, "_storage", None)

    def is_externalized_checkpoints_enabled(self) -> bool:
        return self._externalized != "NO_EXTERNALIZED_CHECKPOINTS"

    def get_externalized_checkpoint_cleanup(self) -> ExternalizedCheckpointCleanup | None:
        return ExternalizedCheckpointCleanup[self._externalized]

    def get_externalized_checkpoint_retention(self) -> ExternalizedCheckpointRetention | None:
        return ExternalizedCheckpointRetention[self._externalized]

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

    def set_alignment_timeout(self, alignment_timeout: Duration) -> CheckpointConfig:
        """Flink 1.20's aligned-checkpoint timeout (only read with unaligned checkpoints): 0
        starts every checkpoint unaligned; more starts it aligned and switches after that long.

        pyflowkit's runtime is Flink 1.11's, whose unaligned checkpoints always start unaligned
        (timeout 0); a job with unaligned checkpoints and a timeout above 0 is refused when its
        graph is built, naming this setting. Reported in ``run.checkpoint_config()``.
        """
        if not isinstance(alignment_timeout, Duration):
            raise IllegalArgumentException(
                "set_alignment_timeout() takes a Duration (e.g. Duration.of_millis(0)), got "
                f"{alignment_timeout!r}."
            )
        if alignment_timeout.to_milliseconds() < 0:
            raise IllegalArgumentException("The alignment timeout must not be negative.")
        self._alignment_timeout = alignment_timeout
        return self

    def get_alignment_timeout(self) -> Duration:
        return self._alignment_timeout

    def set_force_unaligned_checkpoints(
        self, force_unaligned_checkpoints: bool = True
    ) -> CheckpointConfig:
        """Flink's ``setForceUnalignedCheckpoints``: take unaligned checkpoints even across
        custom partitioners (and iterations, which pyflowkit has not).

        pyflowkit's 1.11 runtime sends unaligned barriers over every edge, custom partitioners
        included, which is what forcing asks for; reported in ``run.checkpoint_config()``.
        """
        if not isinstance(force_unaligned_checkpoints, bool):
            raise IllegalArgumentException(
                "set_force_unaligned_checkpoints() takes True or False, got "
                f"{force_unaligned_checkpoints!r}."
            )
        self._force_unaligned = force_unaligned_checkpoints
        return self

    def is_force_unaligned_checkpoints(self) -> bool:
        return self._force_unaligned

    # --- freezing -----------------------------------------------------------------------------
    def to_settings(self, num_retained: int = 1) -> Any:
        """A frozen ``CheckpointSettings`` for the graph generator."""
        from pyflowkit.graph.settings import CheckpointSettings

        timeout_ms = self._alignment_timeout.to_milliseconds()
        if self._unaligned and timeout_ms > 0:
            raise IllegalArgumentException(
                f"CheckpointConfig.set_alignment_timeout({timeout_ms} ms) with unaligned "
                "checkpoints: pyflowkit runs Flink 1.11's checkpointing, whose unaligned "
                "checkpoints start unaligned and never switch from aligned after a timeout. Use "
                "set_alignment_timeout(Duration.of_millis(0)) or aligned checkpoints."
            )
        retained = self._externalized != "NO_EXTERNALIZED_CHECKPOINTS"
        return CheckpointSettings(
            interval=self._interval,
            mode=self._mode.name,
            timeout=self._timeout,
            min_pause=self._min_pause,
            max_concurrent=self._max_concurrent,
            tolerable_failures=self._tolerable_failures or 0,
            unaligned=self._unaligned,
            externalized_retention=self._externalized if retained else None,
            num_retained=num_retained,
            prefer_checkpoint_for_recovery=self._prefer_checkpoint_for_recovery,
            aligned_checkpoint_timeout=timeout_ms,
            force_unaligned=self._force_unaligned,
        )

    def _copy_state(self) -> dict[str, Any]:
        return dict(vars(self))

    def _restore_state(self, state: dict[str, Any]) -> None:
        vars(self).clear()
        vars(self).update(state)
