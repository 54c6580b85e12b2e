"""A GraphView on its own (notebook 04's ``GraphView(stepper.job_graph)``, issue #23): its frame is
as tall as its drawing, and a drawing wider than the frame at 14 px text scrolls sideways instead
of being cut at the right edge above an empty frame. Rendered by the widget's own JavaScript in
headless Chromium at 1280 x 800 (the frame 1,100 px wide, as in Lab); screenshot in build/."""

from __future__ import annotations

import json
import tempfile

import pytest

from pyflowkit.notebook.assets import THEMED_STYLES, widget_file, widget_styles
from pyflowkit.notebook.graph_view import GraphView
from tests.browser.conftest import SHOTS, open_page
from tests.notebook.test_widgets import checkpointed_env

pytestmark = [pytest.mark.browser]

PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>{css}</style></head>
<body style="margin:0"><div id="out" style="width:1100px;margin:40px 0 0 126px"></div>
<script type="module">
import widget from "./pyflowkit.js";
const state = {state};
const model = {{get: (k) => state[k], set: (k, v) => (state[k] = v), save_changes() {{}},
  on() {{}}, off() {{}}, send() {{}}}};
widget.render({{model, el: document.getElementById("out")}});
</script></body></html>"""

#: The frame, the drawing in it, and whether its right edge can be scrolled into view.
FRAME = """() => {
  const frame = document.querySelector(".pfk-graph-view .pfk-graph-frame");
  const svg = frame.querySelector("svg");
  const text = Math.min(...[...svg.querySelectorAll("text")].map(t => t.getBoundingClientRect().height));
  return {frameH: frame.clientHeight, frameW: frame.clientWidth, scrollW: frame.scrollWidth,
          svgW: svg.getBoundingClientRect().width, svgH: svg.getBoundingClientRect().height,
          overflowX: getComputedStyle(frame).overflowX, text};
}"""


def test_a_wide_job_graph_scrolls_sideways_in_a_frame_as_tall_as_the_drawing():
    from playwright.sync_api import sync_playwright

    from pyflowkit.notebook.stepper import Stepper

    view = GraphView(Stepper(checkpointed_env(), seed=3).job_graph)
    keys = ("_kind", "svg", "states", "colours", "text_colours", "edge_marks", "selected", "legend")
    state = json.dumps({k: getattr(view, k) for k in keys})
    files = {
        "index.html": PAGE.format(css=widget_styles(*THEMED_STYLES), state=state),
        "pyflowkit.js": widget_file("pyflowkit.js").read_text(encoding="utf-8"),
    }
    with sync_playwright() as p, tempfile.TemporaryDirectory() as udd:
        ctx, page = open_page(p, udd, 1280, 800)
        try:
            page.route(
                "http://pfk.test/**",
                lambda route: route.fulfill(
                    body=files[route.request.url.rsplit("/", 1)[1]],
                    content_type="text/html"
                    if route.request.url.endswith(".html")
                    else "text/javascript",
                ),
            )
            page.goto("http://pfk.test/index.html")
            page.wait_for_function(
                "() => { const s = document.querySelector('.pfk-graph-frame svg');"
                " return s && parseFloat(s.style.width) > 0; }"
            )
            page.wait_for_timeout(300)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "graph_view_04_1280x800.png"))
            box = page.evaluate(FRAME)
            assert page.pfk_errors == []
        finally:
            ctx.close()
    assert box["text"] >= 13.5, box  # never under 14 px text (glyph boxes round down a little)
    assert box["svgW"] > box["frameW"], box  # this JobGraph is wider than the frame at 14 px
    assert box["overflowX"] in ("auto", "scroll") and box["scrollW"] >= box["svgW"] - 1, box
    # no empty frame below the drawing: only the room of the sideways scrollbar (16 px) + 4 px
    assert box["frameH"] <= box["svgH"] + 24, box
    assert box["frameH"] >= box["svgH"], box  # and the drawing's bottom row is not cut
