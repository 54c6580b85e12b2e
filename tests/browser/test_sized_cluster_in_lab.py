"""JupyterLab + Debian chromium + Playwright: a new user's parallelism-8 job in ``Stepper(env)``
FINISHES on a cluster sized to it, and the widget shows that cluster (2 TaskManagers in the Fail TM
menu, 16 slots in the Slots pane) at 1280x800."""

from __future__ import annotations

import json
import shutil
import tempfile
import urllib.request

import pytest

from tests.browser.conftest import SHOTS, TEXT_CUT, TOKEN, run_all

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
            assert stepper.evaluate(TEXT_CUT) == []
            stepper.screenshot(path=str(SHOTS / "stepper_p8_slots.png"))
            stepper.locator("button", has_text="fit").first.click()
            page.wait_for_timeout(500)
            stepper.screenshot(path=str(SHOTS / "stepper_p8_fit.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
