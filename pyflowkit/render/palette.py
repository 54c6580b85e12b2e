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
