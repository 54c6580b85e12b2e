"""Colours for Flink's ``ExecutionState``/``JobStatus`` values and the legend drawn under a graph.

Colours are the Flink web dashboard's ``COLOR_MAP`` (flink-runtime-web), all 6-digit hex.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from html import escape

from pyflowkit.render.dot import check_colour

#: Flink 1.11's ``ExecutionState`` constants in declaration order (+ 1.13's INITIALIZING).
EXECUTION_STATES: tuple[str, ...] = (
    "CREATED",
    "SCHEDULED",
    "DEPLOYING",
    "INITIALIZING",
    "RUNNING",
    "FINISHED",
    "CANCELING",
    "CANCELED",
    "FAILED",
    "RECONCILING",
)
#: ``JobStatus`` constants that are not also ExecutionState constants.
JOB_STATUS_ONLY: tuple[str, ...] = ("FAILING", "CANCELLING", "RESTARTING", "SUSPENDED")

STATE_COLOURS: dict[str, str] = {
    "CREATED": "#2f54eb",
    "SCHEDULED": "#722ed1",
    "DEPLOYING": "#13c2c2",
    "INITIALIZING": "#738df8",
    "RUNNING": "#52c41a",
    "FINISHED": "#1890ff",
    "CANCELING": "#faad14",
    "CANCELLING": "#faad14",
    "CANCELED": "#fa8c16",
    "FAILED": "#f5222d",
    "FAILING": "#ff7875",
    "RECONCILING": "#eb2f96",
    "RESTARTING": "#13c2c2",
    "SUSPENDED": "#8c8c8c",
}
STATE_FONT_COLOUR = "#ffffff"

for _colour in STATE_COLOURS.values():
    check_colour(_colour)


def state_name(state: object) -> str:
    """``ExecutionState.RUNNING``, ``"RUNNING"`` or ``"running"`` → ``"RUNNING"``."""
    name = state.name if isinstance(state, Enum) else str(state)
    name = name.upper()
    if name not in STATE_COLOURS:
        known = ", ".join((*EXECUTION_STATES, *JOB_STATUS_ONLY))
        raise ValueError(
            f"Unknown state {state!r}: expected an ExecutionState/JobStatus ({known})."
        )
    return name


def normalise_states(
    states: Mapping[str, object] | None, known_ids: set[str], graph_kind: str
) -> dict[str, str]:
    """Validate a ``{node_id: state}`` map against the ids the renderer will emit."""
    if not states:
        return {}
    unknown = sorted(set(states) - known_ids)
    if unknown:
        sample = ", ".join(sorted(known_ids)[:5])
        raise ValueError(
            f"states refers to ids that are not in this {graph_kind}: {', '.join(unknown)} "
            f"(ids look like: {sample})"
        )
    return {node_id: state_name(state) for node_id, state in states.items()}


def state_fill(state: str) -> dict[str, str]:
    """DOT attributes that paint a node or cluster in the colour of ``state``."""
    return {"fillcolor": STATE_COLOURS[state], "fontcolor": STATE_FONT_COLOUR}


VERTEX_FILL = "#f5f5f5"


def vertex_cluster(
    label: str, tooltip: str, css_class: str, state: str | None
) -> dict[str, object | None]:
    """Attributes of a vertex's cluster (JobVertex or ExecutionJobVertex), coloured by ``state``."""
    cluster: dict[str, object | None] = {
        "label": label,
        "tooltip": tooltip,
        "style": "rounded,filled",
        "fillcolor": VERTEX_FILL,
        "color": "#8c8c8c",
        "labeljust": "l",
        "labelloc": "t",
        "fontsize": "11",
    }
    classes = [css_class]
    if state is not None:
        cluster.update(state_fill(state))
        classes.append(f"state-{state}")
    cluster["class"] = " ".join(classes)
    return cluster


def legend_label(used: set[str]) -> str:
    """An HTML-like label: every ExecutionState (fixed order, so layouts stay put) + extras."""
    names = list(EXECUTION_STATES) + sorted(used - set(EXECUTION_STATES))
    cells = "".join(
        f'<td id="legend_{name}" bgcolor="{STATE_COLOURS[name]}">'
        f'<font color="{STATE_FONT_COLOUR}">{escape(name)}</font></td>'
        for name in names
    )
    table = '<table border="0" cellborder="0" cellspacing="2" cellpadding="3">'
    return f"<{table}<tr>{cells}</tr></table>>"


def legend_graph_attrs(states: dict[str, str]) -> str:
    """Graph attributes adding the legend under the drawing, or nothing without states."""
    if not states:
        return ""
    return f" label={legend_label(set(states.values()))}; labelloc=b; labeljust=l;"
