"""The Stepper's view model: a ``JobRun``'s current state as JSON-safe panes for the browser.

No Flink counterpart: mirrors the web UI's panes (job graph coloured by ExecutionState, JobStatus,
subtasks, TaskManager slots, checkpoints with Flink REST ``/checkpoints`` names, keyed state).
"""

from __future__ import annotations

import math
from typing import Any

from pyflowkit.notebook.channel_marks import barrier_tokens, channel_marks
from pyflowkit.notebook.stepper_controller import NO_CHECKPOINTS
from pyflowkit.notebook.subtask_metrics import subtask_metrics
from pyflowkit.render.short_names import short_task_name

EVENT_LOG_SIZE = 200
#: Checkpoint statuses as Flink's REST API spells them (``CheckpointStatsStatus``).
CHECKPOINT_STATUSES = ("IN_PROGRESS", "COMPLETED", "FAILED")
#: The checkpoint history columns shown, in the web UI's order (Flink REST ``/checkpoints`` names).
CHECKPOINT_COLUMNS = (
    "id",
    "status",
    "is_savepoint",
    "num_acknowledged_subtasks",
    "num_subtasks",
    "trigger_timestamp",
    "latest_ack_timestamp",
    "end_to_end_duration",
    "state_size",
    "alignment_buffered",
    "failure_message",
)


def plain(value: Any) -> Any:
    """A JSON-safe value for a table cell (NaN → None, objects → str)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if hasattr(value, "item"):  # numpy scalar
        return plain(value.item())
    return str(value)


def records(frame: Any) -> list[dict[str, Any]]:
    """JSON-safe row dicts (numpy's object array is much cheaper than ``to_dict("records")``)."""
    columns = [str(c) for c in frame.columns]
    return [
        {c: plain(v) for c, v in zip(columns, row, strict=True)}
        for row in frame.to_numpy(dtype=object).tolist()
    ]


def execution_states(run: Any) -> dict[str, str]:
    """``ev_<JobVertexID>_<i>`` → ExecutionState name of the current attempt."""
    return {
        f"ev_{e.vertex.job_vertex.id}_{e.vertex.subtask_index}": e.state.value
        for e in run.executions()
    }


def run_panes(run: Any, log: list[dict[str, Any]], metrics: bool = True) -> dict[str, Any]:
    """Every pane that changes with a step, keyed by the Stepper's trait names; ``metrics``:
    whether the metrics strips are shown (hidden, nothing reads them: they are not computed)."""
    live = hasattr(run, "task_executors")
    panes = {
        "states": execution_states(run),
        "job_status": run.job_status.value,
        "step_count": run.steps_taken,
        "finished": not run.has_next(),
        "tasks": task_rows(run),
        "slots": slot_rows(run),
        "events": log[-EVENT_LOG_SIZE:],
        "edge_marks": channel_marks(run) if live else {},
        "edge_tokens": barrier_tokens(run) if live else {},
    }
    if metrics:
        panes["metrics"] = run_metrics(run)
    return panes


def run_metrics(run: Any) -> dict[str, Any]:
    """The metrics strips' view model of ``run`` (``subtask_metrics``; none without live tasks)."""
    return subtask_metrics(run) if hasattr(run, "task_executors") else {}


def task_rows(run: Any) -> list[dict[str, Any]]:
    """The subtasks table (``JobRun.tasks_frame`` rows) with a short name, and what the
    TaskExecutor says when the JobMaster (whose view the graph colours) has not heard it yet."""
    from pyflowkit.runtime.job_run_views import task_rows as rows_of

    rows = rows_of(run)
    for row in rows:
        row["task"] = short_task_name(row["name"])
        tm = row.get("task_state")
        row["task_executor_says"] = tm if tm is not None and tm != row["state"] else ""
    return rows


def slot_rows(run: Any) -> list[dict[str, Any]]:
    """The slots table (``JobRun.slots_frame`` rows)."""
    from pyflowkit.runtime.job_run_views import slot_rows as rows_of

    return rows_of(run.task_executors)


def checkpoint_pane(run: Any) -> dict[str, Any]:
    """Counts, one progress row per pending checkpoint (acks / total), the history newest first."""
    if not hasattr(run, "checkpoints_frame"):
        return {
            "available": False,
            "note": NO_CHECKPOINTS,
            "history": [],
            "pending": [],
            "counts": {},
            "columns": [],
        }
    rows = sorted(records(run.checkpoints_frame()), key=lambda r: -int(r["id"]))
    counts = {s: sum(r["status"] == s for r in rows) for s in CHECKPOINT_STATUSES}
    pending = [
        {
            "id": r["id"],
            "acks": r.get("num_acknowledged_subtasks") or 0,
            "total": r.get("num_subtasks") or 0,
            "is_savepoint": bool(r.get("is_savepoint")),
        }
        for r in rows
        if r["status"] == "IN_PROGRESS"
    ]
    columns = [c for c in CHECKPOINT_COLUMNS if any(c in r for r in rows)] or list(
        CHECKPOINT_COLUMNS
    )
    return {
        "available": True,
        "history": rows,
        "pending": pending,
        "counts": counts,
        "columns": columns,
    }


def selected_subtask(selected: str) -> tuple[str, int]:
    """(JobVertexID, subtask index) of a selected ``ev_…`` element id."""
    if not selected.startswith("ev_"):
        raise ValueError("select a subtask in the ExecutionGraph first (click a task)")
    vertex, _, index = selected[3:].rpartition("_")
    return vertex, int(index)


def keyed_state_pane(run: Any, selected: str) -> dict[str, Any]:
    """The keyed state of the selected subtask (reprs), or a note saying why there is none."""
    if run is None or not selected.startswith("ev_"):
        return {}
    vertex, subtask = selected_subtask(selected)
    try:
        state = run.keyed_state(vertex, subtask)
    except Exception as exc:  # not running yet: say why
        return {"note": str(exc)}
    return {
        op: {name: {repr(k): repr(v) for k, v in values.items()} for name, values in per.items()}
        for op, per in state.items()
    }
