"""Checkpoint statistics as Flink's web UI shows them (Flink's ``CheckpointStatsTracker``;
field names of REST ``GET /jobs/:jobid/checkpoints``)."""

from __future__ import annotations

from typing import Any

from pyflowkit.runtime.checkpoint.completed_checkpoint import NOT_EXTERNALLY_ADDRESSABLE

IN_PROGRESS = "IN_PROGRESS"
COMPLETED = "COMPLETED"
FAILED = "FAILED"
HISTORY_COLUMNS = [
    "id",
    "status",
    "is_savepoint",
    "trigger_timestamp",
    "latest_ack_timestamp",
    "num_acknowledged_subtasks",
    "num_subtasks",
    "end_to_end_duration",
    "state_size",
    "alignment_buffered",
    "failure_message",
]


_SUMMARY_FIELDS = ("state_size", "end_to_end_duration", "alignment_buffered")


class MinMaxAvgStats:
    """Flink's ``MinMaxAvgStats``: minimum, maximum and average of the values added so far."""

    def __init__(self) -> None:
        self.min = 0
        self.max = 0
        self.sum = 0
        self.count = 0

    def add(self, value: int) -> None:
        if self.count == 0:
            self.min = self.max = value
        else:
            self.min = min(self.min, value)
            self.max = max(self.max, value)
        self.sum += value
        self.count += 1

    def to_dict(self) -> dict[str, int]:
        avg = self.sum // self.count if self.count else 0
        return {"min": self.min, "max": self.max, "avg": avg}


class CheckpointStatsTracker:
    """Flink's ``CheckpointStatsTracker``: counts, history (newest first), per-subtask details.

    The counts and the summary are kept as running figures (Flink's ``CheckpointStatsCounts``
    and ``CompletedCheckpointStatsSummary``), so ``forget_older`` can bound the per-checkpoint
    history (Flink's ``CheckpointStatsHistory`` keeps ``web.checkpoints.history`` entries)
    without changing them.
    """

    def __init__(self, tasks: dict[str, tuple[str, int]], history_size: int = 10) -> None:
        self.tasks = dict(tasks)  # vertex id → (vertex name, parallelism)
        self.history_size = history_size
        self.by_id: dict[int, dict[str, Any]] = {}
        self.restored: dict[str, Any] | None = None
        self.num_restored = 0
        self.num_forgotten = 0  # checkpoints dropped from ``by_id`` by ``forget_older``
        self._counts = {IN_PROGRESS: 0, COMPLETED: 0, FAILED: 0}
        self._summary = {f: MinMaxAvgStats() for f in _SUMMARY_FIELDS}
        # the newest completed checkpoint, savepoint and failed checkpoint (kept when forgotten)
        self._latest: dict[str, dict[str, Any] | None] = {
            "completed": None,
            "savepoint": None,
            "failed": None,
        }

    def _moved(self, cp: dict[str, Any], status: str) -> None:
        """``cp`` leaves its status for ``status``: the running counts and latest entries."""
        self._counts[cp["status"]] -= 1
        self._counts[status] += 1
        slot = "failed" if status == FAILED else "savepoint" if cp["is_savepoint"] else "completed"
        latest = self._latest[slot]
        if latest is None or latest["id"] < cp["id"]:
            self._latest[slot] = cp
        if status == COMPLETED:
            for f, stats in self._summary.items():
                stats.add(cp[f])

    def forget_older(self, keep: int) -> int:
        """Drop the finished checkpoints older than the newest ``keep`` from the history
        (the counts, summary and latest entries stay exact); returns how many."""
        ids = sorted(self.by_id)
        drop = [i for i in ids[: max(0, len(ids) - keep)] if self.by_id[i]["status"] != IN_PROGRESS]
        for i in drop:
            del self.by_id[i]
        self.num_forgotten += len(drop)
        return len(drop)

    @property
    def num_subtasks(self) -> int:
        return sum(p for _, p in self.tasks.values())

    def report_pending_checkpoint(
        self, checkpoint_id: int, timestamp: int, is_savepoint: bool
    ) -> None:
        if checkpoint_id in self.by_id:  # reported again: counted once
            self._counts[self.by_id[checkpoint_id]["status"]] -= 1
        self._counts[IN_PROGRESS] += 1
        self.by_id[checkpoint_id] = {
            "@class": "in_progress",
            "id": checkpoint_id,
            "status": IN_PROGRESS,
            "is_savepoint": is_savepoint,
            "trigger_timestamp": timestamp,
            "latest_ack_timestamp": None,
            "state_size": 0,
            "end_to_end_duration": 0,
            "alignment_buffered": 0,
            "num_subtasks": self.num_subtasks,
            "num_acknowledged_subtasks": 0,
            "failure_timestamp": None,
            "failure_message": None,
            "external_path": None,
            "discarded": False,
            "tasks": {
                vid: {"name": name, "parallelism": p, "subtasks": {}}
                for vid, (name, p) in self.tasks.items()
            },
        }

    def report_subtask_stats(
        self, checkpoint_id: int, vertex_id: str, subtask: int, stats: dict[str, Any]
    ) -> None:
        """One acknowledgement (``PendingCheckpointStats.reportSubtaskStats``)."""
        cp = self.by_id.get(checkpoint_id)
        if cp is None or cp["status"] != IN_PROGRESS:
            return
        cp["tasks"][vertex_id]["subtasks"][subtask] = dict(stats)
        cp["num_acknowledged_subtasks"] += 1
        ack = stats["ack_timestamp"]
        cp["latest_ack_timestamp"] = max(cp["latest_ack_timestamp"] or ack, ack)
        cp["state_size"] += stats["state_size"]
        cp["alignment_buffered"] += stats["alignment_buffered"]
        cp["end_to_end_duration"] = cp["latest_ack_timestamp"] - cp["trigger_timestamp"]

    def report_completed(self, checkpoint_id: int, external_path: str | None) -> None:
        cp = self.by_id.get(checkpoint_id)
        if cp is None:
            return
        if cp["status"] != COMPLETED:
            self._moved(cp, COMPLETED)
        cp["@class"] = "completed"
        cp["status"] = COMPLETED
        cp["external_path"] = external_path or NOT_EXTERNALLY_ADDRESSABLE

    def report_failed(self, checkpoint_id: int, timestamp: int, message: str) -> None:
        cp = self.by_id.get(checkpoint_id)
        if cp is None or cp["status"] != IN_PROGRESS:
            return
        self._moved(cp, FAILED)
        cp["@class"] = "failed"
        cp["status"] = FAILED
        cp["failure_timestamp"] = timestamp
        cp["failure_message"] = message

    def report_discarded(self, checkpoint_id: int) -> None:
        cp = self.by_id.get(checkpoint_id)
        if cp is not None:
            cp["discarded"] = True

    def report_restored(
        self, checkpoint_id: int, restore_timestamp: int, is_savepoint: bool, path: str | None
    ) -> None:
        self.num_restored += 1
        self.restored = {
            "id": checkpoint_id,
            "restore_timestamp": restore_timestamp,
            "is_savepoint": is_savepoint,
            "external_path": path or NOT_EXTERNALLY_ADDRESSABLE,
        }

    # -- REST views -----------------------------------------------------------------------------
    def history(self) -> list[dict[str, Any]]:
        """Newest first, at most ``web.checkpoints.history`` entries."""
        ids = sorted(self.by_id, reverse=True)[: self.history_size]
        return [self._public(self.by_id[i]) for i in ids]

    def all_checkpoints(self) -> list[dict[str, Any]]:
        return [self._public(self.by_id[i]) for i in sorted(self.by_id)]

    @staticmethod
    def _public(cp: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in cp.items() if k != "tasks"}
        out["tasks"] = {
            vid: {
                "name": t["name"],
                "num_subtasks": t["parallelism"],
                "num_acknowledged_subtasks": len(t["subtasks"]),
            }
            for vid, t in cp["tasks"].items()
        }
        return out

    def snapshot(self) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints``: counts, summary, latest, history."""
        counts = self._counts

        def latest(slot: str) -> dict[str, Any] | None:
            cp = self._latest[slot]
            return None if cp is None else self._public(cp)

        return {
            "counts": {
                "restored": self.num_restored,
                "total": sum(counts.values()),
                "in_progress": counts[IN_PROGRESS],
                "completed": counts[COMPLETED],
                "failed": counts[FAILED],
            },
            "summary": {f: stats.to_dict() for f, stats in self._summary.items()},
            "latest": {
                "completed": latest("completed"),
                "savepoint": latest("savepoint"),
                "failed": latest("failed"),
                "restored": self.restored,
            },
            "history": self.history(),
        }

    def details(self, checkpoint_id: int) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints/details/:id`` plus per-subtask rows."""
        cp = self.by_id[checkpoint_id]
        out = self._public(cp)
        tasks: dict[str, Any] = {}
        for vid, t in cp["tasks"].items():
            subtasks = []
            for i in range(t["parallelism"]):
                s = t["subtasks"].get(i)
                if s is None:
                    subtasks.append({"index": i, "status": "pending_or_failed"})
                    continue
                subtasks.append(
                    {
                        "index": i,
                        "status": "completed",
                        "ack_timestamp": s["ack_timestamp"],
                        "end_to_end_duration": s["end_to_end_duration"],
                        "state_size": s["state_size"],
                        "checkpoint": {"sync": s["sync"], "async": s["async"]},
                        "alignment": {
                            "buffered": s["alignment_buffered"],
                            "duration": s["alignment_duration"],
                        },
                        "start_delay": s["start_delay"],
                    }
                )
            acked = [s for s in t["subtasks"].values()]
            tasks[vid] = {
                "name": t["name"],
                "status": cp["status"],
                "latest_ack_timestamp": max((s["ack_timestamp"] for s in acked), default=None),
                "state_size": sum(s["state_size"] for s in acked),
                "end_to_end_duration": max((s["end_to_end_duration"] for s in acked), default=0),
                "alignment_buffered": sum(s["alignment_buffered"] for s in acked),
                "num_subtasks": t["parallelism"],
                "num_acknowledged_subtasks": len(acked),
                "subtasks": subtasks,
            }
        out["tasks"] = tasks
        return out
