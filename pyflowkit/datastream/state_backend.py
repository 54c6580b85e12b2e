"""PyFlink's ``pyflink.datastream.state_backend``: which keyed state backend a job declares.

The simulated cluster and Spark's batch stages keep keyed state in pyflowkit's heap backend
(Flink's ``HeapKeyedStateBackend``, what ``HashMapStateBackend`` runs); Spark's streaming
executor keeps it in Spark's RocksDB state store. The declared backend is reported by
``run.checkpoint_config()`` (Flink's ``/jobs/:id/checkpoints/config``); the 1.11 backends that take
paths (``MemoryStateBackend``, ``FsStateBackend``, ``RocksDBStateBackend``) also set where
checkpoints and savepoints are written.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pyflowkit.common.checkpointing_options import INCREMENTAL, STATE_BACKEND
from pyflowkit.datastream.checkpoint_storage import (
    SAVEPOINTS_DIR,
    FileSystemCheckpointStorage,
    JobManagerCheckpointStorage,
    directory,
)
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException

__all__ = [
    "StateBackend",
    "HashMapStateBackend",
    "EmbeddedRocksDBStateBackend",
    "MemoryStateBackend",
    "FsStateBackend",
    "RocksDBStateBackend",
    "CustomStateBackend",
    "PredefinedOptions",
]


class PredefinedOptions(Enum):
    """Flink's ``PredefinedOptions`` for RocksDB."""

    DEFAULT = 0
    SPINNING_DISK_OPTIMIZED = 1
    SPINNING_DISK_OPTIMIZED_HIGH_MEM = 2
    FLASH_SSD_OPTIMIZED = 3


class StateBackend:
    """PyFlink's ``StateBackend``: ``configuration()`` gives the options it stands for."""

    name = "hashmap"

    def configuration(self) -> dict[str, str]:
        return {STATE_BACKEND: self.name}

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class HashMapStateBackend(StateBackend):
    """Flink's ``HashMapStateBackend``: keyed state as objects on the heap."""

    def __init__(self, j_hashmap_state_backend: Any = None) -> None:
        pass


class _RocksDBOptions(StateBackend):
    name = "rocksdb"

    def _init_rocksdb(self, incremental: bool | None) -> None:
        self._incremental = bool(incremental)
        self._paths: list[str] = []
        self._predefined = PredefinedOptions.DEFAULT
        self._options: str | None = None
        self._threads = 4  # Flink's CHECKPOINT_TRANSFER_THREAD_NUM default

    def configuration(self) -> dict[str, str]:
        return {**super().configuration(), INCREMENTAL: str(self._incremental).lower()}

    def set_db_storage_paths(self, *paths: str) -> None:
        self._paths = [directory(p, f"{type(self).__name__}.set_db_storage_paths") for p in paths]  # type: ignore[misc]

    def get_db_storage_paths(self) -> list[str]:
        return list(self._paths)

    def is_incremental_checkpoints_enabled(self) -> bool:
        return self._incremental

    def set_predefined_options(self, options: PredefinedOptions) -> None:
        if not isinstance(options, PredefinedOptions):
            raise IllegalArgumentException(
                f"set_predefined_options() needs a PredefinedOptions, got {options!r}."
            )
        self._predefined = options

    def get_predefined_options(self) -> PredefinedOptions:
        return self._predefined

    def set_options(self, options_factory_class_name: str) -> None:
        raise UnsupportedOperationException(
            f"{type(self).__name__}.set_options({options_factory_class_name!r}): a "
            "RocksDBOptionsFactory is a Java class; pyflowkit has no JVM."
        )

    def get_options(self) -> str | None:
        return self._options

    def _check_threads(self, n: int) -> int:
        if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
            raise IllegalArgumentException(
                f"the number of transfer threads must be positive, got {n!r}."
            )
        return n


class EmbeddedRocksDBStateBackend(_RocksDBOptions):
    """Flink's ``EmbeddedRocksDBStateBackend``."""

    def __init__(
        self,
        enable_incremental_checkpointing: bool | None = None,
        j_embedded_rocks_db_state_backend: Any = None,
    ) -> None:
        self._init_rocksdb(enable_incremental_checkpointing)

    def get_number_of_transfer_threads(self) -> int:
        return self._threads

    def set_number_of_transfer_threads(self, number_of_transfering_threads: int) -> None:
        self._threads = self._check_threads(number_of_transfering_threads)


class _LegacyStateBackend(StateBackend):
    """What Flink 1.11's state backends share: a checkpoint storage, a default savepoint
    directory and the asynchronous-snapshots flag."""

    _storage: Any

    def _init_legacy(
        self, storage: Any, savepoints: str | None, name: str, asynchronous: bool | None
    ) -> None:
        self._storage = storage
        self._savepoints = directory(savepoints, name)
        self._async = True if asynchronous is None else bool(asynchronous)

    def configuration(self) -> dict[str, str]:
        out = {**super().configuration(), **self._storage.configuration()}
        if self._savepoints is not None:
            out[SAVEPOINTS_DIR] = self._savepoints
        return out

    def is_using_asynchronous_snapshots(self) -> bool:
        return self._async


class MemoryStateBackend(_LegacyStateBackend):
    """Flink 1.11's ``MemoryStateBackend``: ``HashMapStateBackend`` plus
    ``JobManagerCheckpointStorage(checkpoint_path)`` and a savepoint directory."""

    DEFAULT_MAX_STATE_SIZE = 5 * 1024 * 1024  # bytes

    def __init__(
        self,
        checkpoint_path: str | None = None,
        savepoint_path: str | None = None,
        max_state_size: int | None = None,
        using_asynchronous_snapshots: bool | None = None,
        j_memory_state_backend: Any = None,
    ) -> None:
        self._init_legacy(
            JobManagerCheckpointStorage(checkpoint_path, max_state_size),
            savepoint_path,
            "MemoryStateBackend",
            using_asynchronous_snapshots,
        )

    def get_max_state_size(self) -> int:
        return self._storage.get_max_state_size()


class FsStateBackend(_LegacyStateBackend):
    """Flink 1.11's ``FsStateBackend``: ``HashMapStateBackend`` plus
    ``FileSystemCheckpointStorage(checkpoint_directory_uri)``."""

    def __init__(
        self,
        checkpoint_directory_uri: str | None = None,
        default_savepoint_directory_uri: str | None = None,
        file_state_size_threshold: int | None = None,
        write_buffer_size: int | None = None,
        using_asynchronous_snapshots: bool | None = None,
        j_fs_state_backend: Any = None,
    ) -> None:
        storage = FileSystemCheckpointStorage(
            checkpoint_directory_uri,
            file_state_size_threshold,
            -1 if write_buffer_size is None else write_buffer_size,
        )
        self._init_legacy(
            storage, default_savepoint_directory_uri, "FsStateBackend", using_asynchronous_snapshots
        )

    def get_checkpoint_path(self) -> str:
        return self._storage.get_checkpoint_path()

    def get_min_file_size_threshold(self) -> int:
        return self._storage.get_min_file_size_threshold()

    def get_write_buffer_size(self) -> int:
        return self._storage.get_write_buffer_size()


class RocksDBStateBackend(_RocksDBOptions):
    """Flink 1.11's ``RocksDBStateBackend``: ``EmbeddedRocksDBStateBackend`` plus
    ``FileSystemCheckpointStorage(checkpoint_data_uri)``."""

    def __init__(
        self,
        checkpoint_data_uri: str | None = None,
        enable_incremental_checkpointing: bool | None = None,
        checkpoint_stream_backend: StateBackend | None = None,
        j_rocks_db_state_backend: Any = None,
    ) -> None:
        if checkpoint_stream_backend is not None:
            if not isinstance(checkpoint_stream_backend, FsStateBackend):
                raise IllegalArgumentException(
                    "RocksDBStateBackend: checkpoint_stream_backend must be an FsStateBackend, got "
                    f"{checkpoint_stream_backend!r}."
                )
            self._backend = checkpoint_stream_backend
        else:
            self._backend = FsStateBackend(checkpoint_data_uri)
        self._init_rocksdb(enable_incremental_checkpointing)

    def configuration(self) -> dict[str, str]:
        out = self._backend.configuration()
        out.update(super().configuration())
        return out

    def get_checkpoint_backend(self) -> FsStateBackend:
        return self._backend

    def get_number_of_transfering_threads(self) -> int:
        return self._threads

    def set_number_of_transfering_threads(self, number_of_transfering_threads: int) -> None:
        self._threads = self._check_threads(number_of_transfering_threads)


class CustomStateBackend(StateBackend):
    """PyFlink's wrapper of a Java ``StateBackend`` class: needs a JVM, refused."""

    def __init__(self, j_custom_state_backend: Any) -> None:
        raise UnsupportedOperationException(
            "CustomStateBackend wraps a Java StateBackend; pyflowkit has no JVM. Use "
            "HashMapStateBackend or EmbeddedRocksDBStateBackend."
        )
