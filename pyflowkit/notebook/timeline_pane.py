"""The Timeline pane: a Gantt chart of every subtask's states (JobMaster side) and the JobStatus.

No Flink counterpart beyond the web UI's job timeline. Reads the trace incrementally (the same
changes ``JobRun.state_history()`` lists) and draws with ``pyflowkit.render.timeline_svg``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.render.short_names import short_task_name
from pyflowkit.render.timeline_svg import timeline_svg


class TimelinePane:
    """State changes per subject, kept up to date step by step."""

    def __init__(self, width: int = 820) -> None:
        self.width = width
        self._run: Any = None
        self._seen = 0
        self._rows: dict[str, list[tuple[int, str]]] = {}
        self._labels: dict[str, str] = {}
        self._cache: dict[Any, str] = {}

    def update(self, run: Any) -> str:
        trace = run.trace
        if run is not self._run or len(trace) < self._seen:
            self._run, self._seen, self._rows, self._labels = run, 0, {}, {}
            self._cache = {}
        for e in trace[self._seen :]:
            if e.new_state is None or e.component != "JobMaster":
                continue
            if e.vertex is not None and e.subtask is not None:
                subject = f"{e.vertex} ({e.subtask + 1})"
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
        return timeline_svg(rows, run.now, self.width, self._cache)
