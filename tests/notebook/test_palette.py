"""The Stepper's state palette: every ExecutionState (and RESTARTING) tells apart for normal vision,
simulated protanopia, deuteranopia and tritanopia, and in greyscale; text on each fill is readable."""

from __future__ import annotations

import itertools

import pytest

from pyflowkit.render.colour_vision import VISIONS, delta_e, difference, lab_of, lightness
from pyflowkit.render.palette import DISTINCT_STATES, STATE_PALETTE, STATE_TEXT

#: States a class sees one after the other (or one instead of the other) on the same subtask.
NEIGHBOURS = [
    ("CREATED", "SCHEDULED"),
    ("SCHEDULED", "DEPLOYING"),
    ("DEPLOYING", "RUNNING"),
    ("RUNNING", "FINISHED"),
    ("RUNNING", "FAILED"),
    ("DEPLOYING", "FAILED"),
    ("RUNNING", "CANCELING"),
    ("CANCELING", "CANCELED"),
    ("FAILED", "CANCELED"),
    ("RUNNING", "RESTARTING"),
    ("FAILED", "RESTARTING"),
]


def test_ciede2000_matches_sharmas_reference_pairs():
    # Sharma, Wu and Dalal (2005), test data pairs 1, 7 and 17
    assert delta_e((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert delta_e((50, 0, 0), (50, -1, 2)) == pytest.approx(2.3669, abs=1e-4)
    assert delta_e((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)


def test_simulated_deuteranopia_confuses_red_and_green():
    # a sanity check of the simulation: pure red and a matched green collapse for a deuteranope
    assert difference("#d55e00", "#e69f00") > 15
    assert difference("#ff0000", "#7a7a00", "deuteranopia") < difference("#ff0000", "#7a7a00")


@pytest.mark.parametrize("vision", VISIONS)
def test_every_two_states_differ_for_each_vision(vision):
    worst = min(
        (difference(STATE_PALETTE[a], STATE_PALETTE[b], vision), a, b)
        for a, b in itertools.combinations(DISTINCT_STATES, 2)
    )
    assert worst[0] >= 10, f"{vision}: {worst}"


def test_every_two_states_differ_in_greyscale():
    light = {s: lightness(STATE_PALETTE[s]) for s in DISTINCT_STATES}
    worst = min((abs(light[a] - light[b]), a, b) for a, b in itertools.combinations(light, 2))
    assert worst[0] >= 5, worst
    for a, b in NEIGHBOURS:
        assert abs(light[a] - light[b]) >= 13, (a, b, light[a], light[b])
    # the example: FAILED and DEPLOYING were the same orange on a projector
    assert abs(light["FAILED"] - light["DEPLOYING"]) >= 30


def test_job_status_only_colours_differ_from_every_state():
    for extra in ("FAILING", "SUSPENDED"):
        for state in DISTINCT_STATES:
            worst = min(difference(STATE_PALETTE[extra], STATE_PALETTE[state], v) for v in VISIONS)
            assert worst >= 7, (extra, state, worst)
    assert STATE_PALETTE["CANCELLING"] == STATE_PALETTE["CANCELING"]  # JobStatus spelling


def _contrast(c1: str, c2: str) -> float:
    def lum(c: str) -> float:
        ch = [int(c[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in ch]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    a, b = sorted([lum(c1), lum(c2)])
    return (b + 0.05) / (a + 0.05)


def test_text_on_every_fill_has_contrast():
    for state, fill in STATE_PALETTE.items():
        assert _contrast(fill, STATE_TEXT[state]) >= 4.5, state
    assert lab_of("#ffffff")[0] == pytest.approx(100, abs=0.01)
