"""Where each subtask is in the newest checkpoint (aligning / async part / acknowledged), the
PendingCheckpoint filling up, and the per-subtask table of a checkpoint as in Flink's web UI.

Mirrors the web UI's *Checkpoints → Details* (``CheckpointStatsDetailsSubtasksHandler``: ack time,
sync and async duration, alignment, state size). Reads the trace incrementally.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.render.short_names import short_task_name

ALIGNING, ASYNC, ACKNOWLEDGED = "aligning", "async", "acknowledged"
#: Trace event → the phase a subtask enters (``None``: the phase ends, no badge).
_PHASES = {
    "SubtaskCheckpointCoordinatorImpl.checkpointState": ASYNC,
    "RpcCheckpointResponder.acknowledgeCheckpoint": ACKNOWLEDGED,
}


class CheckpointProgress:
    """Per-subtask phases of the checkpoints in progress, from the trace."""

    def __init__(self, job_graph: Any) -> None:
        self.vertex_ids = {v.name: v.id for v in job_graph.vertices}
        self.parallelism = {v.name: v.parallelism for v in job_graph.vertices}
        self._run: Any = None
        self._seen = 0
        self.phases: dict[int, dict[tuple[str, int], str]] = {}
        self.done: set[int] = set()
        self.events = 0  # checkpoint events seen

    def version(self, run: Any) -> int:
        """Changes whenever a checkpoint event happened (or the run changed): cache key."""
        self.update(run)
        return self.events

    def update(self, run: Any) -> None:
        trace = run.trace
        if run is not self._run or len(trace) < self._seen:
            self._run, self._seen, self.phases, self.done = run, 0, {}, set()
            self.events = 0
        for e in trace[self._seen :]:
            cid = e.checkpoint
            if cid is None:
                continue
            self.events += 1
            method = e.method
            if method in ("CheckpointCoordinator.completePendingCheckpoint",) or (
                method == "CheckpointCoordinator.abortPendingCheckpoint"
            ):
                self.done.add(cid)
                continue
            if e.vertex is None or e.subtask is None:
                continue
            phase = _PHASES.get(method)
            if method == "CheckpointBarrierHandler.processBarrier":
                if "Starting stream alignment" in e.message:
                    phase = ALIGNING
            if phase is not None:
                self.phases.setdefault(cid, {})[(e.vertex, e.subtask)] = phase
        self._seen = len(trace)

    def newest_pending(self) -> int | None:
        pending = [cid for cid in self.phases if cid not in self.done]
        return max(pending) if pending else None

    def badges(self) -> dict[str, str]:
        """``ev_<JobVertexID>_<i>`` → phase, for the newest checkpoint still pending."""
        cid = self.newest_pending()
        if cid is None:
            return {}
        return {
            f"ev_{self.vertex_ids[name]}_{subtask}": phase
            for (name, subtask), phase in self.phases[cid].items()
            if name in self.vertex_ids
        }

    def pending_box(self, run: Any) -> dict[str, Any] | None:
        """The newest checkpoint as a box of subtasks: pending, aligning, async, acknowledged —
        or COMPLETED once the coordinator finalized it (``PendingCheckpoint`` →
        ``CompletedCheckpoint``)."""
        if not self.phases:
            return None
        cid = max(self.phases)
        phases = self.phases[cid]
        cells = [
            {
                "task": short_task_name(f"{name} ({i + 1}/{p})"),
                "phase": phases.get((name, i), "pending"),
            }
            for name, p in self.parallelism.items()
            for i in range(p)
        ]
        status = "IN_PROGRESS"
        if cid in self.done:
            details = _details(run, cid)
            status = details.get("status", "COMPLETED") if details else "COMPLETED"
        return {
            "id": cid,
            "status": status,
            "acks": sum(c["phase"] == ACKNOWLEDGED for c in cells),
            "total": len(cells),
            "cells": cells,
        }


def _details(run: Any, checkpoint_id: int) -> dict[str, Any] | None:
    try:
        return run.checkpoint_details(checkpoint_id)
    except Exception:  # no such checkpoint in the stats (e.g. a restored savepoint)
        return None


def subtask_table(run: Any, checkpoint_id: int | None) -> list[dict[str, Any]]:
    """One row per subtask of ``checkpoint_id``: ack time, sync/async ms, alignment, state size."""
    if checkpoint_id is None:
        return []
    details = _details(run, checkpoint_id)
    if details is None:
        return []
    rows = []
    for task in details.get("tasks", {}).values():
        p = task.get("num_subtasks", len(task.get("subtasks", [])))
        for s in task.get("subtasks", []):
            done = s.get("status") == "completed"
            rows.append(
                {
                    "subtask": short_task_name(f"{task['name']} ({s['index'] + 1}/{p})"),
                    "status": "acknowledged" if done else "pending",
                    "ack_time": s.get("ack_timestamp") if done else None,
                    "sync_ms": s["checkpoint"]["sync"] if done else None,
                    "async_ms": s["checkpoint"]["async"] if done else None,
                    "alignment_ms": s["alignment"]["duration"] if done else None,
                    "state_bytes": s.get("state_size") if done else None,
                }
            )
    return rows
