"""``ExternalizedCheckpointRetention`` (PyFlink 1.20's
``pyflink.datastream.externalized_checkpoint_retention``)."""

from __future__ import annotations

from enum import Enum


class ExternalizedCheckpointRetention(Enum):
    """Flink's ``ExternalizedCheckpointRetention``: whether a job's retained checkpoints outlive
    it, and whether cancelling the job deletes them (1.20's name of
    ``CheckpointConfig.ExternalizedCheckpointCleanup``)."""

    DELETE_ON_CANCELLATION = 0
    RETAIN_ON_CANCELLATION = 1
    NO_EXTERNALIZED_CHECKPOINTS = 2
