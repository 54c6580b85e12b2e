"""PyFlink's ``pyflink.datastream.checkpoint_storage``: where checkpoints and savepoints go.

Flink 1.20's ``CheckpointStorage`` options: ``state.checkpoint-storage`` (``jobmanager`` /
``filesystem``), ``state.checkpoints.dir`` and ``state.savepoints.dir``. The simulated cluster
writes each completed checkpoint to ``<state.checkpoints.dir>/<job id>/chk-<n>`` (shown as its
``external_path``) and savepoints to ``state.savepoints.dir``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.checkpointing_options import (
    CHECKPOINT_STORAGE,
    CHECKPOINTS_DIR,
    SAVEPOINTS_DIR,
)
from pyflowkit.common.fs_path import local_path
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException

__all__ = [
    "CheckpointStorage",
    "JobManagerCheckpointStorage",
    "FileSystemCheckpointStorage",
    "CustomCheckpointStorage",
]


def directory(path: Any, who: str) -> str | None:
    """A checkpoint/savepoint directory (``file:`` URIs become paths), or a clear error."""
    return None if path is None else local_path(path, who)


class CheckpointStorage:
    """PyFlink's ``CheckpointStorage``: ``configuration()`` gives the options it stands for."""

    name = ""

    def configuration(self) -> dict[str, str]:
        out = {CHECKPOINT_STORAGE: self.name}
        if self.get_checkpoint_path() is not None:
            out[CHECKPOINTS_DIR] = self.get_checkpoint_path()  # type: ignore[assignment]
        if self.get_savepoint_path() is not None:
            out[SAVEPOINTS_DIR] = self.get_savepoint_path()  # type: ignore[assignment]
        return out

    def get_checkpoint_path(self) -> str | None:
        return None

    def get_savepoint_path(self) -> str | None:
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(checkpoints={self.get_checkpoint_path()!r})"


class JobManagerCheckpointStorage(CheckpointStorage):
    """Flink's ``JobManagerCheckpointStorage``: checkpoints in the JobManager's memory; with a
    ``checkpoint_path`` their metadata is persisted there too."""

    name = "jobmanager"
    DEFAULT_MAX_STATE_SIZE = 5 * 1024 * 1024  # bytes

    def __init__(
        self,
        checkpoint_path: str | None = None,
        max_state_size: int | None = None,
        j_jobmanager_checkpoint_storage: Any = None,
    ) -> None:
        if max_state_size is not None and (
            not isinstance(max_state_size, int) or max_state_size <= 0
        ):
            raise IllegalArgumentException(
                f"JobManagerCheckpointStorage: max_state_size must be a positive int, "
                f"got {max_state_size!r}."
            )
        self._path = directory(checkpoint_path, "JobManagerCheckpointStorage")
        self._max_state_size = max_state_size or self.DEFAULT_MAX_STATE_SIZE

    def get_checkpoint_path(self) -> str | None:
        return self._path

    def get_max_state_size(self) -> int:
        return self._max_state_size

    def get_savepoint_path(self) -> str | None:
        return None


class FileSystemCheckpointStorage(CheckpointStorage):
    """Flink's ``FileSystemCheckpointStorage``: every checkpoint written under
    ``checkpoint_path``; savepoints default to the same directory."""

    name = "filesystem"
    MAX_FILE_STATE_THRESHOLD = 1024 * 1024  # bytes: the largest fs.memory-threshold

    def __init__(
        self,
        checkpoint_path: str | None = None,
        file_state_size_threshold: int | None = None,
        write_buffer_size: int = -1,
        j_filesystem_checkpoint_storage: Any = None,
    ) -> None:
        path = directory(checkpoint_path, "FileSystemCheckpointStorage")
        if path is None:
            raise IllegalArgumentException(
                "FileSystemCheckpointStorage needs a checkpoint_path (e.g. 'file:///tmp/chk')."
            )
        self._path = path
        self._threshold = (
            20 * 1024 if file_state_size_threshold is None else file_state_size_threshold
        )
        self._write_buffer_size = write_buffer_size if write_buffer_size >= 0 else 4096

    def get_checkpoint_path(self) -> str:
        return self._path

    def get_savepoint_path(self) -> str | None:
        return None

    def get_min_file_size_threshold(self) -> int:
        return self._threshold

    def get_write_buffer_size(self) -> int:
        return self._write_buffer_size


class CustomCheckpointStorage(CheckpointStorage):
    """PyFlink's wrapper of a Java ``CheckpointStorage`` class: needs a JVM, refused."""

    def __init__(self, j_custom_checkpoint_storage: Any) -> None:
        raise UnsupportedOperationException(
            "CustomCheckpointStorage wraps a Java CheckpointStorage; pyflowkit has no JVM. Use "
            "JobManagerCheckpointStorage or FileSystemCheckpointStorage."
        )
