"""Checkpoints and savepoints of a JobRun triggered by hand, and waiting for a savepoint.

Stands for the checkpoint parts of Flink's ``RestfulGateway``/``JobMasterGateway``
(``triggerSavepoint``, ``stopWithSavepoint``, ``cancel with savepoint``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyflowkit.common.checkpointing_options import savepoint_directory
from pyflowkit.errors import CheckpointException, IllegalArgumentException
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties, CheckpointType
from pyflowkit.runtime.checkpoint.stats import COMPLETED, FAILED
from pyflowkit.runtime.job_stepping import SteppedRun


class CheckpointTriggers:
    """Triggers checkpoints and savepoints on a run as logged commands (replayed by ``rewind``).

    Stands for ``JobMasterGateway.triggerSavepoint``/``stopWithSavepoint`` and
    ``CheckpointCoordinator.triggerCheckpoint`` as a client calls them.
    """

    def __init__(self, run: SteppedRun) -> None:
        self.run = run
        run.register_command("trigger", self._do_trigger)

    @property
    def coordinator(self) -> Any:
        """The job's ``CheckpointCoordinator`` (None before the JobMaster or without checkpoints)."""
        jm = self.run.job_master
        return None if jm is None else jm.checkpoint_coordinator

    def trigger(self, op: str, kind: str, path: str | Path | None) -> Any:
        """Log and run one trigger of ``kind`` (a ``CheckpointType`` name, ``+drain``, or
        ``CANCEL_WITH_SAVEPOINT``); ``op`` names the user's call in errors."""
        if self.run.job_master is None:
            raise IllegalArgumentException(
                f"{op}: the job has no JobMaster yet; step further first (e.g. "
                "run.run_until(all_tasks_in('RUNNING')))."
            )
        if path is not None and not isinstance(path, (str, Path)):
            raise IllegalArgumentException(
                f"{op}: path must be a directory path (str or Path), got {type(path).__name__}."
            )
        target = None if kind == CheckpointType.CHECKPOINT.name else self._savepoint_dir(path)
        # the sequence number keeps two equal triggers at one step apart in the log
        entry = (self.run.bus.step, "trigger", (kind, target, len(self.run.commands.entries)))
        self.run.commands.record(entry)
        return self._do_trigger(kind, target, 0, raise_errors=True)

    def _savepoint_dir(self, path: str | Path | None) -> str:
        if path is not None:
            return str(path)
        config = getattr(self.run.job_graph.stream_graph, "execution_config", None)
        return savepoint_directory(getattr(config, "configuration", {}) or {})

    def _do_trigger(
        self, kind: str, target: str | None, _seq: int, raise_errors: bool = False
    ) -> int | None:
        """Run one trigger command (also when a rewind replays it; then failures are quiet)."""
        jm = self.run.job_master
        if jm is None:
            return None
        coord = jm.enable_checkpointing()
        try:
            if kind.startswith(CheckpointType.SYNC_SAVEPOINT.name):  # stop, "+drain" = drain
                from pyflowkit.runtime.checkpoint.stop_with_savepoint import stop_with_savepoint

                assert target is not None
                return stop_with_savepoint(jm, coord, target, kind.endswith("+drain"))
            if kind == CheckpointType.CHECKPOINT.name:
                return coord.trigger_checkpoint(is_periodic=False)
            canceling = kind == "CANCEL_WITH_SAVEPOINT"
            if canceling:
                coord.stop_checkpoint_scheduler()
            try:
                cid = coord.trigger_checkpoint(
                    props=CheckpointProperties.for_savepoint(), target_location=target
                )
            except CheckpointException:
                if canceling:
                    _restart_scheduler(coord)
                raise
            assert cid is not None and target is not None
            coord.savepoint_targets[cid] = target
            if canceling:
                coord.completion_callbacks[cid] = _after_cancel_savepoint(jm, coord)
            return cid
        except CheckpointException:
            if raise_errors:
                raise
            return None

    # -- waiting --------------------------------------------------------------------------------
    def savepoint_path(self, checkpoint_id: int) -> str:
        """Where savepoint ``checkpoint_id`` was written; steps the job until it is done.

        Raises ``CheckpointException`` with Flink's failure reason if the savepoint failed.
        """
        coord = self.coordinator
        stats = None if coord is None else coord.stats.by_id.get(checkpoint_id)
        if stats is None or not stats["is_savepoint"]:
            raise IllegalArgumentException(
                f"savepoint_path: {checkpoint_id!r} is not a savepoint of this job; savepoints: "
                f"{self._savepoint_ids()}."
            )
        while stats["status"] not in (COMPLETED, FAILED):
            if not self.run._advance():
                break
        if stats["status"] != COMPLETED:
            raise CheckpointException(
                f"Savepoint {checkpoint_id} did not complete: "
                f"{stats['failure_message'] or 'the simulation ran out of events'}",
                "CHECKPOINT_DECLINED",
            )
        return str(coord.completed_by_id[checkpoint_id].external_pointer)

    def _savepoint_ids(self) -> list[int]:
        coord = self.coordinator
        if coord is None:
            return []
        return sorted(i for i, s in coord.stats.by_id.items() if s["is_savepoint"])


def _restart_scheduler(coord: Any) -> None:
    if coord.is_periodic_checkpointing_configured and not coord.shutdown:
        coord.start_checkpoint_scheduler()


def _after_cancel_savepoint(jm: Any, coord: Any) -> Any:
    """Once a cancel-with-savepoint is done: cancel the job, or go on if the savepoint failed."""

    def done(success: bool) -> None:
        if success:
            jm.cancel()
        else:
            _restart_scheduler(coord)

    return done
