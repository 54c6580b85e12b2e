"""``Stepper``: drive a ``JobRun`` on the simulated MiniCluster one action at a time, in a widget.

No Flink counterpart: a teaching console over ``MiniCluster.submitJob`` and the web UI's panes.
The widget only wires three parts together: ``StepperController`` (commands), the view model
(``stepper_view_model``: the run as JSON panes) and ``stepper_html`` (the static fallback).
The ExecutionGraph is laid out once; each step sends only the changed panes.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook import stepper_view_model as vm
from pyflowkit.notebook.assets import THEMED_STYLES, widget_bundle, widget_styles
from pyflowkit.notebook.channel_marks import edge_names
from pyflowkit.notebook.checkpoint_progress import CheckpointProgress, subtask_table
from pyflowkit.notebook.failure_pane import FailurePane
from pyflowkit.notebook.graph_view import static_svg
from pyflowkit.notebook.sequence_view import SequencePane
from pyflowkit.notebook.stepper_controller import (
    NO_CHECKPOINTS,
    RUN_TO_LABELS,
    RUN_TO_TARGETS,
    StepperController,
)
from pyflowkit.notebook.stepper_html import stepper_html
from pyflowkit.notebook.stepper_lesson import LessonRecorder
from pyflowkit.notebook.stepper_lesson import dumps as lesson_dumps
from pyflowkit.notebook.stepper_lesson import load as load_lesson
from pyflowkit.notebook.stepper_lesson import replay as replay_lesson
from pyflowkit.notebook.stepper_narration import narrate
from pyflowkit.notebook.stepper_view_model import (
    CHECKPOINT_COLUMNS,
    CHECKPOINT_STATUSES,
    EVENT_LOG_SIZE,
)
from pyflowkit.notebook.timeline_pane import TimelinePane
from pyflowkit.render.palette import STATE_PALETTE, STATE_TEXT
from pyflowkit.render.short_names import abridge_log_line, short_ids

#: The Stepper's themes: "auto" follows the front end's light or dark theme.
THEMES = ("auto", "light", "dark", "high-contrast")
#: The font scale's range: 1 keeps every text at 14 px or more.
FONT_SCALES = (1.0, 2.0)

#: The traits only one tab shows, and that tab: sent to the browser while the tab is open, or
#: when it opens (a hidden Event log was 9 KB of every step's answer). Python reads them current.
TAB_TRAITS = {
    "tasks": "tasks",
    "slots": "slots",
    "checkpoints": "checkpoints",
    "timeline": "timeline",
    "keyed_state": "state",
    "events": "log",
}

__all__ = [
    "CHECKPOINT_COLUMNS",
    "CHECKPOINT_STATUSES",
    "EVENT_LOG_SIZE",
    "NO_CHECKPOINTS",
    "RUN_TO_LABELS",
    "RUN_TO_TARGETS",
    "Stepper",
]


#: From this font scale the widget's chrome and the sequence header are compact.
COMPACT_FONT_SCALE = 1.5


class Stepper(anywidget.AnyWidget):
    """Buttons and panes around one ``JobRun``; every button is also a Python method."""

    _esm = widget_bundle("sequence.js", "lecture_tools.js", "pyflowkit.js")
    _css = widget_styles(*THEMED_STYLES)
    _kind = t.Unicode("stepper").tag(sync=True)

    svg = t.Unicode("").tag(sync=True)
    states = t.Dict().tag(sync=True)
    colours = t.Dict(dict(STATE_PALETTE)).tag(sync=True)
    text_colours = t.Dict(dict(STATE_TEXT)).tag(sync=True)
    edge_marks = t.Dict().tag(sync=True)
    edge_tokens = t.Dict().tag(sync=True)
    badges = t.Dict().tag(sync=True)
    failures = t.Dict().tag(sync=True)
    timeline = t.Unicode("").tag(sync=True)
    #: "auto" (projector below 1,400 px of width), "projector" or "desk". Not ``layout``: that name
    #: is ipywidgets' own ``Layout`` widget (a string there broke the front end's widget manager).
    layout_mode = t.Enum(("auto", "projector", "desk"), "auto").tag(sync=True)
    #: The pane shown under the graph: sequence, tasks, checkpoints, exceptions, timeline, slots,
    #: state or log.
    tab = t.Unicode("sequence").tag(sync=True)
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
    #: ``message`` abridged (``abridge_log_line``): what the status line shows where the whole
    #: line would take more than its two lines (the whole one in its title and the Event log).
    message_short = t.Unicode("").tag(sync=True)
    seed = t.Int(0).tag(sync=True)
    task_managers = t.Int(2).tag(sync=True)
    #: The current step in plain words (``stepper_narration.narrate``).
    narration = t.Dict().tag(sync=True)
    seq_head = t.Unicode("").tag(sync=True)
    seq_body = t.Unicode("").tag(sync=True)
    #: The sequence pane's width in px, sent by the browser (0: draw every lifeline, full width).
    seq_width = t.Int(0).tag(sync=True)
    #: What Flink's web UI shows per subtask and channel (``subtask_metrics``): records, watermarks,
    #: buffers, back pressure. Drawn under each subtask while ``show_metrics`` (the Metrics button);
    #: computed and sent only while shown.
    metrics = t.Dict().tag(sync=True)
    show_metrics = t.Bool(False).tag(sync=True)
    #: The sequence diagram's phase bands collapsed to one row (their first arrow's index; a
    #: click on a band's header toggles it; the current step's band stays open).
    seq_collapsed = t.List(t.Int()).tag(sync=True)
    #: The text size of the graph, the sequence diagram and the narration (A− / A+), 1 to 2.
    font_scale = t.Float(1.0).tag(sync=True)
    #: "auto" follows JupyterLab's (or Notebook 7's) theme; "light", "dark", "high-contrast".
    theme = t.Enum(THEMES, "auto").tag(sync=True)
    #: Bookmarks (name → step) for the step scrubber; ``bookmark()`` adds one.
    bookmarks = t.Dict().tag(sync=True)
    #: The furthest step this run reached (the scrubber's end; Back keeps it).
    furthest_step = t.Int(0).tag(sync=True)

    def __init__(
        self,
        env_or_job_graph: Any,
        task_managers: int | None = None,
        slots: int | None = None,
        seed: int = 0,
        submit: bool = False,
        savepoint_path: str | None = None,
        allow_non_restored_state: bool = False,
        record_cost_ms: dict[str, float] | None = None,
        show_metrics: bool = False,
    ) -> None:
        """``record_cost_ms``: operator name → simulated ms each record costs its task (a slow
        sink); ``show_metrics``: the metrics strip under each subtask from the start.
        ``task_managers`` / ``slots`` left ``None`` are sized to the job as ``MiniCluster()`` does
        (``cluster_size.classroom_size``: 2 x 2, or 2 x the job's slots when it needs more)."""
        from pyflowkit.runtime.cluster_size import classroom_size
        from pyflowkit.runtime.mini_cluster import to_job_graph

        job_graph = to_job_graph(env_or_job_graph)
        size = classroom_size(job_graph, task_managers, slots)
        task_managers, slots = size.task_managers, size.slots_per_task_manager
        execution_graph = job_graph.to_execution_graph()
        super().__init__(
            svg=execution_graph.to_svg(),
            seed=seed,
            task_managers=task_managers,
            show_metrics=show_metrics,
        )
        self.sequence = SequencePane(execution_graph)
        self.edge_names = edge_names(execution_graph)
        self.failure_pane = FailurePane()
        self.timeline_pane = TimelinePane()
        self.progress = CheckpointProgress(job_graph)
        self._checkpoints_key: Any = None
        self.lesson_recorder = LessonRecorder()
        self.controller = StepperController(
            job_graph,
            task_managers,
            slots,
            seed,
            savepoint_path,
            allow_non_restored_state,
            record_cost_ms,
        )
        self._unsent: set[str] = set()
        self.on_msg(self._on_command)
        self._task_names = [v.name for v in execution_graph.job_vertices]
        self.observe(self._abridge_message, names="message")
        self.observe(lambda _: self._send_tab(), names="tab")
        self.observe(lambda _: self._refresh_keyed_state(), names="selected")
        self.observe(
            lambda _: self._refresh_sequence(), names=["seq_width", "seq_collapsed", "font_scale"]
        )
        self._svgs = {False: self.svg}
        self._execution_graph = execution_graph
        self.observe(lambda _: self._show_metrics(), names="show_metrics")
        self._lay_out_metrics()
        if submit:
            self.submit()

    @t.validate("font_scale")
    def _valid_font_scale(self, proposal: Any) -> float:
        """Between 1 and 2 (below 1 a text would be under 14 px), in steps of 1/8."""
        low, high = FONT_SCALES
        return min(high, max(low, round(float(proposal["value"]) * 8) / 8))

    def _abridge_message(self, change: Any) -> None:
        self.message_short = abridge_log_line(change["new"], self._task_names)

    @property
    def compact_header(self) -> bool:
        """The sequence diagram's short header (``header_svg(compact=True)``) from font scale 1.5,
        where the widget's chrome turns compact too (``pfk-compact``): zoomed twice, the full
        header was 128 px of a 1280 x 800 projector's height."""
        return self.font_scale >= COMPACT_FONT_SCALE

    def __setattr__(self, name: str, value: Any) -> None:
        """``stepper.layout = "projector"`` (the name before 0.x) still picks the layout mode."""
        if name == "layout" and isinstance(value, str):
            name = "layout_mode"
        super().__setattr__(name, value)

    def _show_metrics(self) -> None:
        """The Metrics button: the graph's layout, and the strips' values of the current step
        (only computed while shown: ``refresh`` skips them while hidden)."""
        self._lay_out_metrics()
        if self.show_metrics and self.run is not None:
            self.metrics = vm.run_metrics(self.run)

    def _lay_out_metrics(self) -> None:
        """The graph with room for a metrics strip in every subtask box (laid out once), or
        without; the browser redraws the SVG when it changes."""
        on = bool(self.show_metrics)
        if on not in self._svgs:
            from pyflowkit.render.execution_graph_dot import execution_graph_svg_with_metrics

            self._svgs[on] = execution_graph_svg_with_metrics(self._execution_graph)
        self.svg = self._svgs[on]

    # -- the controller's state, as attributes ---------------------------------------------------
    @property
    def run(self) -> Any:
        """The ``JobRun`` being stepped (None before the first submit)."""
        return self.controller.run

    @run.setter
    def run(self, run: Any) -> None:
        self.controller.run = run

    @property
    def job_graph(self) -> Any:
        return self.controller.job_graph

    @property
    def savepoint_path(self) -> str | None:
        return self.controller.savepoint_path

    @property
    def allow_non_restored_state(self) -> bool:
        return self.controller.allow_non_restored_state

    @property
    def slots_per_task_manager(self) -> int:
        return self.controller.slots_per_task_manager

    # -- commands (buttons) ---------------------------------------------------------------------
    def submit(self) -> None:
        """``MiniCluster.submitJob``: a fresh run with the current seed (nothing stepped yet)."""
        self.controller.seed = self.seed
        self.controller.task_managers = self.task_managers
        self.lesson_recorder.record("submit")
        self.controller.submit()
        self.submitted = True
        self.furthest_step = 0
        self.refresh()

    def step(self, n: int = 1) -> list[Any]:
        """Deliver ``n`` messages/mails (``JobRun.step``)."""
        self._need_run()
        self.lesson_recorder.record("step", n=n)
        events = self.controller.step(n)
        self.refresh()
        return events

    def step_until(
        self, condition: Any, what: str = "the condition holds", max_steps: int = 2000
    ) -> str:
        """Step until ``condition(stepper)`` is true, the job ends, or ``max_steps`` steps: a wait
        loop with a bound. Returns (and the notebook prints) why it stopped; raises
        ``RuntimeError`` with that reason when the condition never held."""
        self._need_run()
        for taken in range(max_steps + 1):
            if condition(self):
                return f"{what} after {taken} step(s) (now at step {self.step_count})"
            if self.finished:
                break
            self.step()
        reason = (
            f"the job ended ({self.job_status}) at step {self.step_count}"
            if self.finished
            else f"{max_steps} steps"
        )
        raise RuntimeError(f"stopped waiting for {what}: {reason}, and it never happened")

    def back(self) -> None:
        """Rewind one step (``JobRun.rewind``: a deterministic replay from the seed)."""
        self._need_run()
        self.lesson_recorder.record("back")
        self.controller.back()
        self.refresh()

    def run_to(self, target: str) -> None:
        """Step until the next state change, JobStatus change, completed checkpoint, or the end."""
        self._need_run()
        self.lesson_recorder.record("run_to", target=target)
        try:
            self.controller.run_to(target)
        finally:
            self.refresh()

    def trigger_checkpoint(self) -> None:
        """``CheckpointCoordinator.triggerCheckpoint`` (when the runtime has checkpoints)."""
        self._need_run()
        self.lesson_recorder.record("checkpoint")
        self.controller.trigger_checkpoint()
        self.refresh()

    def trigger_savepoint(self) -> None:
        """``JobMaster.triggerSavepoint`` (when the runtime has savepoints)."""
        self._need_run()
        self.lesson_recorder.record("savepoint")
        self.controller.trigger_savepoint()
        self.refresh()

    def fail_selected_task(self) -> None:
        """``JobRun.fail_task`` on the subtask selected in the graph."""
        self._need_run()
        vertex, subtask = self.selected_subtask()
        self.lesson_recorder.record("fail_task", vertex=vertex, subtask=subtask)
        self.controller.fail_task(vertex, subtask)
        self.refresh()

    def fail_task_manager(self, index: int) -> None:
        """``JobRun.fail_task_manager``: kill TaskExecutor ``index``."""
        self._need_run()
        self.lesson_recorder.record("fail_tm", index=index)
        self.controller.fail_task_manager(index)
        self.refresh()

    def cancel(self) -> None:
        """``JobMaster.cancel``."""
        self._need_run()
        self.lesson_recorder.record("cancel")
        self.controller.cancel()
        self.refresh()

    def reset(self, seed: int | None = None) -> None:
        """A new run from scratch, with ``seed`` (or the current one)."""
        if seed is not None:
            self.seed = seed
        self.lesson_recorder.record("reset", seed=self.seed)
        self.lesson_recorder.paused = True
        try:
            self.submit()
        finally:
            self.lesson_recorder.paused = False

    def present(self) -> None:
        """Presenter mode: the Stepper takes the whole browser window, its text at least 18 px
        (the Present button also asks for full screen; Escape or ``leave_presenter()`` leaves)."""
        self.send({"event": "present"})

    def leave_presenter(self) -> None:
        self.send({"event": "leave"})

    # -- lesson scripts ---------------------------------------------------------------------------
    def bookmark(self, name: str) -> None:
        """Remember the current step as ``name`` (saved with the lesson; ``go_to`` returns)."""
        self.lesson_recorder.bookmarks[name] = self.step_count
        self.bookmarks = dict(self.lesson_recorder.bookmarks)

    def go_to(self, name_or_step: str | int) -> None:
        """Rewind or step to a bookmark (or a step number): a deterministic replay from the seed."""
        target = self.lesson_recorder.bookmarks.get(name_or_step, name_or_step)  # type: ignore[call-overload]
        if not isinstance(target, int):
            known = ", ".join(self.lesson_recorder.bookmarks) or "none"
            raise KeyError(f"no bookmark {name_or_step!r} (bookmarks: {known})")
        if self.step_count > target:  # one replay from the seed, not one per step back
            self._need_run()
            self.lesson_recorder.record("back", to=target)
            self.controller.rewind_to(target)
            self.refresh()
        if self.step_count < target:
            self.step(target - self.step_count)

    def narrate_step(self, step: int, text: str) -> None:
        """The teacher's own sentence for ``step`` (shown instead of the derived one, saved)."""
        self.lesson_recorder.narration[step] = text
        if step == self.step_count:
            self.refresh()

    def lesson(self) -> dict[str, Any]:
        """This session as a lesson script (a dict; ``save_lesson`` writes it as JSON)."""
        return self.lesson_recorder.to_dict(self)

    def save_lesson(self, path: str) -> str:
        """Write the lesson script to ``path`` (small JSON, one action per line); the path."""
        from pathlib import Path

        Path(path).write_text(lesson_dumps(self.lesson()))
        return str(path)

    def play_lesson(self, source: Any) -> Stepper:
        """Replay a lesson script (a path, JSON text or dict) from a fresh session: the same
        seed and actions give the same trace as when it was recorded."""
        lesson = load_lesson(source)
        if lesson["job"] != self.job_graph.job_name:
            raise ValueError(
                f"the lesson is for job {lesson['job']!r}, this Stepper runs "
                f"{self.job_graph.job_name!r}"
            )
        self.lesson_recorder = LessonRecorder()
        replay_lesson(self, lesson)
        self.refresh()
        return self

    def _need_run(self) -> None:
        if self.controller.run is None:
            self.submit()

    # -- view model → traits ---------------------------------------------------------------------
    def selected_subtask(self) -> tuple[str, int]:
        """(JobVertexID, subtask index) of the selected ``ev_…`` element."""
        return vm.selected_subtask(self.selected)

    def execution_states(self) -> dict[str, str]:
        """``ev_<JobVertexID>_<i>`` → ExecutionState name of the current attempt."""
        return vm.execution_states(self.run)

    def refresh(self) -> None:
        """Push the run's current state to the browser (one batched update)."""
        with self.hold_sync():
            panes = vm.run_panes(self.run, self.controller.log, metrics=self.show_metrics)
            for name, value in panes.items():
                setattr(self, name, value)
            key = (id(self.run), self.progress.version(self.run))
            if key != self._checkpoints_key:  # these only change with checkpoint events
                self._checkpoints_key = key
                self._refresh_checkpoint_progress()
            self.message = short_ids(self.controller.message)
            self._refresh_sequence()
            self.narration = narrate(self.run, self.sequence.model)
            override = self.lesson_recorder.narration.get(self.step_count)
            if override and self.narration:
                self.narration = {**self.narration, "sentence": override, "override": True}
            self.failures = self.failure_pane.update(self.run)
            self.timeline = self.timeline_pane.update(self.run)
            self._refresh_keyed_state()
            self.bookmarks = dict(self.lesson_recorder.bookmarks)
            self.furthest_step = max(self.furthest_step, self.step_count)

    def _refresh_sequence(self) -> None:
        if self.run is not None:
            self.seq_head, self.seq_body = self.sequence.update(
                self.run, self.seq_width or None, self.seq_collapsed, self.compact_header
            )

    def _refresh_checkpoint_progress(self) -> None:
        """History, PendingCheckpoint box, per-subtask table and the graph's subtask badges."""
        progress = self.progress
        self.badges = progress.badges()
        box = progress.pending_box(self.run)
        pane = vm.checkpoint_pane(self.run)
        pane["box"] = box
        pane["subtasks"] = subtask_table(self.run, box["id"]) if box else []
        self.checkpoints = pane

    def _refresh_keyed_state(self) -> None:
        self.keyed_state = vm.keyed_state_pane(self.run, self.selected)

    def channels(self) -> Any:
        """The channels that carry a barrier or are blocked right now, by name (a DataFrame):
        producer → consumer, ``blocked`` (aligning), the barriers in it and the records ahead."""
        import pandas as pd

        rows = []
        for edge in sorted(set(self.edge_marks) | set(self.edge_tokens)):
            tokens = self.edge_tokens.get(edge, [])
            rows.append(
                {
                    "channel": self.edge_names.get(edge, edge),
                    "blocked (aligning)": self.edge_marks.get(edge) == "blocked",
                    "barriers": ", ".join(f"CheckpointBarrier {t['id']}" for t in tokens),
                    "records ahead": ", ".join(str(t["ahead"]) for t in tokens),
                }
            )
        columns = ["channel", "blocked (aligning)", "barriers", "records ahead"]
        return pd.DataFrame(rows, columns=columns)

    def subtask_metrics(self) -> Any:
        """Per subtask, what Flink's web UI shows (a DataFrame): numRecordsIn/Out, the current
        input watermark, buffer usage and back pressure (ratio and OK/LOW/HIGH level)."""
        import pandas as pd

        columns = [
            "subtask",
            "numRecordsIn",
            "numRecordsOut",
            "watermark",
            "inPoolUsage",
            "outPoolUsage",
            "backPressureRatio",
            "backPressureLevel",
        ]
        rows = [
            {"subtask": m["name"], **{c: m[c] for c in columns[1:]}}
            for m in self._current_metrics().get("subtasks", {}).values()
        ]
        return pd.DataFrame(rows, columns=columns)

    def _current_metrics(self) -> dict[str, Any]:
        """The strips' values of the current step: sent while shown, else computed now."""
        if self.show_metrics or self.run is None:
            return self.metrics
        return vm.run_metrics(self.run)

    def channel_metrics(self) -> Any:
        """Per input channel (producer → consumer, a DataFrame): buffers queued / exclusive
        buffers, the producer's backlog and the watermark the channel's valve holds."""
        import pandas as pd

        columns = ["channel", "buffers", "full", "backlog", "watermark"]
        rows = [
            {
                "channel": self.edge_names.get(edge, edge),
                "buffers": f"{c['queued']}/{c['capacity']}",
                "full": c["full"],
                "backlog": c["backlog"],
                "watermark": c["watermark"],
            }
            for edge, c in sorted(self._current_metrics().get("channels", {}).items())
        ]
        return pd.DataFrame(rows, columns=columns)

    def sequence_diagram(self, last: int | None = None) -> Any:
        """The run's sequence diagram as a static SVG object (all arrows, or the ``last`` ones)."""
        from pyflowkit.render.sequence_model import SequenceDiagram

        self._need_run()
        self.sequence.update(self.run, self.seq_width or None)
        return SequenceDiagram(self.sequence.model, last)

    # -- browser sync -----------------------------------------------------------------------------
    def send_state(self, key: Any = None) -> None:
        """``Widget.send_state``, without the panes of hidden tabs (:data:`TAB_TRAITS`): they wait
        in ``_unsent`` until their tab opens. The full state (``key=None``) sends everything."""
        if key is None:
            self._unsent = set()
            return super().send_state(key)
        keys = [key] if isinstance(key, str) else list(key)
        shown = getattr(self, "tab", "sequence")
        hidden = {k for k in keys if TAB_TRAITS.get(k, shown) != shown}
        if hidden:
            self._unsent |= hidden
            keys = [k for k in keys if k not in hidden]
        if keys:
            super().send_state(keys)

    def _send_tab(self) -> None:
        """The tab just opened: send its pane's latest value (it may have changed while hidden)."""
        due = sorted(k for k in self._unsent if TAB_TRAITS[k] == self.tab)
        if due:
            self._unsent -= set(due)
            super().send_state(due)

    # -- browser messages -----------------------------------------------------------------------
    def _on_command(self, _widget: Any, content: dict[str, Any], _buffers: Any) -> None:
        """Buttons send ``{"cmd": ...}``; errors become the status line, never a traceback."""
        cmd = content.get("cmd")
        width = content.get("seq_width")
        if isinstance(width, int) and width > 0 and width != self.seq_width:
            # the sequence pane's width rides with the command: its state update may be held
            # back by ipywidgets' message throttle while the command arrives first
            self.seq_width = width
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
            elif cmd == "go_to":  # the step scrubber: a step number or a bookmark's name
                target = content.get("step")
                self.go_to(target if isinstance(target, str) else int(target))
            elif cmd == "bookmark":
                name = str(content.get("name") or f"{self.job_status} at step {self.step_count}")
                self.bookmark(name)
                self.message = f"bookmarked step {self.step_count} as {name!r}"
            else:
                self.message = f"unknown command {cmd!r}"
        except Exception as exc:
            self.message = f"{cmd}: {exc}"

    # -- static fallback ------------------------------------------------------------------------
    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        bundle = super()._repr_mimebundle_(**kwargs)
        data = bundle[0] if isinstance(bundle, tuple) else bundle
        data["image/svg+xml"] = static_svg(
            self.svg, self.states, self.edge_marks, self.colours, self.text_colours
        )
        status = self.job_status or "not submitted"
        data["text/plain"] = (
            f"Stepper({self.job_graph.job_name!r}: {status}, step {self.step_count})"
        )
        data["text/html"] = stepper_html(
            static_svg(self.svg, self.states, self.edge_marks, self.colours, self.text_colours),
            self.job_status,
            self.step_count,
            self.tasks,
            self.checkpoints,
        )
        return bundle
