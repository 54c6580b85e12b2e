"""Stepper step latency end to end in Chromium (issue #23: median <= 100 ms).

Notebook 03 in JupyterLab at 1280 x 800 and 1920 x 1080, the Step button clicked 40 times
(Sequence diagram tab) at a brisk teacher's pace (the next click 300 ms after the previous step
was painted). Each step is timed by the widget's own performance marks: click -> the kernel's
answer (first change event) -> every pane redrawn (the model's "change" event) -> the next frame
painted ("pfk-step" measures, widgets/pyflowkit.js stepClock). Prints median and p90 of each
phase, and the panes' redraw cost. Needs the lab extra, Debian chromium and Python playwright
(as tests/browser)."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.browser.conftest import _serve, run_all  # noqa: E402

STEPS = 40
PAUSE_MS = 300
NB = "03_job_submission_step_by_step.ipynb"
SIZES = [(1280, 800), (1920, 1080)]

MEASURES = """() => performance.getEntriesByName("pfk-step").map(m => m.detail)"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def session(p, lab: str, width: int, height: int) -> list[dict]:
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    ctx, page, stepper = run_all(p, lab, NB, udd, width, height)
    try:
        stepper.locator("button.pfk-reset").click()
        page.wait_for_function(
            "() => document.querySelector('.pfk-stepper .pfk-step-no').textContent === 'step 0'"
        )
        stepper.locator("button.pfk-tab-sequence").click()
        page.evaluate("() => performance.clearMeasures('pfk-step')")
        for k in range(STEPS):
            stepper.locator("button.pfk-step").first.click()
            page.wait_for_function(
                "n => performance.getEntriesByName('pfk-step').length > n", arg=k, timeout=30000
            )
            page.wait_for_timeout(PAUSE_MS)
        return page.evaluate(MEASURES)
    finally:
        ctx.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    served = Path(tempfile.mkdtemp(prefix="pfk-bench-"))
    server = _serve("lab", served)
    lab = next(server)
    try:
        with sync_playwright() as p:
            print(f"Stepper step latency, notebook 03 in JupyterLab, {STEPS} Steps per size")
            print(f"{'size':<10} {'phase':<28} {'median':>8} {'p90':>8}")
            for width, height in SIZES:
                session(p, lab, width, height)  # warm-up: fonts, JIT, the kernel's first layout
                runs = session(p, lab, width, height)
                phases = {
                    "click -> kernel answer": [r["answer"] for r in runs],
                    "answer -> panes redrawn": [r["drawn"] - r["answer"] for r in runs],
                    "redrawn -> frame painted": [r["painted"] - r["drawn"] for r in runs],
                    "click -> painted (goal 100)": [r["painted"] for r in runs],
                }
                for name, values in phases.items():
                    print(
                        f"{width}x{height:<5} {name:<28} {statistics.median(values):>6.1f}ms"
                        f" {pct(values, 0.9):>6.1f}ms"
                    )
                panes: dict[str, list[float]] = {}
                for r in runs:
                    for name, ms in r["work"].items():
                        panes.setdefault(name, []).append(ms)
                top = sorted(panes.items(), key=lambda kv: -statistics.median(kv[1]))[:6]
                print(
                    "           redraw by handler (median): "
                    + ", ".join(f"{n} {statistics.median(v):.1f}" for n, v in top)
                )
    finally:
        server.close()


if __name__ == "__main__":
    main()
