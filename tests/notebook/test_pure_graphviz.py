"""The notebook views on a pip-only install: no system ``dot``, layout by ``graphviz-pure``.

A fresh interpreter runs with ``PATH`` holding only the venv's scripts (so ``dot`` cannot be found)
and ``PYFLOWKIT_GRAPHVIZ_ENGINE=graphviz-pure``; it renders GraphView's and the Stepper's static
fallbacks and a ``%%pipeline`` cell, and reports the SVGs back as JSON.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from pyflowkit.render.graphviz_backend import ENGINE_ENV_VAR, ENGINE_PURE
from pyflowkit.render.palette import STATE_PALETTE

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(sysconfig.get_path("scripts"))
PURE = next(
    (p for p in (SCRIPTS / ENGINE_PURE, Path(sys.executable).parent / ENGINE_PURE) if p.exists()),
    None,
)

SCRIPT = r"""
import json, shutil
from IPython.testing.globalipapp import get_ipython
from IPython.utils.capture import capture_output

from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.notebook.graph_view import GraphView
from pyflowkit.notebook.stepper import Stepper
from pyflowkit.render.graphviz_backend import which_engine


def bundle(widget):
    b = widget._repr_mimebundle_()
    return b[0] if isinstance(b, tuple) else b


env = StreamExecutionEnvironment.get_execution_environment()
env.set_parallelism(2)
env.from_collection(["a b", "b c"]).flat_map(lambda l: l.split()).key_by(lambda w: w).reduce(
    lambda a, b: a + b).print()
job_graph = env.get_job_graph()
view = GraphView(job_graph)
view.set_states({f"jv_{job_graph.vertices[0].id}": "RUNNING"})
stepper = Stepper(env, submit=True)
while "RUNNING" not in stepper.states.values():
    stepper.step()

shell = get_ipython()
shell.run_line_magic("load_ext", "pyflowkit")
with capture_output() as cap:
    shell.run_cell("%%pipeline p\nenv.set_parallelism(2)\ns = env.from_collection([1, 2])\n")
    result = shell.run_cell("%%pipeline p\ns.map(lambda x: x + 1).print()\n")
assert result.error_in_exec is None, result.error_in_exec
cell_svgs = [o.data["image/svg+xml"] for o in cap.outputs if "image/svg+xml" in o.data]

print(json.dumps({
    "which_dot": shutil.which("dot"),
    "engine": which_engine(),
    "vertex_ids": [v.id for v in job_graph.vertices],
    "parallelism": [v.parallelism for v in job_graph.vertices],
    "graph_view": bundle(view)["image/svg+xml"],
    "stepper": bundle(stepper)["image/svg+xml"],
    "stepper_html": bundle(stepper)["text/html"],
    "stepper_states": stepper.states,
    "cell": cell_svgs,
    "stream_ids": sorted(shell.user_ns["env"].get_stream_graph().nodes),
}))
"""


@pytest.fixture(scope="module")
def pure_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if PURE is None:
        pytest.skip("graphviz-pure is not installed (pip install graphviz-pure)")
    env = {
        **os.environ,
        "PATH": str(PURE.parent),  # the venv's scripts only: no system `dot`
        ENGINE_ENV_VAR: ENGINE_PURE,
        "PYTHONPATH": str(REPO_ROOT),
        "IPYTHONDIR": str(tmp_path_factory.mktemp("ipython")),
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def group_ids(svg: str) -> set[str]:
    return set(re.findall(r'<g id="([^"]+)"', svg))


def test_the_subprocess_had_no_system_dot(pure_run: dict):
    assert pure_run["which_dot"] is None
    assert pure_run["engine"] == ENGINE_PURE


def test_graph_view_static_svg_has_the_stable_job_vertex_ids(pure_run: dict):
    svg = pure_run["graph_view"]
    assert svg.lstrip().startswith(("<?xml", "<svg", "<!DOCTYPE"))
    ids = group_ids(svg)
    assert {f"jv_{v}" for v in pure_run["vertex_ids"]} <= ids
    first = pure_run["vertex_ids"][0]
    running = STATE_PALETTE["RUNNING"]
    assert f"#jv_{first} > polygon" in svg and running in svg  # RUNNING baked in


def test_stepper_static_svg_has_the_stable_subtask_ids_and_colours(pure_run: dict):
    svg = pure_run["stepper"]
    ids = group_ids(svg)
    vertices = zip(pure_run["vertex_ids"], pure_run["parallelism"], strict=True)
    expected = {f"ev_{v}_{i}" for v, p in vertices for i in range(p)}
    assert len(expected) == 5 and expected <= ids
    running = [k for k, s in pure_run["stepper_states"].items() if s == "RUNNING"]
    assert running and all(f"#{k} > polygon" in svg for k in running)
    html = pure_run["stepper_html"]
    assert "JobStatus: RUNNING" in html and "<svg" in html


def test_pipeline_cell_svg_marks_the_added_stream_nodes(pure_run: dict):
    assert len(pure_run["cell"]) == 1  # the first cell (a lone source) has nothing to draw
    svg = pure_run["cell"][0]
    source, map_, sink = pure_run["stream_ids"]
    assert {f"sn_{source}", f"sn_{map_}", f"sn_{sink}"} <= group_ids(svg)
    added = set(re.findall(r'<g id="([^"]+)" class="[^"]*pfk-added"', svg))
    assert {f"sn_{map_}", f"sn_{sink}"} <= added and f"sn_{source}" not in added
    assert f"se_{source}_{map_}_0" in added
