"""Colours readable by colour-blind viewers and on a projector (Okabe–Ito and Paul Tol hues,
darkened where they carry text on white). No Flink counterpart.
"""

from __future__ import annotations

#: Arrow colours of the sequence diagram, one per kind of message.
SEQUENCE_COLOURS: dict[str, str] = {
    "call": "#000000",
    "self": "#4d4d4d",
    "state": "#332288",
    "checkpoint": "#0072b2",
    "barrier": "#aa4499",
    "ack": "#117733",
    "notify": "#b35900",
    "failure": "#cc3311",
}

#: ExecutionState/JobStatus colours for projectors and colour-blind viewers: Okabe–Ito hues plus
#: greys, no two states alike in hue or lightness (Flink's dashboard map reuses blues and teals).
STATE_PALETTE: dict[str, str] = {
    "CREATED": "#d9d9d9",
    "SCHEDULED": "#f0e442",
    "DEPLOYING": "#e69f00",
    "INITIALIZING": "#56b4e9",
    "RUNNING": "#009e73",
    "FINISHED": "#0072b2",
    "CANCELING": "#cc79a7",
    "CANCELLING": "#cc79a7",
    "CANCELED": "#595959",
    "FAILED": "#d55e00",
    "FAILING": "#a6361c",
    "RECONCILING": "#882255",
    "RESTARTING": "#332288",
    "SUSPENDED": "#999933",
}
#: Text on each state's colour (black on light fills, white on dark ones; contrast ≥ 4.5:1).
STATE_TEXT: dict[str, str] = {
    state: "#ffffff"
    if state in ("FINISHED", "CANCELED", "FAILING", "RECONCILING", "RESTARTING")
    else "#000000"
    for state in STATE_PALETTE
}
#: Channel marks on the graph: a barrier token and a channel blocked by alignment.
BARRIER_COLOUR = "#aa4499"
BLOCKED_COLOUR = "#000000"
