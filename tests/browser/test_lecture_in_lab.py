"""Issue #23 in JupyterLab + Debian chromium at 1280 x 800: no console error from any Stepper (its
``layout_mode`` no longer shadows ipywidgets' ``layout``), the new palette on the graph, badges and
barrier-token text at least 14 px, "+k" labels clear of edge labels, the timeline's markers and
legend. Screenshots go to build/screenshots."""

from __future__ import annotations

import json
import shutil
import tempfile
import urllib.request

import pytest

from tests.browser.conftest import NOTEBOOKS, SHOTS, TEXT_CUT, TEXT_CUT_DRAWN, TOKEN, run_all
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


#: After a step: where the current step's arrows and the Stepper are, against the visible notebook
#: area (the Stepper's scrolling ancestor) and the sequence pane (below its fixed header).
IN_VIEW = """
root => {
  const area = root.closest(".jp-WindowedPanel-outer, .jp-Notebook");
  const a = area.getBoundingClientRect();
  const s = root.getBoundingClientRect();
  const frame = root.querySelector(".pfk-seq-frame");
  const f = frame.getBoundingClientRect();
  const headH = root.querySelector(".pfk-seq-headbox").getBoundingClientRect().height;
  const step = root.querySelector(".pfk-step-no").textContent.split(" ").pop();
  const inside = (r, top, bottom, left, right) =>
    r.top >= top - 1 && r.bottom <= bottom + 1 && r.left >= left - 1 && r.right <= right + 1;
  const problems = [];
  if (!inside(s, a.top, a.bottom, a.left, a.right))
    problems.push(`stepper ${s.top}..${s.bottom} outside area ${a.top}..${a.bottom}`);
  const current = [...root.querySelectorAll(`.pfk-seq-bodybox g.pfk-seq-msg[data-step="${step}"]`)];
  for (const g of current) {
    const r = g.getBoundingClientRect();
    if (!inside(r, Math.max(f.top + headH, a.top), Math.min(f.bottom, a.bottom), f.left, f.right))
      problems.push(`arrow ${g.dataset.method} at ${Math.round(r.top)}..${Math.round(r.bottom)} not in view`);
  }
  for (const t of root.querySelectorAll(".pfk-seq-bodybox g.pfk-seq-msg text, .pfk-seq-headbox text")) {
    const r = t.getBoundingClientRect();
    if (r.width && (r.left < f.left - 1 || r.right > f.left + frame.clientWidth + 1))
      problems.push(`label cut: ${t.textContent}`);
  }
  if (frame.scrollWidth > frame.clientWidth + 1)
    problems.push(`scrolls sideways ${frame.scrollWidth} > ${frame.clientWidth}`);
  const band = root.querySelector(".pfk-seq-bodybox rect.pfk-seq-current");
  const rowH = band ? band.getBoundingClientRect().height : 99;
  if (rowH < 24) problems.push(`rows ${rowH} px`);
  const pinned = [...root.querySelectorAll(".pfk-seq-headbox g.pfk-lifeline")].slice(0, 2).map(g => g.dataset.id);
  return { problems, current: current.length, pinned, stepper: Math.round(s.height), area: Math.round(a.height) };
}
"""


#: The narration strip: its texts and the rendered size of the caption and the sentence.
NARRATION = """
root => {
  const px = (sel) => parseFloat(getComputedStyle(root.querySelector(sel)).fontSize);
  const text = (sel) => root.querySelector(sel).textContent;
  return { caption: text(".pfk-caption"), sentence: text(".pfk-sentence"), method: text(".pfk-method"),
           why: text(".pfk-why"), log: text(".pfk-message"),
           caption_px: px(".pfk-caption"), sentence_px: px(".pfk-sentence") };
}
"""


def _click_and_time(page, stepper, button: str) -> tuple[int, float]:
    """Click a button, wait for the step counter to change; (new step, ms until it did)."""
    before = stepper.locator(".pfk-step-no").inner_text()
    t0 = page.evaluate("() => performance.now()")
    stepper.locator(button).first.click()
    page.wait_for_function(
        "b => document.querySelector('.pfk-stepper .pfk-step-no').textContent !== b",
        arg=before,
        timeout=30000,
    )
    page.wait_for_timeout(0)
    ms = page.evaluate("t0 => performance.now() - t0", t0)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return int(stepper.locator(".pfk-step-no").inner_text().split()[-1]), ms


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)], ids=str)
def test_the_current_step_stays_in_view_through_submission(lab, width, height):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    nb = "03_job_submission_step_by_step.ipynb"
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, nb, udd, width, height)
            reset(page, stepper)
            stepper.locator("button.pfk-tab-sequence").click()
            stepper.evaluate(TOP)
            step_and_wait(page, stepper)
            page.wait_for_function(  # the kernel laid the lifelines out to the pane's width
                "() => { const f = document.querySelector('.pfk-stepper .pfk-seq-frame');"
                " return f.scrollWidth <= f.clientWidth + 1; }",
                timeout=30000,
            )
            reset(page, stepper)
            latencies, steps, narrated = [], 0, []
            actions = ["button.pfk-step"] * 32 + ["button.pfk-back"] * 3 + ["button.pfk-step"] * 2
            actions += ["button.pfk-run-to-btn"]
            for k, button in enumerate(actions):
                if k % 9 == 4:  # the teacher scrolled the notebook away: a step brings it back
                    stepper.evaluate(
                        "e => e.closest('.jp-WindowedPanel-outer, .jp-Notebook').scrollBy(0, -400)"
                    )
                steps, ms = _click_and_time(page, stepper, button)
                latencies.append(ms)
                seen = stepper.evaluate(IN_VIEW)
                if seen["problems"]:
                    page.screenshot(path=str(SHOTS / f"lecture_not_in_view_{width}x{height}.png"))
                    print("\n".join(seen["problems"]))
                assert seen["problems"] == [], (k, button, steps, seen)
                assert seen["pinned"] == ["client", "Dispatcher"]
                story = stepper.evaluate(NARRATION)
                assert story["sentence"] and story["sentence"] != story["log"], story
                assert story["caption_px"] >= 18 and story["sentence_px"] >= 16, story
                if button == "button.pfk-step":
                    narrated.append(story)
                assert seen["current"] >= 1 or button != "button.pfk-step", (steps, seen)
                if k in (6, 31):
                    stepper.screenshot(
                        path=str(SHOTS / f"lecture_step{steps}_{width}x{height}.png")
                    )
            assert seen["stepper"] <= seen["area"]
            captions = [n["caption"] for n in narrated]
            assert "client → Dispatcher" in captions and "SlotPool → ResourceManager" in captions
            assert any(
                n["sentence"].startswith("The SlotPool asks the ResourceManager for a slot")
                for n in narrated
            )
            latencies.sort()
            median = latencies[len(latencies) // 2]
            print(
                f"{width}x{height}: stepper {seen['stepper']} px in a {seen['area']} px area; "
                f"step latency median {median:.0f} ms, max {latencies[-1]:.0f} ms"
            )
            smallest, where = stepper.evaluate(SMALLEST_FONT)
            assert smallest >= 14, f"{smallest:.2f} px: {where}"
            assert page.pfk_errors == [], page.pfk_errors
            page.screenshot(path=str(SHOTS / f"lecture_lab_{width}x{height}.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)


#: The smallest rendered text in the Stepper, CSS zoom included (presenter mode zooms the widget):
#: HTML text by its font size times the element's effective zoom, SVG text by its on-screen height
#: ratio (font size times the screen transform's scale, times the zoom when the CTM leaves it out).
SMALLEST_ZOOMED_FONT = """
root => {
  let smallest = Infinity, where = "";
  for (const e of root.querySelectorAll("*")) {
    if (e.closest("option, select, title, defs")) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const r = e.getBoundingClientRect();
    if (!own || !r.width || !r.height || getComputedStyle(e).visibility === "hidden") continue;
    const zoom = e.currentCSSZoom || 1;
    let px = parseFloat(getComputedStyle(e).fontSize) * zoom;
    if (e instanceof SVGElement) {
      const m = e.getScreenCTM();
      const ctm = Math.hypot(m.a, m.b);
      px = parseFloat(getComputedStyle(e).fontSize) * Math.max(ctm, ctm * (ctm < zoom * 0.99 ? zoom : 1));
    }
    if (px < smallest) { smallest = px; where = e.tagName + " " + e.textContent.slice(0, 40); }
  }
  return [smallest, where];
}
"""


#: Presenter mode's "nothing cut": every visible text of the Stepper inside the window, graph
#: labels inside the graph pane, no text cut by its box, and the rule of every browser test
#: (conftest's TEXT_CUT: the narration, the banner, the sequence labels). Screen boxes only (the
#: root is zoomed).
PRESENTER_CUT = """
root => {
  const problems = [];
  const inside = (r, b) =>
    r.left >= b.left - 1 && r.right <= b.right + 1 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  const win = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
  const graph = root.querySelector(".pfk-graph-frame").getBoundingClientRect();
  for (const e of root.querySelectorAll("*")) {
    if (e.closest("option, select, title, defs, .pfk-tabpane:not(.pfk-active)")) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const r = e.getBoundingClientRect();
    if (!own || !r.width || !r.height || getComputedStyle(e).visibility === "hidden") continue;
    const text = e.textContent.trim().slice(0, 40);
    if (e.closest(".pfk-seq-frame")) {
      continue;  // (the rule of every browser test, below)
    } else if (e.closest(".pfk-graph-frame")) {
      const meets = r.right > graph.left && r.left < graph.right && r.bottom > graph.top && r.top < graph.bottom;
      if (meets && !inside(r, graph)) problems.push(`graph label cut: ${text}`);
    } else if (!e.closest(".pfk-tab-body") && !inside(r, win)) {
      problems.push(`outside the window: ${text} at ${Math.round(r.left)},${Math.round(r.top)}`);
    }
    // a box narrower than its text: cut (text-overflow ellipsis, a clipped button label)
    const block = !(e instanceof SVGElement) && getComputedStyle(e).display !== "inline";
    if (block && e.scrollWidth > e.clientWidth + 1) problems.push(`text cut: ${text}`);
  }
  // a cluster's border cut by the graph pane (07's CepOperator group was cut ~5 px at 1280 x 800)
  for (const c of root.querySelectorAll(".pfk-graph-canvas g.cluster path, .pfk-graph-canvas g.cluster polygon")) {
    const r = c.getBoundingClientRect();
    const meets = r.right > graph.left && r.left < graph.right && r.bottom > graph.top && r.top < graph.bottom;
    const name = c.closest("g.cluster").textContent.trim().slice(0, 40);
    const [l, rr] = [r.left, r.right].map(Math.round), [gl, gr] = [graph.left, graph.right].map(Math.round);
    const where = `${l}..${rr} of ${gl}..${gr}`;
    if (r.width && meets && !inside(r, graph)) problems.push(`cluster border cut: ${name} ${where}`);
  }
  return [...problems, ...(TEXT_CUT)(root)];
}
""".replace("TEXT_CUT", TEXT_CUT)


def _present(page, stepper, tag: str, size: tuple[int, int] = (1280, 800), steps: int = 8) -> None:
    """Present ``stepper``, step ``steps`` times, check: the whole window, no text < 18 px, the
    current step's arrows in the sequence pane, nothing cut; Escape leaves. Screenshot ``tag``."""
    width, height = size
    stepper.scroll_into_view_if_needed()
    stepper.locator("button.pfk-present").click()
    page.wait_for_function(
        "e => e.classList.contains('pfk-presenting')", arg=stepper.element_handle()
    )
    for _ in range(steps):
        before = stepper.locator(".pfk-step-no").inner_text()
        stepper.locator("button.pfk-step").first.click()
        page.wait_for_function(
            "([e, b]) => e.querySelector('.pfk-step-no').textContent !== b",
            arg=[stepper.element_handle(), before],
            timeout=30000,
        )
        # every step's narration whole (a long sentence grows its box, never cut), no label cut
        cut = stepper.evaluate(TEXT_CUT_DRAWN)
        at = stepper.locator(".pfk-step-no").inner_text()
        if cut and all(c.startswith(("sequence label", "the sequence pane")) for c in cut):
            # (seen once in five runs under load: a step that brings a phase's lifelines drawn
            # at the width before until the kernel's layout to the presenter's width arrives)
            page.wait_for_timeout(1000)
            print(f"presenter {tag} {at}: sequence cut for a moment: {cut}")
            cut = stepper.evaluate(TEXT_CUT_DRAWN)
        assert not cut, f"{tag} {at}: text cut: {cut}"
    page.wait_for_timeout(300)
    page.screenshot(path=str(SHOTS / f"lecture_presenter_{tag}_{width}x{height}.png"))
    box = stepper.bounding_box()
    assert box["x"] <= 1 and box["y"] <= 1, box
    assert box["width"] >= width - 10 and height - 20 <= box["height"] <= height + 1, box
    smallest, where = stepper.evaluate(SMALLEST_ZOOMED_FONT)
    print(f"presenter {tag} {width}x{height}: smallest text {smallest:.1f} px ({where!r})")
    assert smallest >= 18, f"{tag}: {smallest:.2f} px: {where}"
    seen = stepper.evaluate(
        "root => { const f = root.querySelector('.pfk-seq-frame').getBoundingClientRect();"
        " const step = root.querySelector('.pfk-step-no').textContent.split(' ').pop();"
        " return [...root.querySelectorAll(`g.pfk-seq-msg[data-step='${step}']`)].map(g =>"
        " { const r = g.getBoundingClientRect(); return r.top >= f.top - 1 &&"
        " r.bottom <= Math.min(f.bottom, innerHeight) + 1; }); }"
    )
    debug = stepper.evaluate(
        "root => [root.style.zoom, innerHeight, root.offsetHeight,"
        " root.querySelector('.pfk-graph-frame').style.height,"
        " root.querySelector('.pfk-graph-frame').offsetHeight,"
        " root.querySelector('.pfk-tab-body').style.height, root.dataset.fit,"
        " root.getBoundingClientRect().height, !!document.fullscreenElement]"
    )
    assert seen and all(seen), (tag, seen, debug)
    cut = stepper.evaluate(PRESENTER_CUT)
    assert cut == [], f"{tag}:\n" + "\n".join(cut)
    page.keyboard.press("Escape")
    page.wait_for_function(
        "e => !e.classList.contains('pfk-presenting')", arg=stepper.element_handle(), timeout=10000
    )
    assert not stepper.evaluate("e => e.style.zoom") and stepper.bounding_box()["x"] > 1


def test_presenter_mode_takes_the_window_with_large_text(lab):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    nb = "03_job_submission_step_by_step.ipynb"
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, nb, udd, 1280, 800)
            reset(page, stepper)
            _present(page, stepper, "03")
            assert page.pfk_errors == [], page.pfk_errors
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)


#: The code cells (indices among a notebook's code cells) that build the classroom notebooks'
#: jobs and Steppers: one notebook, one kernel, three Steppers (04's, 05's, 07's graphs).
PRESENTED = {
    "04_checkpoints.ipynb": [0, 1, 2],
    "05_failure_and_recovery.ipynb": [0, 1, 3],
    "07_geohash_alerts_end_to_end.ipynb": [0, 1, 2, 3, 4, 10],
}
PRESENTED_NOTEBOOK = "presenter_04_05_07.ipynb"


def _put_presented(lab: str) -> None:
    """The cells of :data:`PRESENTED` in one notebook, saved through Jupyter's contents API."""
    cells = []
    for nb, keep in PRESENTED.items():
        code = [
            c for c in json.loads((NOTEBOOKS / nb).read_text())["cells"] if c["cell_type"] == "code"
        ]
        cells += [{**code[i], "outputs": [], "execution_count": None} for i in keep]
    content = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    body = json.dumps({"type": "notebook", "format": "json", "content": content}).encode()
    request = urllib.request.Request(
        f"{lab}/api/contents/{PRESENTED_NOTEBOOK}?token={TOKEN}",
        data=body,
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=30).read()


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (1920, 1080)], ids=str)
def test_presenter_mode_on_the_graphs_of_notebooks_04_05_07(lab, width, height):
    """Notebook 07's graph is the widest: presenter mode must still show it whole at 18 px."""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    _put_presented(lab)
    try:
        with sync_playwright() as p:
            ctx, page, _ = run_all(p, lab, PRESENTED_NOTEBOOK, udd, width, height)
            steppers = page.locator(".pfk-stepper")
            page.wait_for_function("() => document.querySelectorAll('.pfk-stepper').length === 3")
            for k, tag in enumerate(("04", "05", "07")):
                # 07's every submission step at 1280 (its long task names: the longest sentences)
                steps = 40 if tag == "07" and width == 1280 else 8
                _present(page, steppers.nth(k), tag, (width, height), steps)
            assert page.pfk_errors == [], page.pfk_errors
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
