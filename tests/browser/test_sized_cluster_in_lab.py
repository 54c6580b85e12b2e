"""JupyterLab + Debian chromium + Playwright: a new user's parallelism-8 job in ``Stepper(env)``
FINISHES on a cluster sized to it, and the widget shows that cluster (2 TaskManagers in the Fail TM
menu, 16 slots in the Slots pane) at 1280x800, its ExecutionGraph whole in the graph pane (subtasks in
grids, ALL_TO_ALL edges bundled) by default and after "fit"."""

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
            assert stepper.evaluate(OUTSIDE_PANE) == []
            zoom = stepper.locator(".pfk-zoom-level")
            whole = int(zoom.inner_text().rstrip("%"))
            assert 30 < whole < 100  # the scale shown: under the readable 14 px view
            for _ in range(3):
                stepper.locator("button.pfk-zoom-btn", has_text="+").click()
            assert stepper.evaluate(OUTSIDE_PANE) != []
            stepper.locator("button.pfk-zoom-btn", has_text="fit").click()
            page.wait_for_timeout(300)
            assert stepper.evaluate(OUTSIDE_PANE) == []
            assert int(zoom.inner_text().rstrip("%")) == whole
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
            assert stepper.evaluate(OUTSIDE_PANE) == []
            assert int(stepper.locator(".pfk-zoom-level").inner_text().rstrip("%")) < 100
            assert stepper.evaluate(TEXT_CUT) == []
            stepper.screenshot(path=str(SHOTS / "stepper_p8_notebook7.png"))
            ctx.close()
            browser.close()
    finally:
        serving.close()
