"""Stop-with-savepoint on the JobMaster side, with and without drain.

Stands for Flink 1.11's ``JobMaster.stopWithSavepoint(targetDirectory, advanceToEndOfEventTime)``
→ ``SchedulerBase.stopWithSavepoint``: stop the periodic checkpoint scheduler, trigger a
``SYNC_SAVEPOINT`` via ``CheckpointCoordinator.triggerSynchronousSavepoint``, restart the
scheduler if the savepoint fails. The tasks' side lives in ``task_checkpoint_driver``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import CheckpointException


def stop_with_savepoint(
    jm: Any, coord: Any, target: str, advance_to_end_of_event_time: bool
) -> int:
    """``JobMaster.stopWithSavepoint``: the savepoint's checkpoint id (raises if it cannot start).

    ``advance_to_end_of_event_time`` is ``flink stop --drain``.
    """
    verb = "Draining" if advance_to_end_of_event_time else "Suspending"
    jm.bus.emit(
        "JobMaster",
        "JobMaster.stopWithSavepoint",
        f"{verb} job {jm.job_id} with a savepoint (advanceToEndOfEventTime="
        f"{str(advance_to_end_of_event_time).lower()}).",
        job=jm.job_id,
    )
    jm.bus.emit(
        "JobMaster",
        "SchedulerBase.stopWithSavepoint",
        "The periodic checkpoint scheduler stops, so that only the synchronous savepoint's data "
        "is committed.",
        job=jm.job_id,
    )
    coord.stop_checkpoint_scheduler()
    try:
        cid = coord.trigger_synchronous_savepoint(advance_to_end_of_event_time, target)
    except CheckpointException as exc:
        _failed(jm, coord, str(exc))
        raise
    coord.savepoint_targets[cid] = target

    def done(success: bool) -> None:
        if not success:
            _failed(jm, coord, f"savepoint {cid} did not complete")

    coord.completion_callbacks[cid] = done
    return cid


def _failed(jm: Any, coord: Any, reason: str) -> None:
    """The savepoint failed: the job keeps running and periodic checkpoints resume."""
    jm.bus.emit(
        "JobMaster",
        "SchedulerBase.stopWithSavepoint",
        f"Failed during stopping job {jm.job_id} with a savepoint. Reason: {reason}",
        job=jm.job_id,
    )
    if coord.is_periodic_checkpointing_configured and not coord.shutdown:
        coord.start_checkpoint_scheduler()
