"""``SequenceView``: the cluster's messages as a sequence diagram, in a widget of its own.

No Flink counterpart. ``SequencePane`` keeps the ``SequenceModel`` of one run up to date (only the
new trace events are read per step) and renders the header and the last arrows as SVG;
``SequenceView`` shows it for a ``JobRun`` or follows a ``Stepper`` step by step.
"""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets as t

from pyflowkit.notebook.assets import THEMED_STYLES, widget_file, widget_styles
from pyflowkit.render.sequence_model import SequenceModel, channel_producers_of
from pyflowkit.render.sequence_svg import (
    COLUMN,
    LEFT,
    MIN_COLUMN,
    body_svg,
    column_for,
    header_svg,
)

#: Arrows kept in the widget (scroll back over them); the static render can show all.
SEQUENCE_WINDOW = 60


#: Lifelines always drawn first, on the left: who submitted the job and who received it.
PINNED = ("client", "Dispatcher")


class SequencePane:
    """The sequence diagram of the run being stepped, updated incrementally.

    With a ``width`` (px of the browser's pane), the pane is in *focus mode*: it draws only the
    lifelines of the newest arrows (client and Dispatcher pinned left), as many arrows as fit that
    width at ``MIN_COLUMN`` px per lifeline, the columns widened to fill it. It never needs to
    scroll sideways; the lifelines change only when an arrow reaches one not drawn (a new phase:
    scheduling, deployment, a checkpoint, a failover).
    """

    def __init__(self, execution_graph: Any = None, window: int = SEQUENCE_WINDOW) -> None:
        self.producers = channel_producers_of(execution_graph) if execution_graph else {}
        self.window = window
        self.model: SequenceModel | None = None
        self._run: Any = None
        self._rows: dict[int, str] = {}
        self._layout: Any = None
        self._head = ""
        self._focus: list[str] = []
        self._width: int | None = None
        #: The lifelines and column of the last update (for tests and the static export).
        self.lifelines: list[dict[str, Any]] = []
        self.column = COLUMN

    def update(
        self, run: Any, width: int | None = None, collapsed: Any = (), compact: bool = False
    ) -> tuple[str, str]:
        """(header SVG, body SVG) after the run's newest events; each phase's run of arrows under
        a band header, the bands in ``collapsed`` (``SequenceModel.bands`` keys) one row only,
        except the current step's; ``compact``: the short header of large font scales
        (``header_svg``)."""
        trace = run.trace
        model = self.model
        if model is None or run is not self._run or len(trace) < model.events_seen:
            task_executors = len(getattr(run, "task_executors", ()) or ())
            model = self.model = SequenceModel(task_executors, self.producers)
            self._run = run
            self._rows, self._layout, self._focus = {}, None, []
        model.add(trace[model.events_seen :])
        every = [line.to_dict() for line in model.lifelines]
        messages = model.messages[-self.window :]
        if width:
            if width != self._width:  # a new width (or font scale): the focus fits it anew
                self._width, self._focus = width, []
            lifelines, messages = self._focused(every, messages, width)
            column = column_for(width, len(lifelines))
        else:
            lifelines, column = every, COLUMN
        layout = (tuple(line["id"] for line in lifelines), column, compact)
        if layout[:2] != (self._layout or (None, None))[:2]:  # columns moved: redraw every row
            self._rows = {}
        if layout != self._layout:
            self._layout = layout
            self._head = header_svg(lifelines, column, compact)
        self.lifelines, self.column = lifelines, column
        body = body_svg(
            lifelines,
            messages,
            run.steps_taken,
            self._rows,
            column,
            bands=model.bands,
            collapsed=frozenset(int(k) for k in collapsed),
        )
        return self._head, body

    def _focused(
        self, every: list[dict[str, Any]], messages: list[dict[str, Any]], width: int
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The lifelines in focus and the newest arrows drawn on them only."""
        fits = max(len(PINNED) + 2, (width - LEFT) // MIN_COLUMN)
        known = {line["id"] for line in every}
        pinned = [p for p in PINNED if p in known]
        newest = messages[-1] if messages else None
        focus = set(self._focus)
        if newest is None or not {newest["from"], newest["to"]} <= focus:
            focus = set(pinned)  # a new phase: as many of the newest arrows as fit
            for m in reversed(messages):
                more = focus | {m["from"], m["to"]}
                if len(more) > fits:
                    break
                focus = more
        self._focus = [line["id"] for line in every if line["id"] in focus]
        shown: list[dict[str, Any]] = []
        for m in reversed(messages):  # the newest arrows on the focused lifelines, no gap
            if m["from"] not in focus or m["to"] not in focus:
                break
            shown.append(m)
        return [line for line in every if line["id"] in focus], shown[::-1]


class SequenceView(anywidget.AnyWidget):
    """A sequence diagram of a ``JobRun``, or of the run a ``Stepper`` steps (follows it)."""

    _esm = widget_file("sequence.js")
    _css = widget_styles(*THEMED_STYLES)
    _kind = t.Unicode("sequence").tag(sync=True)

    seq_head = t.Unicode("").tag(sync=True)
    seq_body = t.Unicode("").tag(sync=True)
    step_count = t.Int(0).tag(sync=True)
    #: The browser pane's width in px (0: unknown, draw every lifeline at full width).
    seq_width = t.Int(0).tag(sync=True)
    #: The phase bands collapsed to one row (their first arrow's index), set by a click.
    seq_collapsed = t.List(t.Int()).tag(sync=True)

    def __init__(self, source: Any, window: int = SEQUENCE_WINDOW) -> None:
        super().__init__()
        stepper = source if hasattr(source, "controller") else None
        job_graph = stepper.job_graph if stepper is not None else getattr(source, "job_graph", None)
        graph = job_graph.to_execution_graph() if job_graph is not None else None
        self.pane = SequencePane(graph, window)
        self.source = source
        if stepper is not None:
            stepper.observe(lambda _: self.refresh(), names=["step_count", "submitted"])
        self.observe(lambda _: self.refresh(), names=["seq_width", "seq_collapsed"])
        self.refresh()

    @property
    def run(self) -> Any:
        return self.source.run if hasattr(self.source, "controller") else self.source

    def refresh(self) -> None:
        """Redraw from the run's trace (only new events are read)."""
        run = self.run
        if run is None:
            return
        head, body = self.pane.update(run, self.seq_width or None, self.seq_collapsed)
        with self.hold_sync():
            self.seq_head, self.seq_body, self.step_count = head, body, run.steps_taken
