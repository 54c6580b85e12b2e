"""JupyterLab + Debian chromium + Playwright: notebook 03's Stepper at font scale 2 through its
first 14 steps, at 1920x1080 and 1280x800: the narration as tall as its text (no empty third line
where two hold it), and nothing of a row wholly under the pinned sequence header showing below it
(a row's arrowhead reaches a unit into the next row: it showed as a stray mark beside the first
``submitTask`` label)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.conftest import ARGS, CHROMIUM, SHOTS, TEXT_CUT
from tests.browser.test_classroom_notebooks import (
    Server,
    _click,
    _font_scale,
    _open,
    _ran,
    _run_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NB = "03_job_submission_step_by_step.ipynb"

#: The narration's box and its text's lines (24 px a line, times the CSS zoom of the font scale).
NARRATION = """
root => {
  const s = root.querySelector(".pfk-narration"), top = s.getBoundingClientRect().top;
  const spans = [...s.querySelectorAll("span")].filter((x) => x.textContent.trim());
  const line = 24 * (s.currentCSSZoom || 1);
  const text = Math.max(...spans.map((x) => x.getBoundingClientRect().bottom)) - top;
  return { box: s.getBoundingClientRect().height / line, text: text / line };
}
"""

#: What the sequence pane draws below its pinned header from rows wholly under it (visible ones).
UNDER_HEADER = r"""
root => {
  const head = root.querySelector(".pfk-seq-headbox").getBoundingClientRect().bottom;
  const svg = root.querySelector("svg.pfk-seq-body");
  const seen = [];
  for (const g of svg.children) {
    if (g.tagName !== "g" || g.getBoundingClientRect().top >= head - 1) continue;
    const y = g.transform.baseVal.getItem(0).matrix.f, rows = svg.getBoundingClientRect();
    const rowBottom = rows.top + ((y + 26) * rows.height) / svg.height.baseVal.value;
    if (rowBottom > head + 1) continue; // (a row partly in view)
    const scale = rows.height / svg.height.baseVal.value;
    for (const e of g.querySelectorAll("line, path, text, rect")) {
      // (an arrowhead is no part of its line's box: markerHeight × stroke-width about the end)
      const marker = e.getAttribute("marker-end") ? document.querySelector(
        e.getAttribute("marker-end").replace(/^url\((.*)\)$/, "$1")) : null;
      const width = parseFloat(e.getAttribute("stroke-width")) || 1;
      const half = marker ? (marker.markerHeight.baseVal.value * width) / 2 : 0;
      const bottom = e.getBoundingClientRect().bottom + half * scale;
      if (bottom > head + 0.5 && getComputedStyle(e).visibility !== "hidden")
        seen.push(`${e.tagName} ${e.textContent.slice(0, 30)} ${(bottom - head).toFixed(1)} px below`);
    }
  }
  return seen;
}
"""


@pytest.mark.parametrize(("width", "height"), [(1920, 1080), (1280, 800)], ids=str)
def test_font_scale_2_narration_and_pinned_header(lab, width, height):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)

    server = Server("lab", lab, Path("."))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        ctx, page = _open(browser, server, NB, width, height, f"fs2-{width}")
        _run_all(server, page, NB)
        _ran(page)
        page.locator(".pfk-stepper").last.evaluate("e => (e.dataset.pfkDriven = '1')")
        stepper = page.locator(".pfk-stepper[data-pfk-driven]")
        stepper.scroll_into_view_if_needed()
        stepper.locator("button.pfk-reset").click()
        page.wait_for_function(
            "() => document.querySelector('.pfk-stepper[data-pfk-driven] .pfk-step-no')"
            ".textContent === 'step 0'",
            timeout=30000,
        )
        stepper.locator("button.pfk-tab-sequence").click()
        _font_scale(page, stepper, 2.0)
        most = 0.0
        for step in range(1, 15):
            _click(page, stepper, "button.pfk-step")
            page.wait_for_timeout(150)
            seen = stepper.evaluate(NARRATION)
            most = max(most, seen["text"])
            # the box holds the most lines seen so far (never shrinking), no line more
            assert seen["text"] <= seen["box"] + 0.05, (step, seen)
            assert round(seen["box"]) == max(2, -(-most // 1)), (step, seen, most)
            assert stepper.evaluate(UNDER_HEADER) == [], step
            assert stepper.evaluate(TEXT_CUT) == [], step
            if step == 13:  # the first submitTask
                stepper.screenshot(path=str(SHOTS / f"font_scale_2_{width}_step13.png"))
        if width == 1920:  # every one of these sentences holds in two lines at 1920 px
            assert round(seen["box"]) == 2
        ctx.close()
        browser.close()
