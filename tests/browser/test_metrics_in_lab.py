"""JupyterLab and Notebook 7 + Debian chromium + Playwright: notebook 09's Stepper draws what Flink's
web UI shows in every subtask box (numRecordsIn/Out, watermark, back-pressure chip) and, on every
edge, each input channel's buffer fill (a cell per exclusive buffer, the queued ones filled),
readable at 1280x800 and 1920x1080 and in presenter mode: no text under 14 px (18 px presenting),
no two graph texts overlapping, no gauge over a text, a subtask box or another gauge, every strip
and gauge inside the graph pane, the whole graph in its pane without scrolling (the lower boxes not
cut; presenting at 1280x800 too), no console error; a partly filled channel shows as such; the
Metrics button takes the strips and gauges away and brings them back."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import ARGS, CHROMIUM, SHOTS
from tests.browser.test_classroom_in_lab import SMALLEST_FONT
from tests.browser.test_classroom_notebooks import (
    EDGE_LABELS_ON_EDGES,
    GRAPH_CUT,
    GRAPH_SCROLLS,
    _notebook7_own,
    _open,
    _ran,
    _run_all,
    servers,  # noqa: F401 (the module's Jupyter servers, one per front end)
)
from tests.browser.test_lecture_in_lab import PRESENTER_CUT, SMALLEST_ZOOMED_FONT, TEXT_OVERLAPS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NB = "09_back_pressure.ipynb"

#: Strips and gauges cut by the graph frame (the frame's visible box, or what it scrolls to).
STRIPS_AND_GAUGES = "g.pfk-metrics-svg, g.pfk-gauge"

#: Each gauge as drawn: its channel, queued / capacity, filled cells, the smallest cell's on-screen
#: size (px), and what it covers (graph text, subtask boxes, other gauges).
GAUGES = """
root => {
  const hit = (p, q) => p.left < q.right - 1 && q.left < p.right - 1 && p.top < q.bottom - 1 && q.top < p.bottom - 1;
  const gauges = [...root.querySelectorAll("g.pfk-gauge")];
  const frames = gauges.map(g => g.querySelector("rect.pfk-gauge-frame").getBoundingClientRect());
  const texts = [...root.querySelectorAll(".pfk-graph-canvas svg text")]
    .filter(t => t.textContent.trim() && !t.closest("g.pfk-token"));
  const boxes = [...root.querySelectorAll(".pfk-graph-canvas g.node")]
    .map(n => n.querySelector("path, polygon, ellipse")).filter(Boolean);
  return gauges.map((g, k) => {
    const cells = [...g.querySelectorAll("rect.pfk-gauge-used, rect.pfk-gauge-free")]
      .map(c => c.getBoundingClientRect());
    const f = frames[k];
    return {
      edge: g.dataset.edge, queued: Number(g.dataset.queued), capacity: Number(g.dataset.capacity),
      used: g.querySelectorAll("rect.pfk-gauge-used").length, cells: cells.length,
      cellPx: Math.min(...cells.map(c => Math.min(c.width, c.height))), width: f.width,
      covers: [
        ...texts.filter(t => hit(t.getBoundingClientRect(), f)).map(t => t.textContent),
        ...boxes.filter(b => hit(b.getBoundingClientRect(), f)).map(b => b.parentNode.id),
        ...frames.filter((o, j) => j !== k && hit(o, f)).map((o, j) => `gauge ${j}`),
      ],
      title: g.querySelector("title").textContent,
    };
  });
}
"""


def _readable(page, stepper, where: str, presenting: bool = False) -> list[dict]:
    """The metrics view's checks: values, text size (>= 14 px, 18 px presenting: the widget's
    CSS zoom included), overlaps, gauges, nothing cut."""
    root = stepper.element_handle()
    strips = stepper.locator("g.pfk-metrics-svg")
    assert strips.count() == 5, where  # Source (1/1), Map (1/2)(2/2), Keyed Reduce -> Sink ×2
    chip = stepper.locator("text.pfk-bp-chip-text").all_text_contents()
    levels, ratios = chip[0::2], chip[1::2]  # each chip: the level over the ratio
    assert set(levels) <= {"OK", "LOW", "HIGH"} and len(levels) == 5, chip
    assert all(re.fullmatch(r"[01]\.\d\d", r) for r in ratios), chip
    lines = stepper.locator("text.pfk-metrics-line").all_text_contents()
    assert any(re.fullmatch(r"in \d+ · out \d+", t) for t in lines), lines
    assert "WM No Watermark" in lines
    smallest, at = page.evaluate(f"({SMALLEST_ZOOMED_FONT if presenting else SMALLEST_FONT})", root)
    assert smallest >= (18 if presenting else 14), f"{where}: {smallest:.1f} px: {at}"
    assert page.evaluate(f"({TEXT_OVERLAPS})", root) == [], where
    # the whole graph in its pane (the lower boxes' strips not cut at the pane's bottom), in
    # presenter mode at 1280 x 800 too (18 px text: the toolbar on one line, the scrubber in the
    # status line, the tab pane its header and a row; was 988 x 320 CSS px in 980 x 270, scrolling)
    scrolls = page.evaluate(f"({GRAPH_SCROLLS})", root)
    assert scrolls == [False, False], (where, scrolls)
    cut = page.evaluate(f"([root, sel]) => ({GRAPH_CUT})(root, sel)", [root, STRIPS_AND_GAUGES])
    cut += page.evaluate(f"({GRAPH_CUT})", root)
    if presenting:  # the rest of the window
        cut += page.evaluate(f"({PRESENTER_CUT})", root)
    assert cut == [], (where, cut)
    assert page.evaluate(f"({EDGE_LABELS_ON_EDGES})", root) == [], where
    gauges = page.evaluate(f"({GAUGES})", root)
    # six channels: Source -> Map (REBALANCE, 1 x 2), Map -> Keyed Reduce (HASH, 2 x 2)
    assert len(gauges) == 6, gauges
    for g in gauges:
        assert g["capacity"] == 2 and g["cells"] == 2, g  # 2 exclusive buffers per channel
        assert g["used"] == g["queued"] and 0 <= g["queued"] <= 2, g
        assert f"{g['queued']}/2 buffers queued" in g["title"], g
        assert g["cellPx"] >= 8, g  # a cell a hall sees at 1280 px
        assert g["covers"] == [], g
    legend = stepper.locator(".pfk-legend")  # its last key, the gauge's, not cut
    key = stepper.locator(".pfk-legend-gauge").bounding_box()
    assert key["x"] + key["width"] <= legend.bounding_box()["x"] + legend.bounding_box()["width"]
    return gauges


SESSIONS = [("lab", (1280, 800)), ("lab", (1920, 1080)), ("notebook", (1280, 800))]


@pytest.mark.parametrize(("app", "size"), SESSIONS, ids=[f"{a}-{w}x{h}" for a, (w, h) in SESSIONS])
def test_metrics_strips_and_buffer_gauges_readable(servers, app, size):  # noqa: F811
    from playwright.sync_api import sync_playwright

    front = servers(app)
    SHOTS.mkdir(parents=True, exist_ok=True)
    width, height = size
    tag = f"metrics_09_{app}_{width}x{height}"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            ctx, page = _open(browser, front, NB, width, height, "pfkmetrics")
            _run_all(front, page, NB)
            _ran(page)
            stepper = page.locator(".pfk-stepper").first  # the Stepper with --metrics
            stepper.locator("g.pfk-metrics-svg").first.wait_for(timeout=30000)
            stepper.scroll_into_view_if_needed()
            page.wait_for_timeout(300)
            chip = stepper.locator("text.pfk-bp-chip-text").all_text_contents()
            assert "HIGH" in chip[0::2]  # the notebook waited for HIGH at Map
            page.screenshot(path=str(SHOTS / f"{tag}.png"))
            gauges = _readable(page, stepper, tag)
            # a partly filled channel: stepping from the start, one shows 1 of its 2 buffers
            stepper.locator("button.pfk-reset").click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-step-no').textContent === 'step 0'",
                timeout=60000,
            )
            stepper.locator("input.pfk-n").fill("5")
            for _ in range(40):
                if stepper.locator("g.pfk-gauge[data-queued='1']").count():
                    break
                before = stepper.locator(".pfk-step-no").inner_text()
                stepper.locator("button.pfk-step-n").click()
                page.wait_for_function(
                    "b => document.querySelector('.pfk-stepper .pfk-step-no').textContent !== b",
                    arg=before,
                    timeout=60000,
                )
                page.wait_for_timeout(100)
            page.screenshot(path=str(SHOTS / f"{tag}_partly.png"))
            gauges = _readable(page, stepper, f"{tag} partly filled")
            assert any(g["queued"] == 1 and g["used"] == 1 for g in gauges), gauges
            # the toggle: off (the plain layout, no strips, no gauges), on again
            toggle = stepper.locator("button.pfk-metrics-btn")
            toggle.click()
            page.wait_for_function(
                "() => !document.querySelector('.pfk-stepper g.pfk-metrics-svg, .pfk-stepper g.pfk-gauge')",
                timeout=30000,
            )
            toggle.click()
            stepper.locator("g.pfk-gauge").first.wait_for(timeout=30000)
            page.wait_for_timeout(300)
            assert stepper.locator("g.pfk-metrics-svg").count() == 5
            assert stepper.locator("g.pfk-gauge").count() == 6
            if size == (1280, 800):  # presenter mode: the whole window, text >= 18 px
                stepper.locator("button.pfk-present").click()
                page.wait_for_function(
                    "() => document.querySelector('.pfk-stepper.pfk-presenting')", timeout=30000
                )
                page.wait_for_timeout(500)
                page.screenshot(path=str(SHOTS / f"{tag}_presenting.png"))
                _readable(page, stepper, f"{tag} presenting", presenting=True)
                page.keyboard.press("Escape")
                page.wait_for_function(
                    "() => !document.querySelector('.pfk-stepper.pfk-presenting')", timeout=30000
                )
            errors = [e for e in page.pfk_errors if not _notebook7_own(e)]
            assert errors == []
            ctx.close()
        finally:
            browser.close()
