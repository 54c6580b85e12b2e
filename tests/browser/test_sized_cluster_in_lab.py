"""JupyterLab + Debian chromium + Playwright: a new user's parallelism-8 job in ``Stepper(env)``
FINISHES on a cluster sized to it, and the widget shows that cluster (2 TaskManagers in the Fail TM
menu, 16 slots in the Slots pane) at 1280x800, its ExecutionGraph (subtasks in grids, ALL_TO_ALL edges
bundled) at the readable 14 px scale by default, scrolled to each step's subject, and whole after "fit"."""

from __future__ import annotations

import json
import shutil
import tempfile
import urllib.request

import pytest

from tests.browser.conftest import ARGS, CHROMIUM, SHOTS, TEXT_CUT, TOKEN, _serve, run_all
from tests.browser.test_classroom_notebooks import (
    LOW_CONTRAST,
    Server,
    _lab_theme,
    _open,
    _ran,
    _run_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CELLS = [
    "%load_ext pyflowkit",
    "from pyflowkit.common import Types\n"
    "from pyflowkit.datastream import StreamExecutionEnvironment\n"
    "from pyflowkit.notebook.stepper import Stepper\n"
    "env = StreamExecutionEnvironment.get_execution_environment()\n"
    "env.set_parallelism(8)\n"
    "(env.from_collection(list(range(40)), type_info=Types.INT())\n"
    "    .map(lambda x: (x % 5, x), output_type=Types.TUPLE([Types.INT(), Types.INT()]))\n"
    "    .key_by(lambda t: t[0]).reduce(lambda a, b: (a[0], a[1] + b[1])).print())\n"
    "stepper = Stepper(env, seed=3)\n"
    "stepper.submit()\n"
    "stepper.run_to('end')\n"
    "stepper",
]


#: Ids of the graph's vertex clusters and subtask boxes not wholly inside the graph pane's visible
#: area (the frame's client box: a scrolled-away or cut box is not seen).
OUTSIDE_PANE = """
root => {
  const f = root.querySelector(".pfk-graph-frame"), r = f.getBoundingClientRect();
  const right = r.left + f.clientLeft + f.clientWidth, bottom = r.top + f.clientTop + f.clientHeight;
  return [...root.querySelectorAll(".pfk-graph-canvas g.cluster, .pfk-graph-canvas g.node")]
    .filter((g) => { const b = g.getBoundingClientRect();
      return b.left < r.left - 1 || b.top < r.top - 1 || b.right > right + 1 || b.bottom > bottom + 1; })
    .map((g) => g.id);
}
"""


#: The current step's subject (the subtask it is about, g.pfk-subject): its id, whether its box is
#: wholly in the graph pane's visible area clear of the zoom buttons' column, and the smallest
#: text of the graph on screen (px).
SUBJECT_IN_PANE = """
root => {
  const f = root.querySelector(".pfk-graph-frame"), r = f.getBoundingClientRect();
  const right = r.left + f.clientLeft + f.clientWidth, bottom = r.top + f.clientTop + f.clientHeight;
  const ctl = root.querySelector(".pfk-graph-controls").getBoundingClientRect();
  const px = (t) => parseFloat(getComputedStyle(t).fontSize)
    * Math.hypot(t.getScreenCTM().a, t.getScreenCTM().b);
  const texts = [...root.querySelectorAll(".pfk-graph-canvas svg g.node text")]
    .filter((t) => t.textContent.trim());
  const g = root.querySelector(".pfk-graph-canvas g.pfk-subject");
  const b = g && g.getBoundingClientRect();
  return { id: g ? g.id : "", smallest: Math.min(...texts.map(px)),
    inside: !!g && b.left >= r.left - 1 && b.top >= r.top - 1 && b.right <= Math.min(right, ctl.left) + 1
      && b.bottom <= bottom + 1,
    scroll: [f.scrollLeft, f.scrollTop] };
}
"""


def put_notebook(lab: str, name: str) -> None:
    """Write a notebook of ``CELLS`` into the server's root (Jupyter's contents API)."""
    cells = [
        {"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None}
        for s in CELLS
    ]
    body = {
        "type": "notebook",
        "format": "json",
        "content": {
            "cells": cells,
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
    }
    request = urllib.request.Request(
        f"{lab}/api/contents/{name}?token={TOKEN}",
        data=json.dumps(body).encode(),
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=30).close()


def test_a_parallelism_8_job_finishes_on_its_sized_cluster(lab):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    put_notebook(lab, "p8_stepper.ipynb")
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, "p8_stepper.ipynb", udd, width=1280, height=800)
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-badge').textContent"
                " === 'FINISHED'",
                timeout=60000,
            )
            options = stepper.locator("select.pfk-tm option")
            assert [options.nth(i).inner_text() for i in range(options.count())] == [
                "TaskExecutor-0",
                "TaskExecutor-1",
            ]
            stepper.locator("button.pfk-tab-slots").click()
            rows = stepper.locator("table.pfk-slots tr:has(td)")
            rows.first.wait_for(timeout=30000)
            assert rows.count() == 16
            cells = [rows.nth(i).locator("td").first.inner_text() for i in range(16)]
            assert cells.count("TaskExecutor-0") == 8 and cells.count("TaskExecutor-1") == 8
            # "Run to end": the job's end as the cluster has it, its slots given back (freeSlot)
            states = [rows.nth(i).locator("td").nth(3).inner_text() for i in range(16)]
            assert states == ["FREE"] * 16
            assert "slots freed (TaskExecutor.freeSlot)" in stepper.locator(
                ".pfk-message"
            ).get_attribute("title")
            assert stepper.evaluate(TEXT_CUT) == []
            stepper.screenshot(path=str(SHOTS / "stepper_p8_slots.png"))
            # the graph whole by default: 3 vertices, 17 subtasks, the 1x8 and 8x8 edges bundled
            assert stepper.locator(".pfk-graph-canvas g.cluster").count() == 3
            assert stepper.locator(".pfk-graph-canvas g.node").count() == 17
            labels = stepper.evaluate(
                "r => [...r.querySelectorAll('.pfk-graph-canvas g.edge.bundled text')]"
                ".map((t) => t.textContent)"
            )
            assert "(8×8)" in labels and "(1×8)" in labels
            # by default at the readable scale (100 %: text at 14 px, the whole graph 7-8 px),
            # the pane scrolled to each step's subject
            zoom = stepper.locator(".pfk-zoom-level")
            assert zoom.inner_text() == "100%"
            assert stepper.evaluate(OUTSIDE_PANE) != []  # (not whole: it scrolls)
            assert stepper.evaluate(SUBJECT_IN_PANE)["smallest"] >= 14
            stepper.locator("button.pfk-reset").click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-step-no').textContent"
                " === 'step 0'",
                timeout=30000,
            )
            subjects, scrolls = [], set()
            for _ in range(60):
                if len(subjects) == 17:
                    break
                before = stepper.locator(".pfk-step-no").inner_text()
                stepper.locator("button.pfk-step").click()
                page.wait_for_function(
                    "b => document.querySelector('.pfk-stepper .pfk-step-no').textContent !== b",
                    arg=before,
                    timeout=30000,
                )
                page.wait_for_timeout(150)
                seen = stepper.evaluate(SUBJECT_IN_PANE)
                assert seen["smallest"] >= 14, seen
                assert zoom.inner_text() == "100%"
                if seen["id"]:
                    assert seen["inside"], (len(subjects), seen)
                    subjects.append(seen["id"])
                    scrolls.add(tuple(seen["scroll"]))
                    if len(subjects) == 12:
                        stepper.screenshot(path=str(SHOTS / "stepper_p8_subject.png"))
            assert len(set(subjects)) >= 12  # the subtasks deployed one by one, each followed
            assert len(scrolls) >= 2  # (the pane scrolled as they went)
            assert stepper.evaluate(TEXT_CUT) == []
            for _ in range(3):
                stepper.locator("button.pfk-zoom-btn", has_text="+").click()
            assert stepper.evaluate(OUTSIDE_PANE) != []
            stepper.locator("button.pfk-zoom-btn", has_text="fit").click()
            page.wait_for_timeout(300)
            assert stepper.evaluate(OUTSIDE_PANE) == []
            whole = int(zoom.inner_text().rstrip("%"))
            assert 30 < whole < 100  # the scale shown: under the readable 14 px view
            assert stepper.evaluate(TEXT_CUT) == []
            stepper.screenshot(path=str(SHOTS / "stepper_p8_fit.png"))
            # "fit" at every size: a narrower window, the whole graph again
            page.set_viewport_size({"width": 900, "height": 800})
            page.wait_for_timeout(800)
            stepper.locator("button.pfk-zoom-btn", has_text="fit").click()
            page.wait_for_timeout(300)
            assert stepper.evaluate(OUTSIDE_PANE) == []
            stepper.screenshot(path=str(SHOTS / "stepper_p8_fit_900.png"))
            # Lab's dark theme: the bundles and their labels readable (4.5:1), still whole
            page.set_viewport_size({"width": 1280, "height": 800})
            _lab_theme(page, "JupyterLab Dark")  # (a user setting: Light again below)
            try:
                page.wait_for_timeout(500)
                stepper.locator("button.pfk-zoom-btn", has_text="fit").click()
                page.wait_for_timeout(300)
                assert stepper.evaluate(OUTSIDE_PANE) == []
                seen = stepper.locator(".pfk-graph-pane, .pfk-graph-frame").first.evaluate(
                    LOW_CONTRAST
                )
                assert seen["low"] == [] and seen["checked"] >= 17
                stepper.screenshot(path=str(SHOTS / "stepper_p8_fit_dark.png"))
            finally:
                _lab_theme(page, "JupyterLab Light")
            # a checkpoint's barriers on the bundles: one token per checkpoint on a bundle
            stepper.locator("button.pfk-reset").click()
            stepper.locator("input.pfk-n").fill("40")
            running = stepper.locator("g.node.execution-vertex.pfk-state-RUNNING")
            for _ in range(30):
                if running.count() == 17:
                    break
                stepper.locator("button.pfk-step-n").click()
                page.wait_for_timeout(150)
            assert running.count() == 17
            stepper.locator("button.pfk-checkpoint").click()
            stepper.locator("input.pfk-n").fill("2")
            tokens = stepper.locator("g.pfk-token[data-edge^='je_']")
            for _ in range(40):
                if tokens.count():
                    break
                stepper.locator("button.pfk-step-n").click()
                page.wait_for_timeout(150)
            assert tokens.count() >= 1
            assert stepper.locator("g.pfk-token[data-edge^='ee_']").count() == 0
            per_edge = stepper.evaluate(
                "r => [...r.querySelectorAll('g.pfk-token')].map((t) => t.dataset.edge"
                " + '/' + t.dataset.checkpoint)"
            )
            assert len(per_edge) == len(set(per_edge))  # one token per checkpoint and bundle
            stepper.screenshot(path=str(SHOTS / "stepper_p8_barrier.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)


def test_the_parallelism_8_graph_is_whole_in_notebook_7():
    """The same Stepper in Jupyter Notebook 7 at 1280x800: the bundled graph whole in its pane."""
    from pathlib import Path

    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="pfk-notebook-"))
    serving = _serve("notebook", root)
    server = Server("notebook", next(serving), root)
    try:
        put_notebook(server.url, "p8_stepper.ipynb")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
            ctx, page = _open(browser, server, "p8_stepper.ipynb", 1280, 800, "p8")
            _run_all(server, page, "p8_stepper.ipynb")
            _ran(page)
            stepper = page.locator(".pfk-stepper").first
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-badge').textContent"
                " === 'FINISHED'",
                timeout=60000,
            )
            stepper.scroll_into_view_if_needed()
            page.wait_for_timeout(500)
            assert stepper.locator(".pfk-graph-canvas g.node").count() == 17
            # readable by default (text at 14 px, scrolled), whole after "fit"
            assert stepper.locator(".pfk-zoom-level").inner_text() == "100%"
            assert stepper.evaluate(SUBJECT_IN_PANE)["smallest"] >= 14
            assert stepper.evaluate(TEXT_CUT) == []
            stepper.screenshot(path=str(SHOTS / "stepper_p8_notebook7.png"))
            stepper.locator("button.pfk-zoom-btn", has_text="fit").click()
            page.wait_for_timeout(300)
            assert stepper.evaluate(OUTSIDE_PANE) == []
            assert int(stepper.locator(".pfk-zoom-level").inner_text().rstrip("%")) < 100
            stepper.screenshot(path=str(SHOTS / "stepper_p8_notebook7_fit.png"))
            ctx.close()
            browser.close()
    finally:
        serving.close()
