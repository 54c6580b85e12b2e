"""The Timeline pane: a Gantt chart of every subtask's states (JobMaster side) and the JobStatus,
with markers where checkpoints completed or failed and where the job restored its state.

No Flink counterpart beyond the web UI's job timeline. Reads the trace incrementally (the same
changes ``JobRun.state_history()`` lists) and draws with ``pyflowkit.render.timeline_svg``. Subtasks
are named as Flink's web UI names them: ``Flat Map (1/2)``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.render.short_names import short_task_name
from pyflowkit.render.timeline_svg import Marker, timeline_svg

#: Trace events that become markers: method → marker kind.
MARKER_METHODS = {
    "CheckpointCoordinator.completePendingCheckpoint": "completed",
    "CheckpointCoordinator.abortPendingCheckpoint": "failed",
    "CheckpointCoordinator.restoreLatestCheckpointedState": "restored",
    "CheckpointCoordinator.restoreSavepoint": "restored",
}


class TimelinePane:
    """State changes per subject and checkpoint/restore markers, kept up to date step by step."""

    def __init__(self, width: int = 820) -> None:
        self.width = width
        self._run: Any = None
        self._seen = 0
        self._rows: dict[str, list[tuple[int, str]]] = {}
        self._labels: dict[str, str] = {}
        self._markers: list[Marker] = []
        self._cache: dict[Any, str] = {}

    def update(self, run: Any) -> str:
        trace = run.trace
        if run is not self._run or len(trace) < self._seen:
            self._run, self._seen, self._rows, self._labels = run, 0, {}, {}
            self._markers, self._cache = [], {}
        parallelism = {v.name: v.parallelism for v in run.job_graph.vertices}
        for e in trace[self._seen :]:
            kind = MARKER_METHODS.get(e.method)
            if kind is not None:
                if kind == "restored" and e.message.startswith("No master state"):
                    continue
                label = "" if e.checkpoint is None else str(e.checkpoint)
                self._markers.append((e.time, kind, label))
                continue
            if e.new_state is None or e.component != "JobMaster":
                continue
            if e.vertex is not None and e.subtask is not None:
                p = parallelism.get(e.vertex)
                subject = (
                    f"{e.vertex} ({e.subtask + 1}/{p})" if p else f"{e.vertex} ({e.subtask + 1})"
                )
                label = short_task_name(subject)
            else:
                subject, label = "job", "JobStatus"
            changes = self._rows.setdefault(subject, [])
            self._labels[subject] = label
            if not changes and e.old_state:
                changes.append((0, e.old_state))
            changes.append((e.time, e.new_state))
        self._seen = len(trace)
        order = sorted(self._rows, key=lambda s: (s != "job", s))
        rows = [(s, self._labels[s], self._rows[s]) for s in order]
        return timeline_svg(rows, run.now, self.width, self._cache, self._markers)
