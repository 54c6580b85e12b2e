"""The checkpoint storage and state backend options a job was compiled with, as the simulated
cluster reads them (Flink's ``CheckpointStorageLoader`` / ``StateBackendLoader`` keys)."""

from __future__ import annotations

from typing import Any

from pyflowkit.common.checkpointing_options import (
    CHANGELOG_ENABLED,
    CHECKPOINT_STORAGE,
    CHECKPOINTS_DIR,
    INCREMENTAL,
    SAVEPOINTS_DIR,
    STATE_BACKEND,
)
from pyflowkit.java_semantics import LONG_MAX_VALUE

_BACKEND_NAMES = {"hashmap": "HashMapStateBackend", "rocksdb": "EmbeddedRocksDBStateBackend"}


def job_configuration(job_graph: Any) -> dict[str, str]:
    """Every Configuration key the job's environment set."""
    config = getattr(getattr(job_graph, "stream_graph", None), "execution_config", None)
    return dict(getattr(config, "configuration", {}) or {})


def checkpoint_config_info(job_graph: Any) -> dict[str, Any]:
    """Flink's ``CheckpointConfigInfo`` (``/jobs/:id/checkpoints/config``): the checkpoint
    settings, ``state_backend``, ``checkpoint_storage``, the directories and incremental
    checkpointing."""
    conf = job_configuration(job_graph)
    settings = getattr(getattr(job_graph, "stream_graph", None), "execution_config", None)
    return {**_checkpointing_fields(getattr(settings, "checkpoint", None)), **_storage(conf)}


def _checkpointing_fields(cp: Any) -> dict[str, Any]:
    """The ``CheckpointConfig`` part of Flink's ``CheckpointConfigInfo`` (its field names)."""
    if cp is None:
        return {}
    retention = cp.externalized_retention
    return {
        "mode": "exactly_once" if cp.mode == "EXACTLY_ONCE" else "at_least_once",
        "interval": cp.interval if cp.enabled else LONG_MAX_VALUE,  # as the JobGraph has it
        "timeout": cp.timeout,
        "min_pause": cp.min_pause,
        "max_concurrent": cp.max_concurrent,
        "externalization": {
            "enabled": retention is not None,
            "delete_on_cancellation": retention == "DELETE_ON_CANCELLATION",
        },
        "unaligned_checkpoints": cp.unaligned,
        "tolerable_failed_checkpoints": cp.tolerable_failures,
        "aligned_checkpoint_timeout": cp.aligned_checkpoint_timeout,
        "force_unaligned_checkpoints": cp.force_unaligned,
    }


def _storage(conf: dict[str, str]) -> dict[str, Any]:
    storage = conf.get(CHECKPOINT_STORAGE) or (
        "filesystem" if conf.get(CHECKPOINTS_DIR) else "jobmanager"
    )
    backend = conf.get(STATE_BACKEND, "hashmap")
    return {
        "state_backend": _BACKEND_NAMES.get(backend, backend),
        "checkpoint_storage": "FileSystemCheckpointStorage"
        if storage == "filesystem"
        else "JobManagerCheckpointStorage",
        "checkpoints_directory": conf.get(CHECKPOINTS_DIR),
        "savepoints_directory": conf.get(SAVEPOINTS_DIR),
        "state_changelog_enabled": conf.get(CHANGELOG_ENABLED, "false") == "true",
        "incremental_checkpointing": conf.get(INCREMENTAL, "false") == "true",
        "keyed_state_held_in": "heap (pyflowkit's HeapKeyedStateBackend)",
    }
