"""Flink's ``CheckpointingOptions`` / ``StateBackendOptions`` keys: which state backend a job
declares and where its checkpoints and savepoints are written."""

STATE_BACKEND = "state.backend.type"  # hashmap / rocksdb
INCREMENTAL = "state.backend.incremental"
CHECKPOINT_STORAGE = "state.checkpoint-storage"  # jobmanager / filesystem
CHECKPOINTS_DIR = "state.checkpoints.dir"
SAVEPOINTS_DIR = "state.savepoints.dir"
CHANGELOG_ENABLED = "state.changelog.enabled"
