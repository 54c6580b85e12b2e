"""Issue #23 in JupyterLab + Debian chromium at 1280 x 800: no console error from any Stepper (its
``layout_mode`` no longer shadows ipywidgets' ``layout``), the new palette on the graph, badges and
barrier-token text at least 14 px, "+k" labels clear of edge labels, the timeline's markers and
legend. Screenshots go to build/screenshots."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from tests.browser.conftest import SHOTS, run_all
from tests.browser.test_classroom_in_lab import SMALLEST_FONT, TOP, reset, step_and_wait

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Pairs of overlapping SVG text boxes inside the graph (screen boxes, 1 px tolerance).
TEXT_OVERLAPS = """
root => {
  const texts = [...root.querySelectorAll(".pfk-graph-canvas svg text")].filter(t => {
    const r = t.getBoundingClientRect(); return r.width > 0 && r.height > 0 && t.textContent.trim();
  });
  const out = [];
  const boxes = texts.map(t => t.getBoundingClientRect());
  for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (texts[i].closest("g.pfk-token") && texts[i].closest("g.pfk-token") === texts[j].closest("g.pfk-token")
        && !texts[j].classList.contains("pfk-token-ahead") && !texts[i].classList.contains("pfk-token-ahead")) continue;
    if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
      out.push([texts[i].textContent, texts[j].textContent]);
  }
  return out;
}
"""
DEBUG = """
root => [...root.querySelectorAll(".pfk-graph-canvas svg text")].map(t => {
  const b = t.getBBox();
  return [t.textContent, ...[b.x, b.y, b.width, b.height].map(Math.round)];
})
"""
#: The smallest screen font of the graph's overlays (barrier tokens and checkpoint badges).
OVERLAY_FONT = """
root => Math.min(Infinity, ...[...root.querySelectorAll("g.pfk-token text, g.pfk-badge-svg text")]
  .map(t => parseFloat(getComputedStyle(t).fontSize) * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b)))
"""


def test_checkpoint_overlays_readable_and_no_console_error(lab):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, "04_checkpoints.ipynb", udd, 1280, 800)
            assert page.pfk_errors == [], page.pfk_errors  # the layout trait clash is gone
            reset(page, stepper)
            stepper.locator("input.pfk-n").fill("40")
            for _ in range(20):
                if stepper.locator("g.node.execution-vertex.pfk-state-RUNNING").count() == 5:
                    break
                step_and_wait(page, stepper, "button.pfk-step-n")
            fill = stepper.locator("g.pfk-state-RUNNING path, g.pfk-state-RUNNING polygon")
            assert fill.first.evaluate("e => getComputedStyle(e).fill") == "rgb(9, 136, 76)"
            stepper.locator("button.pfk-checkpoint").click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-message').textContent"
                ".includes('checkpoint 1 triggered')",
                timeout=30000,
            )
            seen_ahead = seen_badge = 0
            for _ in range(40):
                step_and_wait(page, stepper)
                page.wait_for_timeout(50)  # tokens and badges are drawn on the next frame
                overlaps = stepper.evaluate(TEXT_OVERLAPS)
                if overlaps:
                    stepper.evaluate(TOP)
                    stepper.screenshot(path=str(SHOTS / "lecture_overlap_failure.png"))
                    dump = stepper.evaluate(DEBUG)
                assert overlaps == [], (
                    overlaps,
                    [d for d in dump if d[0] in ("ALL_TO_ALL", "1", "FORWARD", "HASH")],
                )
                if stepper.locator("g.pfk-token, g.pfk-badge-svg").count():
                    smallest = stepper.evaluate(OVERLAY_FONT)
                    assert smallest >= 14, smallest
                seen_ahead += stepper.locator("text.pfk-token-ahead").count()
                seen_badge += stepper.locator("g.pfk-badge-svg").count()
                if seen_ahead and seen_badge >= 3:
                    break
            assert seen_badge, "no checkpoint badge was drawn"
            stepper.evaluate(TOP)
            stepper.screenshot(path=str(SHOTS / "lecture_checkpoint_overlays_1280x800.png"))
            smallest, where = stepper.evaluate(SMALLEST_FONT)
            assert smallest >= 14, f"{smallest:.2f} px: {where}"
            stepper.locator("select.pfk-run-to").select_option("checkpoint")
            stepper.locator("button.pfk-run-to-btn").click()
            stepper.locator("button.pfk-tab-timeline").click()
            marker = stepper.locator(".pfk-timeline g.pfk-tl-completed")
            marker.first.wait_for(timeout=30000)
            legend = stepper.locator(".pfk-timeline g.pfk-tl-legend-item").evaluate_all(
                "gs => gs.map(g => g.dataset.state)"
            )
            assert "RUNNING" in legend
            smallest, where = stepper.evaluate(SMALLEST_FONT)
            assert smallest >= 14, f"timeline: {smallest:.2f} px: {where}"
            stepper.evaluate(TOP)
            stepper.screenshot(path=str(SHOTS / "lecture_timeline_1280x800.png"))
            assert page.pfk_errors == [], page.pfk_errors
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
