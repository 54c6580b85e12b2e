"""``Stepper``: drive a ``JobRun`` on the simulated MiniCluster one action at a time, in a widget.

No Flink counterpart: a teaching console over ``MiniCluster.submitJob`` and the web UI's panes
(job graph coloured by ExecutionState, JobStatus, subtasks, TaskManager slots, checkpoints, log).
The ExecutionGraph is laid out once; each step sends only the changed panes.
"""

from __future__ import annotations

import math
from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook.assets import widget_file
from pyflowkit.notebook.channel_marks import channel_marks
from pyflowkit.notebook.graph_view import static_svg
from pyflowkit.render.states import STATE_COLOURS

EVENT_LOG_SIZE = 200
RUN_TO_TARGETS = ("state", "job", "checkpoint", "end")
RUN_TO_LABELS = {
    "state": "next state change",
    "job": "next JobStatus change",
    "checkpoint": "next completed checkpoint",
    "end": "job end",
}
NO_CHECKPOINTS = (
    "checkpoints are not available in this runtime yet (JobRun has no trigger_checkpoint); "
    "nothing was triggered"
)
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


def _plain(value: Any) -> Any:
    """A JSON-safe value for a table cell (NaN → None, objects → str)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if hasattr(value, "item"):  # numpy scalar
        return _plain(value.item())
    return str(value)


def _records(frame: Any) -> list[dict[str, Any]]:
    """JSON-safe row dicts (numpy's object array is much cheaper than ``to_dict("records")``)."""
    columns = [str(c) for c in frame.columns]
    return [
        {c: _plain(v) for c, v in zip(columns, row, strict=True)}
        for row in frame.to_numpy(dtype=object).tolist()
    ]


class Stepper(anywidget.AnyWidget):
    """Buttons and panes around one ``JobRun``; every button is also a Python method."""

    _esm = widget_file("pyflowkit.js")
    _css = widget_file("widgets.css")
    _kind = t.Unicode("stepper").tag(sync=True)

    svg = t.Unicode("").tag(sync=True)
    states = t.Dict().tag(sync=True)
    colours = t.Dict(dict(STATE_COLOURS)).tag(sync=True)
    edge_marks = t.Dict().tag(sync=True)
    selected = t.Unicode("").tag(sync=True)
    submitted = t.Bool(False).tag(sync=True)
    job_status = t.Unicode("").tag(sync=True)
    step_count = t.Int(0).tag(sync=True)
    finished = t.Bool(False).tag(sync=True)
    tasks = t.List().tag(sync=True)
    slots = t.List().tag(sync=True)
    events = t.List().tag(sync=True)
    checkpoints = t.Dict().tag(sync=True)
    keyed_state = t.Dict().tag(sync=True)
    message = t.Unicode("").tag(sync=True)
    seed = t.Int(0).tag(sync=True)
    task_managers = t.Int(2).tag(sync=True)

    def __init__(
        self,
        env_or_job_graph: Any,
        task_managers: int = 2,
        slots: int = 2,
        seed: int = 0,
        submit: bool = False,
        savepoint_path: str | None = None,
        allow_non_restored_state: bool = False,
    ) -> None:
        from pyflowkit.runtime.mini_cluster import to_job_graph

        job_graph = to_job_graph(env_or_job_graph)
        execution_graph = job_graph.to_execution_graph()
        super().__init__(svg=execution_graph.to_svg(), seed=seed, task_managers=task_managers)
        self.job_graph = job_graph
        self.slots_per_task_manager = slots
        self.savepoint_path = None if savepoint_path is None else str(savepoint_path)
        self.allow_non_restored_state = allow_non_restored_state
        self.run: Any = None
        self._log: list[dict[str, Any]] = []
        self.on_msg(self._on_command)
        self.observe(lambda _: self._refresh_keyed_state(), names="selected")
        if submit:
            self.submit()

    # -- commands (buttons) ---------------------------------------------------------------------
    def submit(self) -> None:
        """``MiniCluster.submitJob``: a fresh run with the current seed (nothing stepped yet),
        restoring ``savepoint_path`` if one was given."""
        from pyflowkit.runtime.mini_cluster import MiniCluster

        cluster = MiniCluster(
            self.task_managers, self.slots_per_task_manager, seed=self.seed, echo_print=False
        )
        if self.savepoint_path is None:
            self.run = cluster.submit(self.job_graph)
        else:
            self.run = cluster.submit(
                self.job_graph,
                savepoint_path=self.savepoint_path,
                allow_non_restored_state=self.allow_non_restored_state,
            )
        self._log = []
        self.submitted = True
        restored = f", restoring {self.savepoint_path}" if self.savepoint_path else ""
        self.message = f"submitted {self.job_graph.job_name!r} with seed {self.seed}{restored}"
        self.refresh()

    def step(self, n: int = 1) -> list[Any]:
        """Deliver ``n`` messages/mails (``JobRun.step``)."""
        self._need_run()
        events = self.run.step(n)
        self._log.extend(self._event_row(e) for e in events)
        self.message = events[-1].message if events else "nothing left to step: the run is idle"
        self.refresh()
        return events

    def back(self) -> None:
        """Rewind one step (``JobRun.rewind``: a deterministic replay from the seed)."""
        self._need_run()
        if self.run.steps_taken == 0:
            self.message = "already at step 0"
            return
        self.run.rewind(self.run.steps_taken - 1)
        self._log = [self._event_row(e) for e in self.run.trace]
        self.message = f"rewound to step {self.run.steps_taken}"
        self.refresh()

    def run_to(self, target: str) -> None:
        """Step until the next state change (task or job), the next JobStatus change, the next
        completed checkpoint, or the job's end."""
        from pyflowkit.runtime import predicates

        self._need_run()
        if target not in RUN_TO_TARGETS:
            raise ValueError(
                f"Stepper.run_to: target must be one of {RUN_TO_TARGETS}, not {target!r}"
            )
        if target == "checkpoint":
            if not hasattr(self.run, "checkpoints_frame"):
                self.message = NO_CHECKPOINTS
                return
            predicate = self._next_completed_checkpoint()
        elif target == "state":
            predicate = predicates.next_state_change()
        elif target == "job":
            status = self.run.job_status
            predicate = lambda run: run.job_status is not status  # noqa: E731
        else:
            predicate = predicates.job_finished()
        from pyflowkit.errors import IllegalArgumentException

        start = len(self.run.trace)
        try:
            self.run.run_until(predicate)
        except IllegalArgumentException as exc:  # the simulation ran out of events first
            self.message = f"no {RUN_TO_LABELS[target]}: {exc}"
            return
        finally:
            self._log.extend(self._event_row(e) for e in self.run.trace[start:])
            self.refresh()
        self.message = f"ran to {target}: step {self.run.steps_taken}"

    def trigger_checkpoint(self) -> None:
        """``CheckpointCoordinator.triggerCheckpoint`` (when the runtime has checkpoints)."""
        self._need_run()
        if not hasattr(self.run, "trigger_checkpoint"):
            self.message = NO_CHECKPOINTS
            return
        start = len(self.run.trace)
        checkpoint_id = self.run.trigger_checkpoint()
        self._log_since(start)
        self.message = (
            f"checkpoint {checkpoint_id} triggered"
            if checkpoint_id is not None
            else "checkpoint request queued behind the checkpoints in progress"
        )
        self.refresh()

    def trigger_savepoint(self) -> None:
        """``JobMaster.triggerSavepoint`` (when the runtime has savepoints)."""
        self._need_run()
        if not hasattr(self.run, "trigger_savepoint"):
            self.message = NO_CHECKPOINTS.replace("checkpoint", "savepoint")
            return
        start = len(self.run.trace)
        checkpoint_id = self.run.trigger_savepoint()
        self._log_since(start)
        self.message = f"savepoint {checkpoint_id} triggered"
        self.refresh()

    def fail_selected_task(self) -> None:
        """``JobRun.fail_task`` on the subtask selected in the graph."""
        self._need_run()
        vertex, subtask = self.selected_subtask()
        self.run.fail_task(vertex, subtask)
        self.message = (
            f"failing {self.job_graph.get_vertex(vertex).name} ({subtask + 1}) at the next step"
        )
        self.refresh()

    def fail_task_manager(self, index: int) -> None:
        """``JobRun.fail_task_manager``: kill TaskExecutor ``index``."""
        self._need_run()
        self.run.fail_task_manager(index)
        self.message = f"TaskExecutor-{index} will be killed at the next step"
        self.refresh()

    def cancel(self) -> None:
        """``JobMaster.cancel``."""
        self._need_run()
        self.run.cancel()
        self.message = "cancel requested: step to watch CANCELING → CANCELED"
        self.refresh()

    def reset(self, seed: int | None = None) -> None:
        """A new run from scratch, with ``seed`` (or the current one)."""
        if seed is not None:
            self.seed = seed
        self.submit()

    # -- state → traits -------------------------------------------------------------------------
    def selected_subtask(self) -> tuple[str, int]:
        """(JobVertexID, subtask index) of the selected ``ev_…`` element."""
        if not self.selected.startswith("ev_"):
            raise ValueError("select a subtask in the ExecutionGraph first (click a task)")
        vertex, _, index = self.selected[3:].rpartition("_")
        return vertex, int(index)

    def _log_since(self, start: int) -> None:
        """Add the trace events a command caused outside ``step`` (e.g. a trigger) to the log."""
        self._log.extend(self._event_row(e) for e in self.run.trace[start:])

    def _need_run(self) -> None:
        if self.run is None:
            self.submit()

    @staticmethod
    def _event_row(e: Any) -> dict[str, Any]:
        return {
            "step": e.step,
            "time": e.time,
            "component": e.component,
            "method": e.method,
            "message": e.message,
        }

    def _next_completed_checkpoint(self) -> Any:
        """Predicate: one more checkpoint COMPLETED than now (the runtime's, else from the frame)."""
        from pyflowkit.runtime import predicates

        ready_made = getattr(predicates, "checkpoint_completed", None)
        if ready_made is not None:
            return ready_made()

        def completed(run: Any) -> int:
            frame = run.checkpoints_frame()
            return int((frame["status"] == "COMPLETED").sum()) if "status" in frame else 0

        done = completed(self.run)
        return lambda run: completed(run) > done

    def execution_states(self) -> dict[str, str]:
        """``ev_<JobVertexID>_<i>`` → ExecutionState name of the current attempt."""
        return {
            f"ev_{e.vertex.job_vertex.id}_{e.vertex.subtask_index}": e.state.value
            for e in self.run.executions()
        }

    def refresh(self) -> None:
        """Push the run's current state to the browser (one batched update)."""
        run = self.run
        with self.hold_sync():
            self.states = self.execution_states()
            self.job_status = run.job_status.value
            self.step_count = run.steps_taken
            self.finished = not run.has_next()
            self.tasks = _records(run.tasks_frame())
            self.slots = _records(run.slots_frame())
            self.events = self._log[-EVENT_LOG_SIZE:]
            self.checkpoints = self._checkpoint_pane()
            self.edge_marks = channel_marks(run) if hasattr(run, "task_executors") else {}
            self._refresh_keyed_state()

    def _checkpoint_pane(self) -> dict[str, Any]:
        """Counts, one progress row per pending checkpoint (acks / total), the history newest first."""
        if not hasattr(self.run, "checkpoints_frame"):
            return {
                "available": False,
                "note": NO_CHECKPOINTS,
                "history": [],
                "pending": [],
                "counts": {},
                "columns": [],
            }
        rows = sorted(_records(self.run.checkpoints_frame()), key=lambda r: -int(r["id"]))
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

    def _refresh_keyed_state(self) -> None:
        if self.run is None or not self.selected.startswith("ev_"):
            self.keyed_state = {}
            return
        vertex, subtask = self.selected_subtask()
        try:
            state = self.run.keyed_state(vertex, subtask)
        except Exception as exc:  # not running yet: say why
            self.keyed_state = {"note": str(exc)}
            return
        self.keyed_state = {
            op: {
                name: {repr(k): repr(v) for k, v in values.items()} for name, values in per.items()
            }
            for op, per in state.items()
        }

    # -- browser messages -----------------------------------------------------------------------
    def _on_command(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        """Buttons send ``{"cmd": ...}``; errors become the status line, never a traceback."""
        cmd = content.get("cmd")
        try:
            if cmd == "submit":
                self.submit()
            elif cmd == "step":
                self.step(int(content.get("n", 1)))
            elif cmd == "back":
                self.back()
            elif cmd == "run_to":
                self.run_to(str(content.get("target")))
            elif cmd == "checkpoint":
                self.trigger_checkpoint()
            elif cmd == "savepoint":
                self.trigger_savepoint()
            elif cmd == "fail_task":
                self.fail_selected_task()
            elif cmd == "fail_tm":
                self.fail_task_manager(int(content.get("index", 0)))
            elif cmd == "cancel":
                self.cancel()
            elif cmd == "reset":
                self.reset(int(content.get("seed", self.seed)))
            else:
                self.message = f"unknown command {cmd!r}"
        except Exception as exc:
            self.message = f"{cmd}: {exc}"

    # -- static fallback ------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["image/svg+xml"] = static_svg(self.svg, self.states, self.edge_marks)
        status = self.job_status or "not submitted"
        data["text/plain"] = (
            f"Stepper({self.job_graph.job_name!r}: {status}, step {self.step_count})"
        )
        data["text/html"] = self._static_html()
        return bundle

    def _static_html(self) -> str:
        from html import escape

        status = escape(self.job_status or "not submitted")
        rows = "".join(
            f"<tr><td>{escape(str(r['name']))}</td><td>{escape(str(r['state']))}</td></tr>"
            for r in self.tasks
        )
        return (
            f"<div class='pfk-static'><b>JobStatus: {status}</b> · step {self.step_count}"
            f"{_svg_element(static_svg(self.svg, self.states, self.edge_marks))}"
            f"<table><tr><th>subtask</th><th>state</th></tr>{rows}</table>"
            f"{_checkpoint_table(self.checkpoints)}</div>"
        )


def _checkpoint_table(pane: dict[str, Any]) -> str:
    """The checkpoint history as a static HTML table (empty when there is none)."""
    from html import escape

    history, columns = pane.get("history") or [], pane.get("columns") or []
    if not history:
        return ""
    head = "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(r.get(c, '')))}</td>" for c in columns) + "</tr>"
        for r in history
    )
    return f"<b>Checkpoints</b><table class='pfk-ck-history'><tr>{head}</tr>{body}</table>"


def _svg_element(svg: str) -> str:
    """The ``<svg>`` element alone (no XML prolog), for embedding in HTML."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg
