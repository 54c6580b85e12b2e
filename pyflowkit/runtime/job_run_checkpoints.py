"""Checkpoints and savepoints of a JobRun: triggering them by hand, and Flink's statistics views.

Stands for the checkpoint parts of Flink's ``RestfulGateway``/``JobMasterGateway``
(``triggerSavepoint``, ``stopWithSavepoint``, ``cancel with savepoint``) and REST
``/jobs/:jobid/checkpoints`` (+ ``/details/:id``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from pyflowkit.errors import CheckpointException, IllegalArgumentException
from pyflowkit.graph.job_graph import JobVertex
from pyflowkit.runtime.checkpoint.properties import CheckpointProperties, CheckpointType
from pyflowkit.runtime.checkpoint.stats import COMPLETED, FAILED, HISTORY_COLUMNS

SAVEPOINT_DIR_KEY = "state.savepoints.dir"


def default_savepoint_directory() -> str:
    """Where savepoints go when neither a path nor ``state.savepoints.dir`` is given."""
    return str(Path(tempfile.gettempdir()) / "pyflowkit-savepoints")


class CheckpointingRun:
    """The checkpoint API of ``JobRun`` (a mixin: it uses the run's JobMaster, bus and commands).

    Abstract: ``JobRun`` provides ``job_master`` and ``_vertex``.
    """

    # provided by JobRun
    job_graph: Any
    bus: Any
    _commands: list[tuple[int, str, tuple[Any, ...]]]
    _applied: set[tuple[int, str, tuple[Any, ...]]]

    @property
    def job_master(self) -> Any:  # pragma: no cover - JobRun overrides it
        raise NotImplementedError

    def _vertex(self, vertex: str | JobVertex) -> JobVertex:  # pragma: no cover - JobRun's
        raise NotImplementedError

    # -- the coordinator ------------------------------------------------------------------------
    @property
    def checkpoint_coordinator(self) -> Any:
        """The job's ``CheckpointCoordinator`` (None before the JobMaster or without checkpoints)."""
        jm = self.job_master
        return None if jm is None else jm.checkpoint_coordinator

    def _require_job_master(self, op: str) -> Any:
        jm = self.job_master
        if jm is None:
            raise IllegalArgumentException(
                f"{op}: the job has no JobMaster yet; step further first (e.g. "
                "run.run_until(all_tasks_in('RUNNING')))."
            )
        return jm

    # -- triggering -----------------------------------------------------------------------------
    def trigger_checkpoint(self) -> int | None:
        """``CheckpointCoordinator.triggerCheckpoint`` now; returns the new checkpoint's id, or
        None when the request is queued behind the checkpoints in progress (max concurrent).

        Step on (or ``run_until(checkpoint_completed(id))``) to watch it travel. Raises
        ``CheckpointException`` when it cannot start (e.g. a source is not RUNNING).
        """
        return self._trigger("trigger_checkpoint", CheckpointType.CHECKPOINT.name, None)

    def trigger_savepoint(self, path: str | Path | None = None) -> int:
        """``JobMaster.triggerSavepoint``: a savepoint into ``path``; returns its checkpoint id.

        The directory defaults to ``state.savepoints.dir`` of the job's configuration, else to
        ``<tmp>/pyflowkit-savepoints``. ``savepoint_path(id)`` waits for it and returns where it is.
        """
        return self._trigger("trigger_savepoint", CheckpointType.SAVEPOINT.name, path)

    def stop_with_savepoint(self, path: str | Path | None = None, drain: bool = False) -> int:
        """``JobMaster.stopWithSavepoint``: a synchronous savepoint, then the sources stop and the
        job FINISHES; returns the savepoint's checkpoint id (``savepoint_path(id)`` waits).

        ``drain`` is ``flink stop --drain`` (Java: ``advanceToEndOfEventTime``): the sources emit
        MAX_WATERMARK before the savepoint barrier, so every event-time window and timer fires
        first. Without it pending windows/timers stay in the savepoint for the next job.
        """
        if not isinstance(drain, bool):
            raise IllegalArgumentException(
                f"stop_with_savepoint: drain must be True or False, got {drain!r}."
            )
        kind = CheckpointType.SYNC_SAVEPOINT.name
        return self._trigger("stop_with_savepoint", kind + ("+drain" if drain else ""), path)

    def cancel_with_savepoint(self, path: str | Path | None = None) -> int:
        """``triggerSavepoint(cancelJob=true)``: a savepoint, then the job is CANCELED."""
        return self._trigger("cancel_with_savepoint", "CANCEL_WITH_SAVEPOINT", path)

    def _trigger(self, op: str, kind: str, path: str | Path | None) -> Any:
        self._require_job_master(op)
        if path is not None and not isinstance(path, (str, Path)):
            raise IllegalArgumentException(
                f"{op}: path must be a directory path (str or Path), got {type(path).__name__}."
            )
        target = None if kind == CheckpointType.CHECKPOINT.name else self._savepoint_dir(path)
        entry = (self.bus.step, "trigger", (kind, target, len(self._commands)))
        self._commands.append(entry)
        self._applied.add(entry)
        return self._do_trigger(kind, target, 0, raise_errors=True)

    def _savepoint_dir(self, path: str | Path | None) -> str:
        if path is not None:
            return str(path)
        config = getattr(self.job_graph.stream_graph, "execution_config", None)
        configured = getattr(config, "configuration", {}) or {}
        return str(configured.get(SAVEPOINT_DIR_KEY) or default_savepoint_directory())

    def _do_trigger(
        self, kind: str, target: str | None, _seq: int, raise_errors: bool = False
    ) -> int | None:
        """Run one trigger command (also when a rewind replays it; then failures are quiet)."""
        jm = self.job_master
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
        coord = self.checkpoint_coordinator
        stats = None if coord is None else coord.stats.by_id.get(checkpoint_id)
        if stats is None or not stats["is_savepoint"]:
            raise IllegalArgumentException(
                f"savepoint_path: {checkpoint_id!r} is not a savepoint of this job; savepoints: "
                f"{self._savepoint_ids()}."
            )
        while stats["status"] not in (COMPLETED, FAILED):
            if not self._advance():
                break
        if stats["status"] != COMPLETED:
            raise CheckpointException(
                f"Savepoint {checkpoint_id} did not complete: "
                f"{stats['failure_message'] or 'the simulation ran out of events'}",
                "CHECKPOINT_DECLINED",
            )
        return str(coord.completed_by_id[checkpoint_id].external_pointer)

    def _savepoint_ids(self) -> list[int]:
        coord = self.checkpoint_coordinator
        if coord is None:
            return []
        return sorted(i for i, s in coord.stats.by_id.items() if s["is_savepoint"])

    def _advance(self) -> bool:
        """One step in the current mode (fast stays fast); False when nothing is left."""
        if not self.has_next() and not self._commands_pending():  # type: ignore[attr-defined]
            return False
        self._step_once()  # type: ignore[attr-defined]
        return True

    # -- statistics -----------------------------------------------------------------------------
    def checkpoints_frame(self) -> Any:
        """One row per checkpoint and savepoint, oldest first (Flink REST ``/checkpoints`` names)."""
        import pandas as pd

        coord = self.checkpoint_coordinator
        rows = [] if coord is None else coord.stats.all_checkpoints()
        return pd.DataFrame(
            [{c: r.get(c) for c in HISTORY_COLUMNS} for r in rows], columns=HISTORY_COLUMNS
        )

    def checkpoints_overview(self) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints``: counts, summary, latest, history."""
        coord = self.checkpoint_coordinator
        if coord is None:
            from pyflowkit.runtime.checkpoint.stats import CheckpointStatsTracker

            return CheckpointStatsTracker({}).snapshot()
        return coord.stats.snapshot()

    def checkpoint_details(self, checkpoint_id: int) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints/details/:id``: per vertex and per subtask (ack time,
        sync/async/alignment durations, state size)."""
        coord = self.checkpoint_coordinator
        if coord is None or checkpoint_id not in coord.stats.by_id:
            known = [] if coord is None else sorted(coord.stats.by_id)
            raise IllegalArgumentException(
                f"checkpoint_details: no checkpoint {checkpoint_id!r} in this job; known: {known}."
            )
        return coord.stats.details(checkpoint_id)

    def keyed_state_at(self, checkpoint_id: int, vertex: str | JobVertex) -> dict[str, Any]:
        """Operator name → state name → {key: value} as snapshotted by checkpoint ``checkpoint_id``
        (all subtasks of ``vertex`` merged; keyed state outside windows)."""
        jv = self._vertex(vertex)
        coord = self.checkpoint_coordinator
        completed = None if coord is None else coord.completed_by_id.get(checkpoint_id)
        if completed is None:
            known = [] if coord is None else sorted(coord.completed_by_id)
            raise IllegalArgumentException(
                f"keyed_state_at: checkpoint {checkpoint_id!r} has not completed in this job; "
                f"completed: {known}."
            )
        names = {p.generated_operator_id: n.operator_name for p, n in _operators(jv)}
        uids = {p.user_defined_operator_id: n.operator_name for p, n in _operators(jv)}
        out: dict[str, Any] = {}
        for op_id, op_state in completed.operator_states.items():
            name = names.get(op_id) or uids.get(op_id)
            if name is None:
                continue
            per_op: dict[str, dict[Any, Any]] = {}
            for _i, snap in sorted(op_state.subtask_states.items()):
                for _kg, states in sorted(snap.keyed_state.items()):
                    for state_name, st in states.items():
                        for key, namespace, value in st["entries"]:
                            if namespace is None:
                                per_op.setdefault(state_name, {})[_hashable(key)] = value
            if per_op:
                out[name] = per_op
        return out


def _operators(jv: JobVertex) -> list[tuple[Any, Any]]:
    pairs = list(getattr(jv, "operator_ids", []) or [])
    return list(zip(pairs, jv.stream_nodes, strict=False))


def _hashable(key: Any) -> Any:
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


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
