"""Flink's ``CheckpointingOptions`` / ``StateBackendOptions`` keys: which state backend a job
declares and where its checkpoints and savepoints are written."""

STATE_BACKEND = "state.backend.type"  # hashmap / rocksdb
INCREMENTAL = "state.backend.incremental"
CHECKPOINT_STORAGE = "state.checkpoint-storage"  # jobmanager / filesystem
CHECKPOINTS_DIR = "state.checkpoints.dir"
SAVEPOINTS_DIR = "state.savepoints.dir"
CHANGELOG_ENABLED = "state.changelog.enabled"


def default_savepoint_directory() -> str:
    """Where savepoints go when neither a path nor ``state.savepoints.dir`` is given (Flink
    refuses then; pyflowkit uses ``<tmp>/pyflowkit-savepoints``)."""
    import tempfile
    from pathlib import Path

    return str(Path(tempfile.gettempdir()) / "pyflowkit-savepoints")


def savepoint_directory(configuration: dict[str, str]) -> str:
    """``state.savepoints.dir`` of a job's configuration, else the default above."""
    from pyflowkit.common.fs_path import local_path

    configured = configuration.get(SAVEPOINTS_DIR)
    return local_path(configured, SAVEPOINTS_DIR) if configured else default_savepoint_directory()
