"""The live streaming view in JupyterLab + Debian chromium at a projector's 1280 x 800: a notebook
starts an unbounded pipeline with ``%pipeline run NAME``; the view's micro-batch row and the print
sink's lines update while the job runs (in the view, not as cell output), no text is under 14 px,
and the Stop button cancels the job (the view says CANCELED, nothing more is printed). Screenshots
go to build/screenshots, the running view also to build/screenshots/docs_img/streaming_view.png (a candidate for the
README's docs/img: tests never write tracked files)."""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import urllib.request

import pytest

from tests.browser.conftest import ARGS, CHROMIUM, SHOTS, TOKEN

pytestmark = [pytest.mark.browser, pytest.mark.spark, pytest.mark.slow]

NOTEBOOK = "streaming_view_test.ipynb"
PIPELINE = '''%%pipeline sensors
from pyflowkit.common import Configuration, Types
from pyflowkit.datastream.functions import SourceFunction


class Readings(SourceFunction):
    """An endless sensor feed: (sensor, reading) with three sensors."""

    def run(self, ctx):
        i = 0
        while True:
            yield (f"sensor-{i % 3}", i % 7)
            i += 1


conf = Configuration()
conf.set_string("pyflowkit.spark.streaming.max-records-per-batch", "6")
env.configure(conf)
env.set_parallelism(2)
env.enable_checkpointing(1000)  # a micro-batch every second
(
    env.add_source(Readings(), "Readings", Types.TUPLE([Types.STRING(), Types.INT()]))
    .key_by(lambda r: r[0], key_type=Types.STRING())
    .reduce(lambda a, b: (a[0], a[1] + b[1]))
    .print("total")
)'''
CELLS = ["%load_ext pyflowkit", PIPELINE, "client = %pipeline run sensors"]
#: The smallest rendered font size (px) of the visible text inside an element.
SMALLEST_FONT = """
root => {
  let smallest = Infinity, where = "";
  for (const e of [root, ...root.querySelectorAll("*")]) {
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const r = e.getBoundingClientRect();
    if (!own || r.width === 0 || r.height === 0) continue;
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (px < smallest) { smallest = px; where = e.tagName + " " + e.textContent.slice(0, 40); }
  }
  return [smallest, where];
}
"""


def _notebook() -> dict:
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "source": source,
            "outputs": [],
            "execution_count": None,
        }
        for source in CELLS
    ]
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _put_notebook(lab: str) -> None:
    """Save the test notebook into the served directory (Jupyter's contents API)."""
    body = json.dumps({"type": "notebook", "format": "json", "content": _notebook()}).encode()
    request = urllib.request.Request(
        f"{lab}/api/contents/{NOTEBOOK}?token={TOKEN}",
        data=body,
        method="PUT",
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=30).read()


def _row(view, name: str) -> str:
    return view.locator(f"tr[data-row='{name}'] td").inner_text()


def _printed(view) -> int:
    return int(view.locator(".pfk-stream-title").get_attribute("data-printed"))


def test_live_progress_lines_and_stop(lab) -> None:
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    _put_notebook(lab)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx = p.chromium.launch_persistent_context(
                udd,
                executable_path=CHROMIUM,
                headless=True,
                args=ARGS,
                viewport={"width": 1280, "height": 800},
            )
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.goto(f"{lab}/lab/tree/{NOTEBOOK}?reset&token={TOKEN}")
            page.wait_for_selector(".jp-StatusBar-TextItem >> text=/\\| Idle/", timeout=90000)
            page.add_style_tag(content=".Toastify { display: none !important; }")
            if page.locator("#jp-left-stack:not(.lm-mod-hidden)").count():
                page.evaluate("() => document.querySelector('.jp-LabShell').focus()")
                page.keyboard.press("Control+b")  # hide the file browser
            page.locator(
                ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell"
            ).first.click()
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()

            view = page.locator(".pfk-stream").first
            view.wait_for(timeout=180000)
            badge = view.locator(".pfk-stream-badge")
            assert badge.inner_text() in ("CREATED", "RUNNING")
            # the cell returned at once: the kernel is idle while the job runs
            page.wait_for_selector(".jp-StatusBar-TextItem >> text=/\\| Idle/", timeout=60000)
            # the first micro-batch (Spark's first Python workers) can take a while
            try:
                page.wait_for_function(
                    "() => Number(document.querySelector('.pfk-stream-title').dataset.printed) > 0",
                    timeout=240000,
                )
            except Exception:
                page.screenshot(path=str(SHOTS / "streaming_view_failed_1280x800.png"))
                raise AssertionError(f"no print lines: {view.inner_text()}") from None
            first_batch, first_printed = _row(view, "batch"), _printed(view)
            page.wait_for_function(
                "b => document.querySelector(\"tr[data-row='batch'] td\").textContent !== b",
                arg=first_batch,
                timeout=60000,
            )
            page.wait_for_function(
                "n => Number(document.querySelector('.pfk-stream-title').dataset.printed) > n",
                arg=first_printed,
                timeout=60000,
            )
            assert badge.inner_text() == "RUNNING"
            assert view.locator(".pfk-stream-note").is_hidden()
            lines = view.locator(".pfk-stream-lines").inner_text().splitlines()
            assert lines and all(re.match(r"total:[12]> \(sensor-\d,\d+\)$", x) for x in lines)
            stdout = page.locator(".jp-OutputArea-output[data-mime-type$='stdout']")
            assert "total:" not in " ".join(stdout.all_inner_texts())  # lines are in the view only
            assert int(_row(view, "records").split()[0].replace(",", "")) > 0
            view.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / "streaming_view_running_1280x800.png"))
            smallest, where = view.evaluate(SMALLEST_FONT)
            assert smallest >= 14, f"{smallest:.1f} px: {where}"

            stop = view.locator("button.pfk-stream-stop")
            assert stop.is_enabled()
            stop.click()
            page.wait_for_function(
                "() => document.querySelector('.pfk-stream-badge').textContent === 'CANCELED'",
                timeout=60000,
            )
            assert stop.is_disabled()
            stopped_at = _printed(view)
            page.wait_for_timeout(3000)  # a cancelled job prints nothing more
            assert _printed(view) == stopped_at
            assert (
                view.locator(".pfk-stream-note")
                .inner_text()
                .startswith("Stopped: the job is CANCELED.")
            )
            view.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / "streaming_view_stopped_1280x800.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
    docs = SHOTS / "docs_img"
    docs.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SHOTS / "streaming_view_running_1280x800.png", docs / "streaming_view.png")
