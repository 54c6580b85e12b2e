"""Progress of a running pyflowkit job on Spark: jobs, stages and tasks done / total.

Stands for what Flink's web UI shows per job (vertex task counts); the numbers come from Spark's
``StatusTracker`` (classic sessions) or Spark Connect's progress handler, both optional.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SparkProgress:
    """One progress snapshot; ``status`` is RUNNING, FINISHED or FAILED."""

    jobs_done: int = 0
    jobs_total: int = 0
    stages_done: int = 0
    stages_total: int = 0
    tasks_done: int = 0
    tasks_total: int = 0
    status: str = "RUNNING"

    @property
    def fraction(self) -> float:
        return self.tasks_done / self.tasks_total if self.tasks_total else 0.0

    def line(self) -> str:
        """The CLI's one-line text form."""
        return (
            f"[Spark] {self.status}: jobs {self.jobs_done}/{self.jobs_total}, "
            f"stages {self.stages_done}/{self.stages_total}, "
            f"tasks {self.tasks_done}/{self.tasks_total}"
        )


ProgressListener = Callable[[SparkProgress], None]


class ProgressTracker:
    """Polls Spark for the jobs of one job group and reports ``SparkProgress`` to listeners.

    Every Spark call is guarded: without a SparkContext (Spark Connect) or on any error the
    tracker simply reports nothing until the job ends, then reports the final state.
    """

    def __init__(
        self,
        session: Any,
        group: str,
        listeners: list[ProgressListener] | None = None,
        interval: float = 0.25,
    ) -> None:
        self.session = session
        self.group = group
        self.listeners = list(listeners or [])
        self.interval = interval
        self.latest = SparkProgress()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._connect_handler: Any = None

    def _tracker(self) -> Any:
        try:
            return self.session.sparkContext.statusTracker()
        except Exception:  # Spark Connect: no SparkContext
            return None

    def poll(self, finished: bool = False) -> SparkProgress | None:
        """One snapshot of the group's jobs (``None`` if Spark gives no status here); with
        ``finished`` the action has returned, so every job counts as done (Spark's listener bus
        may not have caught up yet)."""
        tracker = self._tracker()
        if tracker is None:
            return None
        try:
            jobs = [tracker.getJobInfo(j) for j in tracker.getJobIdsForGroup(self.group)]
            jobs = [j for j in jobs if j is not None]
            stages = [tracker.getStageInfo(s) for j in jobs for s in j.stageIds]
        except Exception:
            return None
        jobs_done = sum(1 for j in jobs if str(j.status) == "SUCCEEDED")
        known = [s for s in stages if s is not None]
        if finished:
            jobs_done = len(jobs)
        if jobs and jobs_done == len(jobs):  # stages still incomplete now were skipped (reused)
            known = [s for s in known if s.numTasks and s.numCompletedTasks >= s.numTasks]
            stages = known
        stages_done = sum(1 for s in known if s.numTasks and s.numCompletedTasks >= s.numTasks)
        return SparkProgress(
            jobs_done=jobs_done,
            jobs_total=len(jobs),
            stages_done=stages_done,
            stages_total=len(stages),
            tasks_done=sum(s.numCompletedTasks for s in known),
            tasks_total=sum(s.numTasks for s in known),
        )

    def _emit(self, progress: SparkProgress) -> None:
        self.latest = progress
        for listener in self.listeners:
            try:
                listener(progress)
            except Exception:  # a broken display must not fail the job
                pass

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            progress = self.poll()
            if progress is not None and progress != self.latest:
                self._emit(progress)

    def _on_connect_progress(self, stages: Any = None, inflight_tasks: int = 0, **_: Any) -> None:
        try:
            done = sum(s.num_completed_tasks for s in stages)
            total = sum(s.num_tasks for s in stages)
            stages_done = sum(1 for s in stages if s.done)
        except Exception:
            return
        self._emit(SparkProgress(0, 1, stages_done, len(stages), done, total, status="RUNNING"))

    def start(self) -> ProgressTracker:
        if not self.listeners:
            return self
        if self._tracker() is None:
            register = getattr(self.session, "registerProgressHandler", None)
            if register is not None:
                try:
                    register(self._on_connect_progress)
                    self._connect_handler = self._on_connect_progress
                except Exception:
                    pass
            return self
        self._thread = threading.Thread(target=self._run, name="pyflowkit-progress", daemon=True)
        self._thread.start()
        return self

    def finish(self, status: str) -> SparkProgress:
        """Stop polling and report the final snapshot with ``status`` (FINISHED or FAILED)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        if self._connect_handler is not None:
            try:
                self.session.removeProgressHandler(self._connect_handler)
            except Exception:
                pass
        last = self.poll(finished=status == "FINISHED") or self.latest
        final = SparkProgress(
            last.jobs_done,
            last.jobs_total,
            last.stages_done,
            last.stages_total,
            last.tasks_done,
            last.tasks_total,
            status=status,
        )
        if self.listeners:
            self._emit(final)
        else:
            self.latest = final
        return final
