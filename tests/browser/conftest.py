"""JupyterLab + Debian chromium + Playwright: the JupyterLab server and a page that ran a notebook."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
SHOTS = REPO / "build" / "screenshots"
TOKEN = "pyflowkit-test-token"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(app: str, served: Path):
    """Start ``jupyter <app>`` (``lab`` or ``notebook``: Notebook 7) on ``served``; yield its url."""
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH (Debian package `chromium`; .ci/run installs it)")
    pytest.importorskip("playwright.sync_api", reason="python playwright is not installed")
    if app == "notebook":
        pytest.importorskip("notebook", reason="Notebook 7 is not installed (the notebook extra)")
    port = _free_port()
    for nb in NOTEBOOKS.glob("*.ipynb"):
        shutil.copyfile(nb, served / nb.name)
    log = open(tempfile.mktemp(prefix="jupyter-", suffix=".log"), "w")  # noqa: SIM115
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        app,
        "--no-browser",
        "--ip",
        "127.0.0.1",
        "--port",
        str(port),
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={served}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=served)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail(f"jupyter {app} did not start; see {log.name}")
        yield url
    finally:
        os.kill(proc.pid, signal.SIGTERM)  # stop the server (and its kernels) by pid
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
        log.close()
        shutil.rmtree(served, ignore_errors=True)


@pytest.fixture(scope="module")
def lab():
    """A JupyterLab server on a temporary copy of notebooks/ (Lab autosaves: never the repo's)."""
    yield from _serve("lab", Path(tempfile.mkdtemp(prefix="pfk-notebooks-")))


#: Console messages that are not the page's own business (JupyterLab's, the browser's).
IGNORED_CONSOLE = ("favicon", "ERR_INTERNET_DISCONNECTED", "net::ERR_", "Failed to load resource")


def watch_console(page) -> list[str]:
    """Collect the page's console errors and uncaught exceptions in ``page.pfk_errors``."""
    errors: list[str] = []

    def on_console(msg) -> None:
        if msg.type == "error" and not any(s in msg.text for s in IGNORED_CONSOLE):
            errors.append(msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc} ({(exc.stack or '')[:600]})"))
    page.pfk_errors = errors
    return errors


def open_page(p, udd: str, width: int, height: int):
    """Headless Chromium at ``width`` × ``height`` with its console watched; (context, page)."""
    ctx = p.chromium.launch_persistent_context(
        udd,
        executable_path=CHROMIUM,
        headless=True,
        args=ARGS,
        viewport={"width": width, "height": height},
    )
    page = ctx.pages[0] if ctx.pages else ctx.new_page()
    watch_console(page)
    return ctx, page


def run_all(p, lab: str, nb: str, udd: str, width: int = 1500, height: int = 1000):
    """Open ``nb`` in JupyterLab, Run All Cells, wait for the kernel; (context, page, stepper)."""
    ctx, page = open_page(p, udd, width, height)
    page.goto(f"{lab}/lab/tree/{nb}?reset&token={TOKEN}")
    page.wait_for_selector(".jp-StatusBar-TextItem >> text=/\\| Idle/", timeout=90000)
    page.add_style_tag(content=".Toastify { display: none !important; }")  # the news prompt
    if page.locator("#jp-left-stack:not(.lm-mod-hidden)").count():  # the file browser: hide it
        page.evaluate("() => document.querySelector('.jp-LabShell').focus()")
        page.keyboard.press("Control+b")  # application:toggle-left-area
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").first.click()
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
    stepper = page.locator(".pfk-stepper").first
    stepper.wait_for(timeout=90000)
    page.wait_for_selector(".jp-StatusBar-TextItem >> text=/\\| Idle/", timeout=120000)
    stepper.scroll_into_view_if_needed()
    return ctx, page, stepper


#: "No label cut by a pane's edge", one rule for every browser test (issue #23), on a widget's
#: root; the problems found (empty: none). HTML text: the narration's caption, sentence, method
#: and "why" line, the status line's log text, the restart / restore banner, and any element that
#: CSS ellipsises: cut when its box is narrower or shorter than its text (a hall cannot hover for
#: the title), or, for the narration's flowing parts, when a line of it leaves the narration's box
#: or the widget. SVG text of the sequence pane: a label outside the pane's sides, a lifeline name
#: or an arrow's label cut to "…", an arrow's label on its arrow's line (it sits above the line, a
#: px clear at least). Screen boxes: a zoomed root (presenter mode, A+) is measured as drawn.
TEXT_CUT = """
root => {
  const problems = [];
  const shown = (e) => { const cs = getComputedStyle(e);
    return e.textContent.trim() && cs.visibility !== "hidden" && cs.display !== "none" && e.getClientRects().length; };
  const text = (e) => e.textContent.trim().slice(0, 80);
  const html = ".pfk-caption, .pfk-sentence, .pfk-method, .pfk-why, .pfk-narration, .pfk-message, "
    + ".pfk-banner.pfk-banner-on";
  const boxes = new Set([...root.querySelectorAll(html)]);
  for (const e of root.querySelectorAll("*"))
    if (!(e instanceof SVGElement) && getComputedStyle(e).textOverflow === "ellipsis") boxes.add(e);
  for (const e of boxes) {
    if (!shown(e) || e.closest(".pfk-tabpane:not(.pfk-active), option, select")) continue;
    if (getComputedStyle(e).display === "inline") continue;  // (its lines: below)
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
      problems.push(`text cut (${e.className}): ${text(e)}`);
  }
  const story = root.querySelector(".pfk-narration");
  if (story && shown(story)) {
    const s = story.getBoundingClientRect(), right = Math.min(s.right, root.getBoundingClientRect().right);
    for (const e of story.querySelectorAll(".pfk-caption, .pfk-sentence, .pfk-method, .pfk-why"))
      if (shown(e) && [...e.getClientRects()].some(r => r.width && (r.right > right + 1 || r.left < s.left - 1
          || r.bottom > s.bottom + 1 || r.top < s.top - 1))) problems.push(`narration cut: ${text(e)}`);
  }
  const frame = root.querySelector(".pfk-seq-frame");
  if (frame && frame.getClientRects().length) {
    const f = frame.getBoundingClientRect(), scale = f.width / frame.offsetWidth;
    const right = f.left + frame.clientWidth * scale;
    for (const t of frame.querySelectorAll("g.pfk-seq-msg text, .pfk-seq-headbox text")) {
      const r = t.getBoundingClientRect();
      if (r.width && (r.left < f.left - 1 || r.right > right + 1)) problems.push(`sequence label cut: ${text(t)}`);
    }
    for (const t of frame.querySelectorAll(".pfk-seq-headbox text"))
      if (t.textContent.trim().endsWith("…")) problems.push(`lifeline name cut: ${text(t)}`);
    for (const t of frame.querySelectorAll("g.pfk-seq-msg text:not(.pfk-seq-stepno)"))
      if (t.textContent.trim().endsWith("…")) problems.push(`arrow label cut: ${text(t)}`);
    if (frame.scrollWidth > frame.clientWidth + 1) problems.push(`the sequence pane scrolls sideways`);
    // an arrow's label above its line: the label's box clear of the line's stroke
    for (const g of frame.querySelectorAll("g.pfk-seq-msg")) {
      const t = g.querySelector("text:not(.pfk-seq-stepno)"), line = g.querySelector("line");
      if (!t || !line) continue;
      const r = t.getBoundingClientRect(), l = line.getBoundingClientRect();
      const zoom = l.width / (line.getBBox().width || l.width);
      const half = (parseFloat(getComputedStyle(line).strokeWidth) || 1) / 2 * zoom, y = (l.top + l.bottom) / 2 - half;
      const overlapsX = r.left < l.right && l.left < r.right;
      if (r.width && overlapsX && r.bottom > y - zoom)  // (a gap of a px at least, zoomed)
        problems.push(`arrow label on its line: ${text(t)} (${(r.bottom - y).toFixed(1)} px from it)`);
    }
  }
  return problems;
}
"""

#: :data:`TEXT_CUT` once the widget's answer is drawn (on the next frames).
TEXT_CUT_DRAWN = f"""
root => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(({TEXT_CUT})(root)))))
"""
