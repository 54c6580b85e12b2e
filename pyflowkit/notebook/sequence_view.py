"""``SequenceView``: the cluster's messages as a sequence diagram, in a widget of its own.

No Flink counterpart. ``SequencePane`` keeps the ``SequenceModel`` of one run up to date (only the
new trace events are read per step) and renders the header and the last arrows as SVG;
``SequenceView`` shows it for a ``JobRun`` or follows a ``Stepper`` step by step.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook.assets import widget_file
from pyflowkit.render.sequence_model import SequenceModel, channel_producers_of
from pyflowkit.render.sequence_svg import body_svg, header_svg

#: Arrows kept in the widget (scroll back over them); the static render can show all.
SEQUENCE_WINDOW = 60


class SequencePane:
    """The sequence diagram of the run being stepped, updated incrementally."""

    def __init__(self, execution_graph: Any = None, window: int = SEQUENCE_WINDOW) -> None:
        self.producers = channel_producers_of(execution_graph) if execution_graph else {}
        self.window = window
        self.model: SequenceModel | None = None
        self._run: Any = None
        self._rows: dict[int, str] = {}
        self._lifelines_seen = 0
        self._head = ""

    def update(self, run: Any) -> tuple[str, str]:
        """(header SVG, body SVG) after the run's newest events."""
        trace = run.trace
        model = self.model
        if model is None or run is not self._run or len(trace) < model.events_seen:
            task_executors = len(getattr(run, "task_executors", ()) or ())
            model = self.model = SequenceModel(task_executors, self.producers)
            self._run = run
            self._rows, self._lifelines_seen = {}, -1
        model.add(trace[model.events_seen :])
        if len(model.lifelines) != self._lifelines_seen:  # columns moved: redraw every row
            self._lifelines_seen = len(model.lifelines)
            self._rows = {}
            self._head = header_svg([line.to_dict() for line in model.lifelines])
        lifelines = [line.to_dict() for line in model.lifelines]
        body = body_svg(lifelines, model.messages[-self.window :], run.steps_taken, self._rows)
        return self._head, body


class SequenceView(anywidget.AnyWidget):
    """A sequence diagram of a ``JobRun``, or of the run a ``Stepper`` steps (follows it)."""

    _esm = widget_file("sequence.js")
    _css = widget_file("widgets.css")
    _kind = t.Unicode("sequence").tag(sync=True)

    seq_head = t.Unicode("").tag(sync=True)
    seq_body = t.Unicode("").tag(sync=True)
    step_count = t.Int(0).tag(sync=True)

    def __init__(self, source: Any, window: int = SEQUENCE_WINDOW) -> None:
        super().__init__()
        stepper = source if hasattr(source, "controller") else None
        job_graph = stepper.job_graph if stepper is not None else getattr(source, "job_graph", None)
        graph = job_graph.to_execution_graph() if job_graph is not None else None
        self.pane = SequencePane(graph, window)
        self.source = source
        if stepper is not None:
            stepper.observe(lambda _: self.refresh(), names=["step_count", "submitted"])
        self.refresh()

    @property
    def run(self) -> Any:
        return self.source.run if hasattr(self.source, "controller") else self.source

    def refresh(self) -> None:
        """Redraw from the run's trace (only new events are read)."""
        run = self.run
        if run is None:
            return
        head, body = self.pane.update(run)
        with self.hold_sync():
            self.seq_head, self.seq_body, self.step_count = head, body, run.steps_taken
