"""JupyterLab + Debian chromium + Playwright: the Stepper recolours a subtask when it turns RUNNING,
and a checkpoint triggered from its toolbar reaches COMPLETED in the checkpoint panel."""

from __future__ import annotations

import shutil
import tempfile

import pytest

from tests.browser.conftest import SHOTS, run_all

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_step_turns_a_subtask_running(lab):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    nb = "03_job_submission_step_by_step.ipynb"
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, nb, udd)
            stepper.locator(
                "button.pfk-reset"
            ).click()  # the notebook ran it to the end: start over
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-step-no').textContent === 'step 0'"
                " && !document.querySelector('.pfk-stepper g.pfk-state-FINISHED')",
                timeout=30000,
            )
            subtask = stepper.locator("g.node.execution-vertex").first
            colour_before = subtask.locator("polygon, path").first.evaluate("e => e.style.fill")
            running = stepper.locator("g.pfk-state-RUNNING")
            for i in range(1, 201):
                stepper.locator("button.pfk-step").first.click()
                # wait for the kernel round trip of this click (slow on a loaded machine)
                page.wait_for_function(
                    "n => document.querySelector('.pfk-stepper .pfk-step-no').textContent"
                    " === 'step ' + n",
                    arg=i,
                    timeout=30000,
                )
                if running.count() > 0:
                    break
            assert running.count() > 0, "no subtask turned RUNNING after 200 steps"
            node = running.first
            assert "pfk-state-RUNNING" in node.get_attribute("class")
            fill = node.locator("polygon, path").first.evaluate("e => getComputedStyle(e).fill")
            assert fill == "rgb(9, 136, 76)"  # STATE_PALETTE["RUNNING"] = #09884c
            assert colour_before != fill
            page.wait_for_function(
                "() => document.querySelector('.pfk-stepper .pfk-badge').textContent === 'RUNNING'",
                timeout=30000,
            )
            stepper.screenshot(path=str(SHOTS / "stepper.png"))
            page.screenshot(path=str(SHOTS / "lab_submission.png"), full_page=True)
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)


def test_checkpoint_reaches_completed_in_the_panel(lab):
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    try:
        with sync_playwright() as p:
            ctx, page, stepper = run_all(p, lab, "04_checkpoints.ipynb", udd, width=1900)
            stepper.locator("button.pfk-tab-checkpoints").click()
            pane = stepper.locator(".pfk-checkpoint-pane")
            # the notebook completed checkpoint 1 from Python; the panel shows it (scrolled into
            # view first: JupyterLab skips rendering off-screen cells, leaving innerText empty)
            pane.scroll_into_view_if_needed()
            assert pane.locator("tr.pfk-ck-COMPLETED td.pfk-ck-status").first.inner_text() == (
                "COMPLETED"
            )
            stepper.locator("button.pfk-reset").click()  # start over: no checkpoint yet
            pane.locator(".pfk-note", has_text="no checkpoint triggered yet").wait_for(
                timeout=30000
            )
            stepper.locator("input.pfk-n").fill("40")
            for _ in range(20):  # Step ×40 until every subtask is RUNNING
                if stepper.locator("g.node.execution-vertex.pfk-state-RUNNING").count() == 5:
                    break
                stepper.locator("button.pfk-step-n").click()
                page.wait_for_timeout(150)
            assert stepper.locator("g.node.execution-vertex.pfk-state-RUNNING").count() == 5
            stepper.locator("button.pfk-checkpoint").click()
            pending = pane.locator(".pfk-ck-line[data-checkpoint-id='1']")
            pending.wait_for(timeout=30000)
            assert "checkpoint 1: 0/5 acks" in pending.inner_text()
            assert pane.locator("tr.pfk-ck-IN_PROGRESS").count() == 1
            stepper.locator("select.pfk-run-to").select_option("checkpoint")
            stepper.locator("button.pfk-run-to-btn").click()
            done = pane.locator("tr.pfk-ck-COMPLETED[data-checkpoint-id='1'] td.pfk-ck-status")
            done.wait_for(timeout=30000)
            assert done.inner_text() == "COMPLETED"
            colour = done.evaluate("e => getComputedStyle(e).color")
            assert colour == "rgb(0, 107, 78)"  # .pfk-ck-status-COMPLETED
            assert pane.locator(".pfk-ck-line").count() == 0  # nothing pending any more
            assert "completed 1" in pane.locator(".pfk-ck-counts").inner_text()
            # a second checkpoint in flight next to the completed one, for the screenshot
            stepper.locator("button.pfk-checkpoint").click()
            pane.locator(".pfk-ck-line[data-checkpoint-id='2']").wait_for(timeout=30000)
            stepper.locator("input.pfk-n").fill("1")
            for _ in range(60):
                line = pane.locator(".pfk-ck-line[data-checkpoint-id='2']")
                if line.count() == 0 or not line.inner_text().startswith("checkpoint 2: 0/"):
                    break
                stepper.locator("button.pfk-step-n").click()
                page.wait_for_timeout(60)
            pane.scroll_into_view_if_needed()
            pane.screenshot(path=str(SHOTS / "checkpoints.png"))
            stepper.screenshot(path=str(SHOTS / "stepper_checkpoints.png"))
            ctx.close()
    finally:
        shutil.rmtree(udd, ignore_errors=True)
