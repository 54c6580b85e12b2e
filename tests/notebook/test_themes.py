"""The Stepper's themes (issue #23): light, dark and high-contrast, their colours read from
widgets/themes.css. Every text colour contrasts ≥ 4.5:1 (WCAG AA) with each background it is drawn
on, lines and outlines ≥ 3:1 (WCAG 1.4.11); the state colours keep their own text colours."""

from __future__ import annotations

import re

import pytest

from pyflowkit.notebook.assets import widget_file
from pyflowkit.render.palette import DISTINCT_STATES, STATE_PALETTE, STATE_TEXT, contrast

THEMES = ("light", "dark", "high-contrast")
SEQ_KINDS = ("call", "self", "state", "checkpoint", "barrier", "ack", "notify", "failure")
#: (text colour, the backgrounds it is drawn on) per theme variable.
TEXT_ON = {
    "fg": ("bg", "panel", "band", "box", "box-task", "group", "current", "hover"),
    "fg2": ("bg", "panel"),
    "accent": ("bg", "panel"),
    "ok": ("bg",),
    "bad": ("bg",),
    "barrier": ("bg",),
    "stepno": ("bg", "current"),
    "tab-on-fg": ("tab-on-bg",),
    **{f"seq-{kind}": ("bg", "current") for kind in SEQ_KINDS},
}
#: Lines and outlines (non-text) against the background.
LINES = ("line", "node-line", "select", "edge")


def theme_colours() -> dict[str, dict[str, str]]:
    """``{theme: {variable: #rrggbb}}`` from the theme blocks of themes.css."""
    css = widget_file("themes.css").read_text()
    out = {}
    for theme in THEMES:
        block = re.search(r"\.pfk-widget\.pfk-theme-" + re.escape(theme) + r"\s*\{([^}]*)\}", css)
        assert block, theme
        out[theme] = dict(re.findall(r"--pfk-([\w-]+):\s*(#[0-9a-fA-F]{6})", block.group(1)))
    return out


COLOURS = theme_colours()


def test_every_theme_defines_the_same_colours():
    names = {theme: set(values) for theme, values in COLOURS.items()}
    assert names["dark"] == names["light"] == names["high-contrast"]
    assert {"bg", "fg", "current", *(f"seq-{k}" for k in SEQ_KINDS)} <= names["light"]


@pytest.mark.parametrize("theme", THEMES)
def test_every_text_colour_contrasts_with_its_backgrounds(theme):
    c = COLOURS[theme]
    low = [
        (text, back, round(contrast(c[text], c[back]), 2))
        for text, backs in TEXT_ON.items()
        for back in backs
        if contrast(c[text], c[back]) < 4.5
    ]
    assert low == [], f"{theme}: {low}"
    lines = [(line, round(contrast(c[line], c["bg"]), 2)) for line in LINES]
    assert all(ratio >= 3 for _, ratio in lines), f"{theme}: {lines}"


@pytest.mark.parametrize("theme", THEMES)
def test_state_colours_stay_readable_and_outlined_in_every_theme(theme):
    c = COLOURS[theme]
    for state in DISTINCT_STATES:
        fill = STATE_PALETTE[state]
        assert contrast(STATE_TEXT[state], fill) >= 4.5, state
        # a fill close to the background still shows its box: its outline or its fill contrasts
        outline = max(contrast(c["node-line"], fill), contrast(fill, c["bg"]))
        assert outline >= 3, (theme, state, outline)


def test_the_light_theme_draws_the_exported_diagrams_colours():
    from pyflowkit.render.palette import SEQUENCE_COLOURS

    assert {k: COLOURS["light"][f"seq-{k}"] for k in SEQ_KINDS} == SEQUENCE_COLOURS


def test_dark_themes_are_dark_and_the_light_theme_is_light():
    from pyflowkit.render.palette import relative_luminance

    assert relative_luminance(COLOURS["light"]["bg"]) > 0.9
    assert relative_luminance(COLOURS["dark"]["bg"]) < 0.02
    assert COLOURS["high-contrast"]["bg"] == "#000000"
    assert contrast(COLOURS["high-contrast"]["fg"], COLOURS["high-contrast"]["bg"]) >= 15
