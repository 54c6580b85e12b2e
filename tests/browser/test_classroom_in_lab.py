"""The classroom view in JupyterLab + Debian chromium, at a projector's 1280 x 800 and at 1920 x 1080:
the sequence diagram's arrows after stepping, no text under 14 px, no pane moving between two steps,
a barrier token travelling along its edge, the Exceptions pane after Fail task. Screenshots of each
moment go to build/screenshots (the README's under build/screenshots/docs_img: tests never write
tracked files; copy them to docs/img by hand when the README's pictures should change)."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from tests.browser.conftest import SHOTS, run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = [(1280, 800), (1920, 1080)]
TOP = "e => e.scrollIntoView({block: 'start'})"  # the whole Stepper in the screenshot
DOCS = SHOTS / "docs_img"  # candidates for docs/img, never written there by a test
#: The smallest rendered font size (px) of every visible text inside the Stepper: HTML elements by
#: their computed style, SVG text by its font size times the screen transform's scale.
SMALLEST_FONT = """
root => {
  let smallest = Infinity, where = "";
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
  };
  for (const e of root.querySelectorAll("*")) {
    if (e.closest("option, select, title, defs")) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || !visible(e)) continue;
    let px = parseFloat(getComputedStyle(e).fontSize);
    if (e instanceof SVGElement) {
      const m = e.getScreenCTM();
      px *= Math.hypot(m.a, m.b);
    }
    if (px < smallest) { smallest = px; where = e.tagName + " " + e.textContent.slice(0, 40); }
  }
  return [smallest, where];
}
"""
#: Bounding boxes of the Stepper's panes relative to the Stepper (rounded to whole px); the
#: Stepper's own size too (JupyterLab may scroll the notebook, which moves everything alike).
PANE_BOXES = """
root => {
  const o = root.getBoundingClientRect();
  return Object.fromEntries(
    [".pfk-head", ".pfk-toolbar", ".pfk-narration", ".pfk-banner", ".pfk-graph-pane", ".pfk-graph-frame",
     ".pfk-legend", ".pfk-tabs", ".pfk-tab-body"].map((sel) => {
      const r = root.querySelector(sel).getBoundingClientRect();
      return [sel, [r.x - o.x, r.y - o.y, r.width, r.height].map(Math.round)];
    }).concat([["stepper size", [Math.round(o.width), Math.round(o.height)]]]));
}
"""


def same_or_grown(was: dict, now: dict) -> dict:
    """``now``, asserted to be ``was`` (no pane moved), unless the status line or the narration
    grew (a longer text than any before: they wrap, never cut, and only grow)."""
    grown = [sel for sel in (".pfk-head", ".pfk-narration") if now[sel][3] > was[sel][3] + 1]
    for sel in (".pfk-head", ".pfk-narration"):
        assert now[sel][3] >= was[sel][3] - 1, (sel, was[sel], now[sel])
    assert grown or now == was, (was, now)
    return now


def step_and_wait(page, stepper, button: str = "button.pfk-step") -> int:
    """Click a step button and wait for the kernel's answer (the step counter changes)."""
    before = stepper.locator(".pfk-step-no").inner_text()
    stepper.locator(button).first.click()
    page.wait_for_function(
        "b => document.querySelector('.pfk-stepper .pfk-step-no').textContent !== b",
        arg=before,
        timeout=30000,
    )
    return int(stepper.locator(".pfk-step-no").inner_text().split()[-1])


def reset(page, stepper) -> None:
    stepper.locator("button.pfk-reset").click()
    page.wait_for_function(
        "() => document.querySelector('.pfk-stepper .pfk-step-no').textContent === 'step 0'",
        timeout=30000,
    )


@pytest.mark.parametrize(("width", "height"), SIZES, ids=lambda v: str(v))
def test_submission_arrows_fonts_and_fixed_panes(lab, width, height):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(
                p, lab, "03_job_submission_step_by_step.ipynb", udd, width, height
            )
            projector = "pfk-projector" in stepper.get_attribute("class")
            assert projector == (width < 1400)
            reset(page, stepper)
            stepper.locator("button.pfk-tab-sequence").click()
            stepper.scroll_into_view_if_needed()
            for _ in range(12):
                step_and_wait(page, stepper)
            labels = stepper.locator(".pfk-seq-bodybox g.pfk-seq-msg").evaluate_all(
                "gs => gs.map(g => [Number(g.dataset.i), g.dataset.method])"
            )
            indices = [i for i, _ in labels]
            # focus mode: the newest arrows on the lifelines they use, no gap between them
            assert indices == list(range(indices[0], indices[0] + len(indices)))
            names = [text for _, text in labels]
            order = ["Dispatcher.submitJob", "JobManagerRunnerImpl.start", "JobMaster.<init>"]
            order += ["DefaultScheduler.startScheduling", "SlotPool.requestNewAllocatedSlot"]
            order += ["ResourceManager.registerJobManager", "TaskExecutor.requestSlot"]
            positions = [names.index(n) for n in order if n in names]
            assert positions == sorted(positions) and len(positions) >= 3, names
            # the newest arrow's step is on the yellow band of the current step
            assert stepper.locator(".pfk-seq-bodybox rect.pfk-seq-current").count() >= 1
            smallest, where = stepper.evaluate(SMALLEST_FONT)
            assert smallest >= 14, f"{smallest:.3f} px: {where}"
            print(f"{width}x{height}: smallest font {smallest:.2f} px ({where!r})")
            boxes = stepper.evaluate(PANE_BOXES)
            for _ in range(25):  # across state changes, table growth and new lifelines
                step_and_wait(page, stepper)
                boxes = same_or_grown(boxes, stepper.evaluate(PANE_BOXES))
            tag = f"{width}x{height}"
            stepper.evaluate(TOP)
            stepper.screenshot(path=str(SHOTS / f"sequence_{tag}.png"))
            for tab in ("tasks", "timeline"):
                stepper.locator(f"button.pfk-tab-{tab}").click()
                smallest, where = stepper.evaluate(SMALLEST_FONT)
                assert smallest >= 14, f"{tab}: {smallest:.1f} px: {where}"
                assert stepper.evaluate(PANE_BOXES) == boxes
                stepper.evaluate(TOP)
                stepper.screenshot(path=str(SHOTS / f"{tab}_{tag}.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
    DOCS.mkdir(parents=True, exist_ok=True)
    if width == 1280:
        shutil.copyfile(SHOTS / "sequence_1280x800.png", DOCS / "sequence_diagram.png")
        shutil.copyfile(SHOTS / "timeline_1280x800.png", DOCS / "timeline.png")


def test_a_barrier_token_travels_along_its_edge(lab):
    from playwright.sync_api import sync_playwright

    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, "04_checkpoints.ipynb", udd, 1280, 800)
            reset(page, stepper)
            stepper.locator("input.pfk-n").fill("40")
            for _ in range(20):
                if stepper.locator("g.node.execution-vertex.pfk-state-RUNNING").count() == 5:
                    break
                step_and_wait(page, stepper, "button.pfk-step-n")
            stepper.locator("button.pfk-checkpoint").click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-message').textContent"
                ".includes('checkpoint 1 triggered')",
                timeout=30000,
            )
            tokens = "g => [...g.querySelectorAll('g.pfk-token')].map(t => [t.dataset.edge, Number(t.dataset.pos), t.querySelector('circle').getAttribute('cx'), t.querySelector('circle').getAttribute('cy')])"  # noqa: E501
            graph = stepper.locator(".pfk-graph-canvas")
            moved = None
            before = graph.evaluate(tokens)
            for _ in range(60):
                step_and_wait(page, stepper)
                after = graph.evaluate(tokens)
                same_edge = [
                    (b, a) for b in before for a in after if a[0] == b[0] and a[1:] != b[1:]
                ]
                if same_edge:
                    moved = same_edge[0]
                    break
                before = after
            assert moved is not None, "no barrier token moved along an edge in 60 steps"
            (edge, pos0, *_), (_, pos1, *_) = moved
            assert edge.startswith("ee_") and pos1 != pos0
            stepper.evaluate(TOP)
            stepper.screenshot(path=str(SHOTS / "barrier_token_1280x800.png"))
            page.wait_for_timeout(100)
            # the PendingCheckpoint box fills up in the Checkpoints tab
            stepper.locator("button.pfk-tab-checkpoints").click()
            box = stepper.locator(".pfk-ck-box").first
            assert "PendingCheckpoint 1" in box.inner_text() or "CompletedCheckpoint 1" in (
                box.inner_text()
            )
            stepper.evaluate(TOP)
            stepper.screenshot(path=str(SHOTS / "checkpoint_box_1280x800.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
    DOCS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SHOTS / "barrier_token_1280x800.png", DOCS / "barrier_token.png")


def test_exceptions_pane_shows_the_exception_after_fail_task(lab):
    from playwright.sync_api import sync_playwright

    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(
                p, lab, "03_job_submission_step_by_step.ipynb", udd, 1280, 800
            )
            reset(page, stepper)
            stepper.locator("input.pfk-n").fill("25")
            step_and_wait(page, stepper, "button.pfk-step-n")
            for _ in range(20):  # the job of notebook 3 is short: one step at a time
                if stepper.locator("g.node.execution-vertex.pfk-state-RUNNING").count() == 5:
                    break
                step_and_wait(page, stepper)
            node = stepper.locator("g.node.execution-vertex.pfk-state-RUNNING").last
            node.locator("path, polygon").first.click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper g.node.pfk-selected')", timeout=30000
            )
            outline = stepper.locator("g.node.pfk-selected path").first.evaluate(
                "e => [getComputedStyle(e).stroke, getComputedStyle(e).strokeWidth]"
            )
            assert outline == ["rgb(0, 0, 0)", "4px"]
            stepper.locator("button.pfk-fail-task").click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-message').textContent"
                ".includes('will throw at the next step')",
                timeout=30000,
            )
            stepper.locator("input.pfk-n").fill("1")
            for _ in range(30):
                step_and_wait(page, stepper, "button.pfk-step-n")
                if stepper.locator("button.pfk-tab-exceptions.pfk-tab-alert").count():
                    break
            stepper.locator("button.pfk-tab-exceptions").click()
            root = stepper.locator(".pfk-exceptions-pane .pfk-exception-root")
            root.wait_for(timeout=30000)
            assert (
                "TaskFailure: Injected failure of Keyed Reduce → Print (2/2)." in root.inner_text()
            )
            assert "subtask 1" not in root.inner_text()  # named as the graph names it
            assert "Root exception" in root.inner_text()
            smallest, where = stepper.evaluate(SMALLEST_FONT)
            assert smallest >= 14, f"{smallest:.1f} px: {where}"
            stepper.evaluate(TOP)
            stepper.screenshot(path=str(SHOTS / "exceptions_1280x800.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
    DOCS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SHOTS / "exceptions_1280x800.png", DOCS / "exceptions.png")
