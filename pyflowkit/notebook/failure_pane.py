"""The Exceptions pane: every task failure with the user's traceback, the restart countdown on the
simulated clock, and where the restarted tasks took their state from.

Mirrors the web UI's *Exceptions* tab (``JobExceptionsHandler``: root exception, history with
task name, location and timestamp). Reads the trace incrementally (only new events per step).
"""

from __future__ import annotations

import re
from typing import Any

from pyflowkit.java_semantics import INT_MAX_VALUE
from pyflowkit.render.short_names import short_ids, short_task_name
from pyflowkit.render.sim_time import sim_time

MAX_EXCEPTIONS = 20
_SUBTASK_INDEX = re.compile(r"\bsubtask (\d+)\b")


def flink_subtask_names(text: str, task_name: str, index: int) -> str:
    """``Injected failure of subtask 0.`` → ``Injected failure of Flat Map (1/2).``: the subtask as
    Flink's web UI names it (``getTaskNameWithSubtaskIndex``), as the graph shows it."""
    return _SUBTASK_INDEX.sub(
        lambda m: short_task_name(task_name) if int(m.group(1)) == index else m.group(0), text
    )


class FailurePane:
    """Failures, restarts and restores of the run being stepped."""

    def __init__(self) -> None:
        self._run: Any = None
        self._seen = 0
        self._failures: list[dict[str, Any]] = []
        self._restores: list[dict[str, Any]] = []

    def update(self, run: Any) -> dict[str, Any]:
        """``{"exceptions": [...newest first], "restart": {...} | None, "restored": {...} | None}``."""
        trace = run.trace
        if run is not self._run or len(trace) < self._seen:
            self._run, self._seen, self._failures, self._restores = run, 0, [], []
        for e in trace[self._seen :]:
            if e.method == "Execution.transitionState" and e.new_state == "FAILED":
                self._failures.append(
                    {"step": e.step, "time": e.time, "key": (e.vertex, e.subtask, e.attempt)}
                )
            elif e.method in (
                "CheckpointCoordinator.restoreLatestCheckpointedState",
                "CheckpointCoordinator.restoreSavepoint",
            ) and not e.message.startswith("No master state"):
                self._restores.append(
                    {
                        "step": e.step,
                        "time": e.time,
                        "checkpoint": e.checkpoint,
                        "message": short_ids(e.message),
                    }
                )
        self._seen = len(trace)
        return {
            "exceptions": self._exceptions(run),
            "restart": _restart(run),
            "restored": self._restores[-1] if self._restores else None,
            "now": run.now,
        }

    def _exceptions(self, run: Any) -> list[dict[str, Any]]:
        jm = run.job_master
        if jm is None:
            return []
        attempts = {
            (ev.job_vertex.name, ev.subtask_index, ex.attempt_number): ex
            for ev in jm.scheduler.execution_vertices
            for ex in ev.executions
        }
        rows = []
        for failure in self._failures[-MAX_EXCEPTIONS:]:
            ex = attempts.get(failure["key"])
            if ex is None or ex.failure_cause is None:
                continue
            cause = ex.failure_cause
            location = ex.slot.location if ex.slot is not None else ""
            rows.append(
                {
                    "step": failure["step"],
                    "time": failure["time"],
                    "at": sim_time(failure["time"]),
                    "task": short_task_name(ex.name),
                    "full_name": ex.name,
                    "attempt": ex.attempt_number,
                    "location": str(location),
                    "exception": flink_subtask_names(
                        f"{type(cause).__name__}: {cause}", ex.name, failure["key"][1]
                    ),
                    "traceback": flink_subtask_names(
                        ex.failure_traceback or "", ex.name, failure["key"][1]
                    ),
                }
            )
        if run.job_status.value == "FAILED" and run.failure_cause is not None:
            cause = run.failure_cause
            rows.append(
                {
                    "step": run.steps_taken,
                    "time": run.now,
                    "at": sim_time(run.now),
                    "task": "the job",
                    "full_name": run.job_graph.job_name,
                    "attempt": None,
                    "location": "JobMaster",
                    "exception": f"{type(cause).__name__}: {cause}",
                    "traceback": run.failure_traceback or "",
                }
            )
        return rows[::-1]


def _restart(run: Any) -> dict[str, Any] | None:
    """The pending restart of a RESTARTING job: its strategy and when it fires (simulated ms)."""
    jm = run.job_master
    if jm is None or run.job_status.value != "RESTARTING":
        return None
    scheduler = jm.scheduler
    event = getattr(scheduler, "restart_event", None)
    if event is None or getattr(event, "cancelled", False):
        return None
    delay = getattr(scheduler.restart_strategy, "backoff_time", None)
    remaining = max(0, event.time - run.now)
    delay = delay if isinstance(delay, int) and delay >= remaining else remaining
    waited = delay - remaining
    return {
        "strategy": str(scheduler.restart_strategy),
        "due": event.time,
        "remaining": remaining,
        "delay": delay,
        "text": f"restart in {sim_time(remaining)} (waited {sim_time(waited)} of "
        f"{sim_time(delay)} on the simulated clock; the clock jumps to the restart when nothing "
        "else is due)",
        # the whole story in one short line a lecture hall reads on the status line (no hover)
        "banner": f"RESTARTING in {sim_time(remaining)} of {sim_time(delay)} (simulated clock)"
        f" · {_attempts(scheduler.restart_strategy)}",
    }


def _attempts(strategy: Any) -> str:
    """Which restart this is, in the restart strategy's own terms (short)."""
    attempt = getattr(strategy, "current_restart_attempt", None)
    most = getattr(strategy, "max_number_restart_attempts", None)
    if isinstance(attempt, int) and isinstance(most, int):
        limit = " (no limit)" if most >= INT_MAX_VALUE else f" of {most}"
        return f"fixed delay, restart {attempt}{limit}"
    per = getattr(strategy, "max_failures_per_interval", None)
    if isinstance(per, int):
        return f"failure rate: at most {per} in {sim_time(strategy.failures_interval)}"
    return str(strategy)
