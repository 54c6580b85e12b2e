"""Issue #23's themes in Jupyter Notebook 7 (and JupyterLab): notebook 04's Stepper (every tab, the Timeline too) and
its standalone views — the ``%%pipeline`` cell's graph, ``%pipeline show``, ``display(graph)``,
``sequence_diagram()``, a ``GraphView``, a ``SequenceView``, the streaming view and the Spark
progress view — follow Notebook 7's theme when
the reader switches it (Settings → Theme: the same JupyterLab theme machinery), live: in
"JupyterLab Dark" and "JupyterLab Dark High Contrast", no visible text under 4.5:1 against what is
drawn under it and no white pane or white drawing ground; back in "JupyterLab Light", light again.
Screenshots of every view in both themes at 1280 x 800 go to build/screenshots."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.browser.conftest import (
    ARGS,
    CHROMIUM,
    SHOTS,
    TEXT_CUT_DRAWN,
    TOKEN,
    _serve,
    watch_console,
)
from tests.browser.test_classroom_notebooks import (
    LOW_CONTRAST,
    _lab_theme,
    _notebook7_own,
    _notebook_upto,
    _ran,
    _run_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The streaming view of a job that has run (a stand-in client: the view reads only its
#: ``StreamingProgress``; starting Spark's query is test_streaming_view_in_lab's business).
STREAMING_CELL = """from pyflowkit.notebook.streaming_view import StreamingJobView
from pyflowkit.spark.streaming_progress import StreamingProgress


class RanJob:
    print_output = True

    def poll(self, timeout):
        return None

    def progress(self):
        return StreamingProgress(
            "sensors", "4f2a9c0e11d2", "CANCELED", batch_id=12, batches=13,
            batch_duration_ms=180, source_records=6, source_records_per_second=33.3,
            state_rows=3, watermarks={"Map": 1000}, printed_lines=78,
            latest_lines=[f"(sensor-{i % 3}, {i % 7})" for i in range(10)],
        )


class RanClient:
    job = RanJob()


StreamingJobView(RanClient())"""
#: Notebook 04 up to its Stepper's first checkpoint (code cells 0-3), then the views a reader
#: shows outside the Stepper.
KEPT_CELLS = range(0, 4)
EXTRA_CELLS = [
    "%pipeline show counts --level execution",
    "stepper.job_graph  # display(graph): the JobGraph drawn by the display hook",
    "from pyflowkit.notebook.graph_view import GraphView\n"
    "from pyflowkit.notebook.sequence_view import SequenceView\n\n"
    "GraphView(stepper.job_graph)",
    "SequenceView(stepper)",
    STREAMING_CELL,
    "from pyflowkit.notebook.spark_progress import SparkProgressView\n"
    "from pyflowkit.spark.progress import SparkProgress\n\n"
    "spark_view = SparkProgressView()  # a run's last snapshot (no Spark here)\n"
    "spark_view.update(SparkProgress(jobs_done=2, jobs_total=2, stages_done=3, stages_total=3, "
    "tasks_done=12, tasks_total=12, status='FINISHED'))\n"
    "spark_view",
]
#: The tabs whose panes are checked (the Exceptions tab is empty without a failure).
TABS = ["sequence", "tasks", "checkpoints", "timeline", "slots", "state", "log"]
#: The roots of the standalone views, in the order the notebook shows them.
VIEWS = [
    (".pfk-static:has(.pfk-graph-canvas)", "pipeline_graph", 0),
    (".pfk-static:has(.pfk-sequence-svg)", "sequence_diagram", 0),
    (".pfk-static:has(.pfk-graph-canvas)", "pipeline_show", 1),
    (".pfk-static:has(.pfk-graph-canvas)", "display_graph", 2),
    (".pfk-widget.pfk-graph-view", "graph_view", 0),
    (".pfk-widget.pfk-sequence", "sequence_view", 0),
    (".pfk-stream", "streaming_view", 0),
    (".pfk-widget.pfk-spark", "spark_progress", 0),
]

#: Large white areas: an HTML box whose background, or an SVG shape whose fill, is near white
#: (every channel >= 240: a light-grey chip or high contrast's yellow is not), at least 40 x 20 px;
#: a state's own colour (CREATED is near white) does not count.
WHITE_PANES = """
root => {
  const rgba = (css) => {
    const m = (css || "").match(/[\\d.]+/g);
    if (!m || m.length < 3 || css === "none") return null;
    return [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1];
  };
  const shapes = new Set(["rect", "path", "polygon", "ellipse", "circle"]);
  const white = [];
  for (const e of [root, ...root.querySelectorAll("*")]) {
    if (e.closest("[data-pfk-state], [data-state], .pfk-legend-item, .pfk-tabpane:not(.pfk-active), defs")) continue;
    const r = e.getBoundingClientRect();
    if (r.width < 40 || r.height < 20) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === "hidden" || cs.display === "none") continue;
    let colour = null;
    if (e instanceof SVGElement) {
      if (!shapes.has(e.tagName) || parseFloat(cs.fillOpacity) <= 0.5) continue;
      colour = rgba(cs.fill);
    } else {
      colour = rgba(cs.backgroundColor);
    }
    if (colour && colour[3] > 0.5 && Math.min(...colour.slice(0, 3)) >= 240)
      white.push(`${e.tagName}.${(e.getAttribute("class") || "").split(" ").join(".")} ` +
        `${r.width | 0}x${r.height | 0} ${colour}`);
  }
  return white;
}
"""


class Server(NamedTuple):
    app: str
    url: str
    root: Path


@pytest.fixture(scope="module", params=["notebook", "lab"])
def front(request):
    """A Notebook 7 (then a JupyterLab) server on a temporary copy of notebooks/ (never the
    repo's)."""
    root = Path(tempfile.mkdtemp(prefix=f"pfk-{request.param}-themes-"))
    for url in _serve(request.param, root):
        yield Server(request.param, url, root)


def _themes_notebook(root: Path) -> str:
    """Notebook 04 cut to its code cells 0-3, with the standalone views after them."""
    name = _notebook_upto(
        root, "04_checkpoints.ipynb", list(KEPT_CELLS), "04_checkpoints_themes.ipynb"
    )
    data = json.loads((root / name).read_text())
    data["cells"] += [
        {
            "cell_type": "code",
            "metadata": {},
            "source": source,
            "outputs": [],
            "execution_count": None,
        }
        for source in EXTRA_CELLS
    ]
    (root / name).write_text(json.dumps(data))
    return name


def _check(page, root, what: str, problems: list[str], min_texts: int, dark: bool) -> None:
    """The contrast checks of one view, and in a dark theme the white-pane check (scrolled into
    view first)."""
    root.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(150)
    seen = root.evaluate(LOW_CONTRAST)
    white = root.evaluate(WHITE_PANES) if dark else []
    if seen["checked"] < min_texts:
        problems.append(f"{what}: only {seen['checked']} texts checked")
    problems += [f"{what}: low contrast {x}" for x in seen["low"]]
    problems += [f"{what}: white {x}" for x in white]
    problems += [f"{what}: {x}" for x in root.evaluate(TEXT_CUT_DRAWN)]


def _all_views(page, theme: str, tag: str) -> list[str]:
    """Every Stepper tab and every standalone view in ``theme``: the problems found."""
    problems: list[str] = []
    stepper = page.locator(".pfk-stepper[data-pfk-driven]")
    page.wait_for_function(
        f"() => document.querySelector('.pfk-stepper[data-pfk-driven]').dataset.pfkTheme === '{theme}'",
        timeout=30000,
    )
    for tab in TABS:
        stepper.locator(f"button.pfk-tab-{tab}").click()
        page.wait_for_timeout(250)
        _check(page, stepper, f"{theme} stepper {tab}", problems, 20, theme != "light")
        if tab == "timeline" and not stepper.locator(".pfk-tl-completed text").count():
            problems.append(f"{theme}: the timeline has no completed-checkpoint marker")
        if tab in ("sequence", "timeline", "checkpoints"):
            page.screenshot(path=str(SHOTS / f"themes_{tag}_stepper_{tab}.png"))
    for selector, name, index in VIEWS:
        view = page.locator(selector).nth(index)
        _check(page, view, f"{theme} {name}", problems, 3, theme != "light")
        page.screenshot(path=str(SHOTS / f"themes_{tag}_{name}.png"))
    return problems


@contextmanager
def _stepper_page(server: Any, nb: str) -> Iterator[tuple[Any, Any]]:
    """Notebook ``nb`` opened at 1280x800 in the server's front end and run; its last Stepper
    marked as the one the test drives: ``(page, stepper)``."""
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
            watch_console(page)
            path = f"notebooks/{nb}?" if server.app == "notebook" else f"lab/tree/{nb}?reset&"
            page.goto(f"{server.url}/{path}token={TOKEN}")
            _run_all(server, page, nb)
            _ran(page)
            page.locator(".pfk-stepper").last.evaluate("e => (e.dataset.pfkDriven = '1')")
            yield page, page.locator(".pfk-stepper[data-pfk-driven]")
        finally:
            browser.close()


def test_dark_and_high_contrast_themes_reach_every_view(front):
    """Notebook 7, then JupyterLab: the reader switches the theme, every view follows."""
    server = front
    app = "nb7" if server.app == "notebook" else "lab"
    nb = _themes_notebook(server.root)
    with _stepper_page(server, nb) as (page, stepper):
        # the checkpoint completes: the Timeline gets its ✓ marker
        stepper.locator("select.pfk-run-to").select_option("checkpoint")
        before = stepper.locator(".pfk-step-no").inner_text()
        stepper.locator("button.pfk-run-to-btn").click()
        page.wait_for_function(
            "b => document.querySelector('.pfk-stepper[data-pfk-driven] .pfk-step-no')"
            ".textContent !== b",
            arg=before,
            timeout=60000,
        )
        for view, _name, index in VIEWS:  # every view drawn, in the light theme first
            page.locator(view).nth(index).wait_for(timeout=30000)
        light = _all_views(page, "light", f"{app}_light")
        assert light == [], "\n".join(light)
        problems = []
        for theme, name in (
            ("dark", "JupyterLab Dark"),
            ("high-contrast", "JupyterLab Dark High Contrast"),
        ):
            _lab_theme(page, name)
            problems += _all_views(page, theme, f"{app}_{theme}")
        _lab_theme(page, "JupyterLab Light")
        page.wait_for_function(
            "() => document.querySelector('.pfk-stepper[data-pfk-driven]').dataset.pfkTheme === 'light'",
            timeout=30000,
        )
        problems += [f"console: {e}" for e in page.pfk_errors if not _notebook7_own(e)]
        assert problems == [], "\n".join(problems)


#: Notebook 05 cut to its checkpointed restart (code cells 0-6, 17-19): the last Stepper has
#: failed a subtask, restarted and restored from checkpoint 1.
RESTORE_CELLS = [*range(0, 7), 17, 18, 19]


def _restore_notebook(root: Path) -> str:
    return _notebook_upto(
        root, "05_failure_and_recovery.ipynb", RESTORE_CELLS, "05_failure_and_recovery_themes.ipynb"
    )


def test_failure_restore_metrics_and_presenter_follow_the_dark_themes(front):
    """Notebook 05's restored Stepper in Dark and Dark High Contrast: the Timeline's failure,
    restart and restore markers, the Exceptions tab, the metrics strip on the graph and presenter
    mode: no visible text under 4.5:1, no white pane."""
    server = front
    app = "nb7" if server.app == "notebook" else "lab"
    nb = _restore_notebook(server.root)
    with _stepper_page(server, nb) as (page, stepper):
        problems: list[str] = []
        for theme, name in (
            ("dark", "JupyterLab Dark"),
            ("high-contrast", "JupyterLab Dark High Contrast"),
        ):
            _lab_theme(page, name)
            page.wait_for_function(
                "t => document.querySelector('.pfk-stepper[data-pfk-driven]')"
                ".dataset.pfkTheme === t",
                arg=theme,
                timeout=30000,
            )
            for tab in ("timeline", "exceptions"):
                stepper.locator(f"button.pfk-tab-{tab}").click()
                page.wait_for_timeout(250)
                _check(page, stepper, f"{theme} restored {tab}", problems, 20, True)
                page.screenshot(path=str(SHOTS / f"themes_{app}_{theme}_restored_{tab}.png"))
            for kind in ("restored", "completed"):
                if not stepper.locator(f".pfk-tl-{kind} text").count():
                    problems.append(f"{theme}: no {kind} marker on the timeline")
            # the metrics strip on the graph (numRecordsIn/Out, back pressure)
            stepper.locator("button.pfk-metrics-btn").click()
            stepper.locator("g.pfk-metrics-svg").first.wait_for(timeout=30000)
            _check(page, stepper, f"{theme} metrics", problems, 20, True)
            page.screenshot(path=str(SHOTS / f"themes_{app}_{theme}_metrics.png"))
            stepper.locator("button.pfk-metrics-btn").click()
            # presenter mode: the whole window in the theme
            stepper.locator("button.pfk-present").click()
            page.wait_for_function(
                "e => e.classList.contains('pfk-presenting')",
                arg=stepper.element_handle(),
                timeout=30000,
            )
            page.wait_for_timeout(300)
            seen = stepper.evaluate(LOW_CONTRAST)
            problems += [f"{theme} presenter: low contrast {x}" for x in seen["low"]]
            problems += [f"{theme} presenter: white {x}" for x in stepper.evaluate(WHITE_PANES)]
            problems += [f"{theme} presenter: {x}" for x in stepper.evaluate(TEXT_CUT_DRAWN)]
            page.screenshot(path=str(SHOTS / f"themes_{app}_{theme}_presenter.png"))
            page.keyboard.press("Escape")
            page.wait_for_function(
                "e => !e.classList.contains('pfk-presenting')",
                arg=stepper.element_handle(),
                timeout=10000,
            )
        _lab_theme(page, "JupyterLab Light")
        problems += [f"console: {e}" for e in page.pfk_errors if not _notebook7_own(e)]
        assert problems == [], "\n".join(problems)


def test_back_pressure_metrics_and_buffer_gauges_follow_the_dark_themes(front):
    """Notebook 09's Stepper with back pressure HIGH at Map and full channels (code cells 0-4):
    the metrics strips, back-pressure chips and buffer gauges in Dark and Dark High Contrast."""
    server = front
    app = "nb7" if server.app == "notebook" else "lab"
    nb = _notebook_upto(
        server.root, "09_back_pressure.ipynb", list(range(0, 5)), "09_back_pressure_themes.ipynb"
    )
    with _stepper_page(server, nb) as (page, stepper):
        stepper.locator("g.pfk-gauge-full").first.wait_for(timeout=30000)
        problems: list[str] = []
        for theme, name in (
            ("dark", "JupyterLab Dark"),
            ("high-contrast", "JupyterLab Dark High Contrast"),
        ):
            _lab_theme(page, name)
            page.wait_for_function(
                "t => document.querySelector('.pfk-stepper[data-pfk-driven]')"
                ".dataset.pfkTheme === t",
                arg=theme,
                timeout=30000,
            )
            _check(page, stepper, f"{theme} back pressure", problems, 20, True)
            page.screenshot(path=str(SHOTS / f"themes_{app}_{theme}_back_pressure.png"))
        _lab_theme(page, "JupyterLab Light")
        problems += [f"console: {e}" for e in page.pfk_errors if not _notebook7_own(e)]
        assert problems == [], "\n".join(problems)
