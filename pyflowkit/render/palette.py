"""Colours readable by colour-blind viewers and on a projector (Okabe–Ito and Paul Tol hues,
darkened where they carry text on white). No Flink counterpart.
"""

from __future__ import annotations

from pyflowkit.render.states import EXECUTION_STATES

#: Arrow colours of the sequence diagram, one per kind of message (text ≥ 4.5:1 on white and on
#: the current step's yellow; widgets/themes.css has them for the dark and high-contrast themes).
SEQUENCE_COLOURS: dict[str, str] = {
    "call": "#000000",
    "self": "#4d4d4d",
    "state": "#332288",
    "checkpoint": "#005a8c",
    "barrier": "#993d8a",
    "ack": "#117733",
    "notify": "#8f4700",
    "failure": "#b02a0c",
}

#: ExecutionState/JobStatus colours for projectors and colour-blind viewers. Chosen by search (see
#: ``colour_vision``): every two ExecutionStates (and RESTARTING) differ by CIEDE2000 ≥ 10 for normal
#: vision and simulated protanopia, deuteranopia and tritanopia, and by ≥ 5 L* in greyscale; states
#: that follow each other (DEPLOYING → RUNNING, RUNNING → FAILED, DEPLOYING → FAILED…) by ≥ 13 L*.
#: Hue families keep their meaning: green RUNNING, blue FINISHED, dark red FAILED, greys for
#: CREATED/CANCELED. (Flink's dashboard map reuses blues and teals; FAILED and DEPLOYING used to be
#: the same orange on a projector.)
STATE_PALETTE: dict[str, str] = {
    "CREATED": "#fdf4f7",
    "SCHEDULED": "#f1ca6e",
    "DEPLOYING": "#ea7d20",
    "INITIALIZING": "#42cefa",
    "RUNNING": "#09884c",
    "FINISHED": "#434f97",
    "CANCELING": "#d09bbf",
    "CANCELLING": "#d09bbf",
    "CANCELED": "#666969",
    "FAILED": "#8f0d23",
    "FAILING": "#c4341a",
    "RECONCILING": "#63213c",
    "RESTARTING": "#251463",
    "SUSPENDED": "#b4b0a0",
}
#: The states drawn on the graph and the timeline: the palette's guarantees hold among these.
DISTINCT_STATES: tuple[str, ...] = (*EXECUTION_STATES, "RESTARTING")


def relative_luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb`` (0 black … 1 white)."""
    channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(c1: str, c2: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 … 21; text needs 4.5, lines 3)."""
    l1, l2 = sorted((relative_luminance(c1), relative_luminance(c2)), reverse=True)
    return (l1 + 0.05) / (l2 + 0.05)


def text_on(hex_colour: str) -> str:
    """Black or white text, whichever contrasts more with ``hex_colour`` (WCAG contrast ratio)."""
    lum = relative_luminance(hex_colour)
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#ffffff"


#: Text on each state's colour (black on light fills, white on dark ones; contrast ≥ 4.5:1).
STATE_TEXT: dict[str, str] = {state: text_on(colour) for state, colour in STATE_PALETTE.items()}
#: Channel marks on the graph: a barrier token and a channel blocked by alignment.
BARRIER_COLOUR = "#aa4499"
BLOCKED_COLOUR = "#000000"
#: Back-pressure levels as Flink's web UI colours them (OK green, LOW yellow, HIGH red), chosen to
#: differ in lightness by ≥ 20 L* (greyscale) and by CIEDE2000 ≥ 10 for every simulated dichromacy.
BACK_PRESSURE_COLOURS: dict[str, str] = {
    "OK": "#09884c",
    "LOW": "#f1ca6e",
    "HIGH": "#750b1c",
}
