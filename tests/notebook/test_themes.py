"""The widgets' themes (issue #23): light, dark and high-contrast, their colours read from
widgets/theme_colours.css. Every text colour contrasts ≥ 4.5:1 (WCAG AA) with each background it is
drawn on, lines and outlines ≥ 3:1 (WCAG 1.4.11); the state colours keep their own text colours.
Every rule that colours text uses one of those checked colours; no widget keeps a hard-coded white
or black background; every widget and static drawing follows the front end's theme."""

from __future__ import annotations

import re

import pytest

from pyflowkit.notebook.assets import widget_file
from pyflowkit.render.palette import DISTINCT_STATES, STATE_PALETTE, STATE_TEXT, contrast

THEMES = ("light", "dark", "high-contrast")
SEQ_KINDS = ("call", "self", "state", "checkpoint", "barrier", "ack", "notify", "failure")
#: (text colour, the backgrounds it is drawn on) per theme variable.
TEXT_ON = {
    "fg": ("bg", "panel", "band", "box", "box-task", "group", "current", "hover", "alert"),
    "fg2": ("bg", "panel"),
    "accent": ("bg", "panel"),
    "ok": ("bg",),
    "bad": ("bg",),
    "barrier": ("bg",),
    "stepno": ("bg", "current"),
    "tab-on-fg": ("tab-on-bg",),
    **{f"seq-{kind}": ("bg", "current") for kind in SEQ_KINDS},
    # a %%pipeline cell's added edges (their labels on the graph); the timeline's markers
    "added": ("bg",),
    **{f"mark-{kind}": ("bg",) for kind in ("completed", "failed", "restored")},
}
#: The style sheets whose rules colour text with the themes' variables.
RULE_SHEETS = ("widgets.css", "theme_drawings.css", "themes.css", "streaming.css")
#: Lines and outlines (non-text) against the background.
LINES = ("line", "node-line", "select", "edge")


def theme_colours() -> dict[str, dict[str, str]]:
    """``{theme: {variable: #rrggbb}}`` from the theme blocks of theme_colours.css."""
    css = widget_file("theme_colours.css").read_text()
    out = {}
    for theme in THEMES:
        pattern = r"^\.pfk-theme-" + re.escape(theme) + r",[^{]*\{([^}]*)\}"
        block = re.search(pattern, css, re.M)
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


def css_rules(name: str) -> list[tuple[str, str]]:
    """``[(selector, declarations)]`` of a style sheet (comments dropped)."""
    css = re.sub(r"/\*.*?\*/", "", widget_file(name).read_text(), flags=re.S)
    return [(sel.strip(), body) for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css)]


#: The last part of a selector that fills text (SVG ``fill`` is the text's colour there).
TEXT_TARGET = re.compile(r"^text\b|\.pfk-[\w-]*(text|tick|label|state|name|stepno|legend-[\w-]+)$")


def fills_text(selectors: str) -> bool:
    return any(TEXT_TARGET.search(s.split()[-1]) for s in selectors.split(",") if s.strip())


def test_every_rule_colours_text_with_a_checked_colour():
    """A text colour taken from a theme is one whose contrast the test above computes."""
    used = set()
    for sheet in RULE_SHEETS:
        for selector, body in css_rules(sheet):
            for prop, var in re.findall(r"(?<![\w-])(color|fill):\s*var\(--pfk-([\w-]+)", body):
                if prop == "color" or fills_text(selector):
                    used.add(var)
                    assert var in TEXT_ON, (sheet, selector, prop, var)
    assert {"fg", "fg2", "added", "mark-failed", "seq-call"} <= used


WHITE_OR_BLACK = re.compile(
    r"(?<![\w-])(background(?:-color)?|fill)\s*:\s*"
    r"(#fff\b|#ffffff\b|white\b|#000\b|#000000\b|black\b|rgba?\(\s*(?:255\s*,\s*255\s*,\s*255|0\s*,\s*0\s*,\s*0))",
    re.I,
)
#: Where a white or black fill is a chip's own text colour (on a state or barrier colour).
CHIP_TEXT = ("g.pfk-token text", "g.pfk-badge-svg text")


@pytest.mark.parametrize(
    "name", ["widgets.css", "theme_drawings.css", "themes.css", "streaming.css"]
)
def test_no_hard_coded_white_or_black_background_in_the_style_sheets(name):
    found = [
        (selector, m.group(0))
        for selector, body in css_rules(name)
        for m in WHITE_OR_BLACK.finditer(body)
        if not selector.endswith(CHIP_TEXT)
    ]
    assert found == [], found


@pytest.mark.parametrize(
    "name", ["pyflowkit.js", "sequence.js", "lecture_tools.js", "streaming.js"]
)
def test_no_hard_coded_white_or_black_background_in_the_scripts(name):
    js = widget_file(name).read_text()
    found = re.findall(
        r"\.(?:background(?:Color)?|fill)\s*=\s*[^;]*?[\"'](?:#fff(?:fff)?|white|#000(?:000)?|black)[\"']",
        js,
        re.I,
    )
    assert found == [], found


def test_every_widget_loads_the_themes_and_follows_the_front_end():
    from pyflowkit.notebook.graph_view import GraphView
    from pyflowkit.notebook.sequence_view import SequenceView
    from pyflowkit.notebook.spark_progress import SparkProgressView
    from pyflowkit.notebook.stepper import Stepper
    from pyflowkit.notebook.streaming_view import StreamingJobView

    colours = widget_file("theme_colours.css").read_text()
    for widget in (GraphView, SequenceView, SparkProgressView, Stepper, StreamingJobView):
        assert colours in str(widget._css), widget.__name__
    # every view but the Stepper (its `theme` trait) is marked to follow the front end by CSS
    assert '"pfk-themed", "pfk-auto"' in widget_file("pyflowkit.js").read_text()
    assert '"pfk-themed", "pfk-auto"' in widget_file("sequence.js").read_text()
    assert "pfk-stream pfk-themed pfk-auto" in widget_file("streaming.js").read_text()


def test_auto_follows_jupyterlab_and_notebook_7_by_their_body_attributes():
    """The blocks apply to pfk-auto under the front end's <body> marks: dark when
    data-jp-theme-light is "false", high contrast when the theme's name says so (JupyterLab Dark
    High Contrast is dark too: its block comes last and wins)."""
    css = widget_file("theme_colours.css").read_text()
    heads = re.findall(r"^(\.pfk-theme-[\w-]+,[^{]*)\{", css, re.M)
    assert [" ".join(h.split()) for h in heads] == [
        ".pfk-theme-light, .pfk-auto",
        '.pfk-theme-dark, body[data-jp-theme-light="false"] .pfk-auto',
        '.pfk-theme-high-contrast, body[data-jp-theme-name*="high contrast" i] .pfk-auto',
    ]


def test_the_timeline_and_sequence_svgs_light_colours_are_all_themed():
    """Every element the timeline and the sequence diagram draw in a fixed light colour (white
    ground, grey lines, dark text, marker colours) carries a class the theme rules recolour, or
    lies in a group or arrowhead marker they recolour."""
    import xml.etree.ElementTree as ET

    from pyflowkit.render.sequence_svg import sequence_svg
    from pyflowkit.render.timeline_svg import timeline_svg
    from tests.render.test_sequence_diagram import golden_model

    rows = [
        (
            "job",
            "JobStatus",
            [(0, "CREATED"), (5, "RUNNING"), (900, "RESTARTING"), (1900, "RUNNING")],
        ),
        ("a", "Map (1/2)", [(0, "CREATED"), (10, "RUNNING"), (800, "FAILED"), (1950, "RUNNING")]),
    ]
    markers = [(300, "completed", "1"), (700, "failed", "2"), (1950, "restored", "1")]
    rules = widget_file("theme_drawings.css").read_text()
    themed = {
        c for sel, _ in css_rules("theme_drawings.css") for c in re.findall(r"\.(pfk-[\w-]+)", sel)
    }
    svgs = {
        "timeline": timeline_svg(rows, 2000, 900, markers=markers),
        "sequence": sequence_svg(golden_model().to_dict(), highlight_step=40),
    }
    unthemed = []

    def walk(node: ET.Element, outer: set[str]) -> None:
        tag = node.tag.split("}")[-1]
        mine = set(node.get("class", "").split())
        if tag == "marker" and f'marker[id="{node.get("id")}"]' in rules:
            mine.add("pfk-themed-marker")
        state = node.get("data-state") is not None or "pfk-tl-legend-item" in outer
        coloured = tag == "text" or any(
            node.get(a, "none") not in ("none", "") for a in ("fill", "stroke")
        )
        if tag in ("rect", "line", "path", "text") and coloured and not state:
            if not (mine | outer) & (themed | {"pfk-themed-marker"}):
                unthemed.append(ET.tostring(node, encoding="unicode")[:120])
        for child in node:
            walk(child, outer | mine)

    for name, svg in svgs.items():
        walk(ET.fromstring(svg), set())
        assert unthemed == [], (name, unthemed[:5])


def test_static_drawings_follow_the_notebooks_theme():
    """%%pipeline / %pipeline show, display(graph) and sequence_diagram(): the SVG inline in a
    pfk-auto box with the theme sheets beside it; the export (image/svg+xml) stays light."""
    from pyflowkit.notebook.pipeline_view import PipelineView
    from pyflowkit.render.sequence_model import SequenceDiagram, SequenceModel
    from pyflowkit.render.themed_html import theme_style
    from tests.notebook.test_widgets import word_count_env

    graph = word_count_env().get_job_graph()
    outputs = {
        "display(graph)": graph._repr_mimebundle_()["text/html"],
        "%pipeline show": PipelineView(graph, "job")._repr_mimebundle_()["text/html"],
        "sequence_diagram": SequenceDiagram(SequenceModel(1, {}))._repr_html_(),
    }
    style = theme_style()
    assert "--pfk-bg" in style and ".pfk-tl-bg" in style and "/*" not in style
    for what, html in outputs.items():
        assert html.startswith(style), what
        assert '<div class="pfk-static pfk-themed pfk-auto"' in html, what
        assert "<svg" in html and "<?xml" not in html, what
    assert 'class="pfk-graph-canvas"' in outputs["display(graph)"]
    assert "pfk-static" not in graph._repr_mimebundle_()["image/svg+xml"]


def test_the_streaming_views_status_chips_keep_readable_colours_in_every_theme():
    """The status badges and the Stop button carry their own fill and text colour (the same in
    every theme): each text ≥ 4.5:1 on its fill."""
    pairs = []
    for selector, body in css_rules("streaming.css"):
        back = re.search(r"background:\s*(#[0-9a-fA-F]{6})", body)
        text = re.search(r"(?<![\w-])color:\s*(#[0-9a-fA-F]{6})", body)
        if back and text:
            pairs.append((selector, contrast(text.group(1), back.group(1))))
    assert len(pairs) >= 5, pairs  # RUNNING, FINISHED, CANCELED, FAILED, Stop
    assert all(ratio >= 4.5 for _, ratio in pairs), pairs
