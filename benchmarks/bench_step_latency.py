"""Stepper step latency end to end in Chromium (issue #23: median <= 100 ms).

Notebook 03 in JupyterLab at 1280 x 800 and 1920 x 1080, the Step button clicked 40 times
(Sequence diagram tab) at a brisk teacher's pace (the next click 300 ms after the previous step
was painted). Each step is timed in the page, the same way for any version of the widget: the
click, the step number redrawn (the kernel's answer drawn), the next frame painted. Where the
widget has its own performance marks (widgets/pyflowkit.js stepClock) the phases are printed too:
click -> the kernel's answer (first change event) -> every pane redrawn (the model's "change"
event) -> the next frame painted, and the panes' redraw cost.

``--old REV`` (e.g. ``--old fc13915^``) exports that commit (git archive into a temporary
directory; the repository is not touched) and runs it beside this checkout, each in its own
JupyterLab server (its kernel imports that commit's pyflowkit and widgets, and serves its own
notebook 03), sessions alternating old / new (the order flips every round) under the same load;
it prints each side's median and p90 over all rounds, new/old, and the load average (1 min) seen.
Needs the lab extra, Debian chromium and Python playwright (as tests/browser)."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
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
#: One Step, timed in the page for any widget version: click -> step number redrawn -> painted.
STEP = """
async (root) => {
  const no = root.querySelector(".pfk-step-no"), before = no.textContent;
  return await new Promise((resolve) => {
    let t0 = 0;
    const watch = new MutationObserver(() => {
      if (no.textContent === before) return;
      watch.disconnect();
      const shown = performance.now() - t0;
      requestAnimationFrame(() => setTimeout(() => resolve([shown, performance.now() - t0]), 0));
    });
    watch.observe(no, { childList: true, characterData: true, subtree: true });
    t0 = performance.now();
    root.querySelector("button.pfk-step").click();
  });
}
"""


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def load1() -> float:
    return os.getloadavg()[0]


def session(p, lab: str, width: int, height: int) -> tuple[list[list[float]], list[dict]]:
    """40 Steps in a fresh page: [(ms to the step number, ms to painted)], the widget's marks."""
    udd = tempfile.mkdtemp(prefix="pw-udd-")
    ctx, page, stepper = run_all(p, lab, NB, udd, width, height)
    try:
        stepper.locator("button.pfk-reset").click()
        page.wait_for_function(
            "() => document.querySelector('.pfk-stepper .pfk-step-no').textContent === 'step 0'"
        )
        stepper.locator("button.pfk-tab-sequence").click()
        page.evaluate("() => performance.clearMeasures('pfk-step')")
        steps = []
        for _ in range(STEPS):
            steps.append(stepper.evaluate(STEP))
            page.wait_for_timeout(PAUSE_MS)
        page.wait_for_timeout(50)
        return steps, page.evaluate(MEASURES)
    finally:
        ctx.close()
        shutil.rmtree(udd, ignore_errors=True)


def export(rev: str, into: Path) -> str:
    """``rev`` of this repository as files in ``into`` (git archive); its short sha."""
    sha = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    into.mkdir(parents=True)
    archive = subprocess.Popen(["git", "-C", str(REPO), "archive", sha], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise SystemExit(f"git archive {rev} failed")
    return sha[:8]


def serve(root: Path):
    """A JupyterLab server whose kernels import pyflowkit from ``root``, serving ``root``'s
    notebook 03; (generator to close, url)."""
    was = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(root)
    try:
        served = Path(tempfile.mkdtemp(prefix="pfk-bench-"))
        server = _serve("lab", served)
        url = next(server)
    finally:
        if was is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = was
    shutil.copyfile(root / "notebooks" / NB, served / NB)  # that commit's own notebook
    return server, url


def print_phases(size: tuple[int, int], marks: list[dict]) -> None:
    """The widget's own phases (this checkout's stepClock marks)."""
    width, height = size
    phases = {
        "click -> kernel answer": [r["answer"] for r in marks],
        "answer -> panes redrawn": [r["drawn"] - r["answer"] for r in marks],
        "redrawn -> frame painted": [r["painted"] - r["drawn"] for r in marks],
        "click -> painted (goal 100)": [r["painted"] for r in marks],
    }
    for name, values in phases.items():
        print(
            f"{width}x{height:<5} {name:<28} {statistics.median(values):>6.1f}ms"
            f" {pct(values, 0.9):>6.1f}ms"
        )
    panes: dict[str, list[float]] = {}
    for r in marks:
        for name, ms in r["work"].items():
            panes.setdefault(name, []).append(ms)
    top = sorted(panes.items(), key=lambda kv: -statistics.median(kv[1]))[:6]
    print(
        "           redraw by handler (median): "
        + ", ".join(f"{n} {statistics.median(v):.1f}" for n, v in top)
    )


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", help="a commit to run beside this checkout (e.g. fc13915^)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (with --old)")
    opts = parser.parse_args()
    sides = {"new": REPO}
    tmp = Path(tempfile.mkdtemp(prefix="pfk-bench-old-"))
    label = {"new": "this checkout"}
    if opts.old:
        label["old"] = f"{opts.old} ({export(opts.old, tmp / 'old')})"
        sides = {"old": tmp / "old", "new": REPO}
    servers = {name: serve(root) for name, root in sides.items()}
    rounds = opts.rounds if opts.old else 1
    # (size, side) -> every step's [ms to the step number, ms to painted]; loads seen; marks
    steps: dict[tuple, list[list[float]]] = {}
    loads: dict[tuple, list[float]] = {}
    marks: dict[tuple, list[dict]] = {}
    try:
        with sync_playwright() as p:
            for size in SIZES:
                for _, url in servers.values():
                    session(p, url, *size)  # warm-up: fonts, JIT, the kernel's first layout
                for r in range(rounds):
                    order = list(servers) if r % 2 == 0 else list(reversed(servers))
                    for name in order:
                        loads.setdefault((size, name), []).append(load1())
                        got, own = session(p, servers[name][1], *size)
                        steps.setdefault((size, name), []).extend(got)
                        marks.setdefault((size, name), []).extend(own)
    finally:
        for server, _ in servers.values():
            server.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"Stepper step latency, notebook 03 in JupyterLab, {STEPS} Steps per session, "
        f"{rounds} session(s) per size and side; "
        + "; ".join(f"{k} = {v}" for k, v in label.items())
    )
    print(
        f"{'size':<10} {'side':<5} {'click -> step shown':>20} {'click -> painted':>17} "
        f"{'p90':>8} {'steps':>6} {'load 1 min':>11}"
    )
    for size in SIZES:
        for name in sides:
            got = steps[(size, name)]
            shown = [s for s, _ in got]
            painted = [t for _, t in got]
            seen = loads[(size, name)]
            print(
                f"{size[0]}x{size[1]:<5} {name:<5} {statistics.median(shown):>18.1f}ms"
                f" {statistics.median(painted):>15.1f}ms {pct(painted, 0.9):>6.1f}ms"
                f" {len(got):>6} {min(seen):>5.1f}-{max(seen):<5.1f}"
            )
        if opts.old:
            old = statistics.median(t for _, t in steps[(size, "old")])
            new = statistics.median(t for _, t in steps[(size, "new")])
            print(f"{size[0]}x{size[1]:<5} new/old median click -> painted: {new / old:.2f}")
    print(f"\nthis checkout's own phases (widget marks), median and p90; load now {load1():.1f}")
    print(f"{'size':<10} {'phase':<28} {'median':>8} {'p90':>8}")
    for size in SIZES:
        if marks.get((size, "new")):
            print_phases(size, marks[(size, "new")])


if __name__ == "__main__":
    main()
