"""JupyterLab at 1280×800 + Debian chromium + Playwright: notebook 09's Stepper draws what Flink's
web UI shows in every subtask box (numRecordsIn/Out, watermark, back-pressure chip), readable: no
text under 14 px, no two graph texts overlapping, every strip inside the graph pane, no console
error; the Metrics button takes the strips away and brings them back."""

from __future__ import annotations

import re
import shutil
import tempfile

import pytest

from tests.browser.conftest import SHOTS, run_all
from tests.browser.test_classroom_in_lab import SMALLEST_FONT
from tests.browser.test_lecture_in_lab import TEXT_OVERLAPS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Each strip's box against the graph frame's: strips not wholly inside it (cut or panned away).
STRIPS_OUTSIDE = """
root => {
  const f = root.querySelector(".pfk-graph-frame").getBoundingClientRect();
  return [...root.querySelectorAll("g.pfk-metrics-svg")].filter(g => {
    const r = g.getBoundingClientRect();
    return r.left < f.left - 1 || r.right > f.right + 1 || r.top < f.top - 1 || r.bottom > f.bottom + 1;
  }).map(g => g.dataset.id);
}
"""


def test_metrics_strips_readable_at_1280x800(lab):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, "09_back_pressure.ipynb", udd, 1280, 800)
            strips = stepper.locator("g.pfk-metrics-svg")
            strips.first.wait_for(timeout=30000)
            assert strips.count() == 5  # Source (1/1), Map (1/2)(2/2), Keyed Reduce -> Sink ×2
            chip = stepper.locator("text.pfk-bp-chip-text").all_text_contents()
            levels, ratios = chip[0::2], chip[1::2]  # each chip: the level over the ratio
            assert set(levels) <= {"OK", "LOW", "HIGH"} and len(levels) == 5, chip
            assert all(re.fullmatch(r"[01]\.\d\d", r) for r in ratios), chip
            assert "HIGH" in levels  # the notebook waited for HIGH at Map
            lines = stepper.locator("text.pfk-metrics-line").all_text_contents()
            assert any(re.fullmatch(r"in \d+ · out \d+", t) for t in lines), lines
            assert "WM No Watermark" in lines
            stepper.scroll_into_view_if_needed()
            root = stepper.element_handle()
            smallest, where = page.evaluate(f"({SMALLEST_FONT})", root)
            assert smallest >= 14, f"{smallest:.1f} px: {where}"
            assert page.evaluate(f"({TEXT_OVERLAPS})", root) == []
            stepper.screenshot(path=str(SHOTS / "metrics_09_1280.png"))
            page.screenshot(path=str(SHOTS / "metrics_09_1280_page.png"))
            assert page.evaluate(f"({STRIPS_OUTSIDE})", root) == []
            legend = stepper.locator(".pfk-legend")  # its last key, "━ full", not cut
            full = stepper.locator(".pfk-legend-full").bounding_box()
            assert (
                full["x"] + full["width"]
                <= legend.bounding_box()["x"] + legend.bounding_box()["width"]
            )
            toggle = stepper.locator("button.pfk-metrics-btn")
            toggle.click()  # off: the plain layout, no strips
            page.wait_for_function(
                "() => !document.querySelector('.pfk-stepper g.pfk-metrics-svg')", timeout=30000
            )
            toggle.click()  # on again
            strips.first.wait_for(timeout=30000)
            assert strips.count() == 5
            assert page.pfk_errors == []
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
