"""pyflowkit against real PyFlink: every golden recorded by ``tools/record_pyflink_goldens.py``.

Each golden holds what PyFlink 1.20 printed (or collected) for one pipeline in one runtime mode. The
same program runs here on pyflowkit (the import changed from ``pyflink`` to ``pyflowkit``) on the
simulated MiniCluster, and the print-sink programs and examples also on Spark; the outputs must be
equal under the golden's comparison (``exact`` where Flink defines the order). No JVM for PyFlink
is needed: the goldens are committed files.

Known differences are strict xfails naming the difference: whoever fixes one must remove it here.
"""

from __future__ import annotations

import json
import re
import types
from pathlib import Path
from typing import Any

import pytest

from tests.goldens.cases import ROOT

GOLDENS = Path(__file__).resolve().parent / "pyflink"
PYFLINK_IMPORT = re.compile(r"\bpyflink\b")
SINK_PREFIX = re.compile(r"^([\w\- ]*(?::\d+)?)> ")
SUBTASK_PREFIX = re.compile(r"^([^:>]*?)(?::\d+|(?<![^\s])\d+)> ")

# (golden id, target) → the difference, as expected vs actual. Target "*" means every target.
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {}


def load_goldens() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(GOLDENS.glob("*.json"))]


GOLDEN_LIST = load_goldens()
RUNNABLE = [g for g in GOLDEN_LIST if not g["error"]]


def to_pyflowkit(source: str) -> str:
    """The PyFlink program with its import changed to ``pyflowkit`` (the project's promise)."""
    return PYFLINK_IMPORT.sub("pyflowkit", source)


def load_program(source: str) -> types.ModuleType:
    """The program as a module that is not in ``sys.modules`` (so Spark pickles it by value)."""
    path = ROOT / source
    module = types.ModuleType(f"golden_program_{path.stem}")
    module.__file__ = str(path)
    exec(compile(to_pyflowkit(path.read_text()), str(path), "exec"), module.__dict__)
    return module


def entry_of(golden: dict[str, Any]) -> Any:
    if golden["entry"].startswith("catalog:"):
        from tests.pipelines.catalog import BY_NAME

        return BY_NAME[golden["entry"].split(":", 1)[1]].build
    if golden["source"].startswith("pyflowkit/examples/"):
        import importlib

        name = Path(golden["source"]).stem
        return getattr(importlib.import_module(f"pyflowkit.examples.{name}"), golden["entry"])
    return getattr(load_program(golden["source"]), golden["entry"])


def new_env(golden: dict[str, Any], target: str) -> Any:
    from pyflowkit.common import Configuration
    from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string("execution.target", target)
    )
    if golden["mode"] == "BATCH":
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    return env


def run_on_pyflowkit(golden: dict[str, Any], target: str, spark: Any = None) -> list[str]:
    entry = entry_of(golden)
    env = new_env(golden, target)
    if golden["kind"] == "collect":
        return [repr(v) for v in entry(env)]
    entry(env)
    if target == "spark":
        from pyflowkit.spark.executor import execute

        return execute(env, golden["id"], spark=spark, print_output=False).print_lines
    from pyflowkit.runtime import MiniCluster

    run = MiniCluster(echo_print=False).submit(env).run()
    run.raise_if_failed()
    return run.printed()


def by_sink(lines: list[str]) -> dict[str, list[str]]:
    """Lines per print sink (and subtask): Flink orders each sink's lines, not sinks' interleaving."""
    out: dict[str, list[str]] = {}
    for line in lines:
        match = SINK_PREFIX.match(line)
        out.setdefault(match.group(1) if match else "", []).append(line)
    return out


def normalized(lines: list[str], compare: str) -> Any:
    if compare == "exact":
        return by_sink(lines)
    if compare == "sorted":
        return sorted(lines)
    assert compare == "sorted_no_subtask", compare
    return sorted(SUBTASK_PREFIX.sub(r"\1> ", line) for line in lines)


def assert_matches(golden: dict[str, Any], actual: list[str]) -> None:
    expected = normalized(golden["lines"], golden["compare"])
    got = normalized(actual, golden["compare"])
    flat_expected, flat_got = normalized(golden["lines"], "sorted"), normalized(actual, "sorted")
    missing = [x for x in flat_expected if x not in flat_got]
    extra = [x for x in flat_got if x not in flat_expected]
    assert got == expected, (
        f"{golden['id']} differs from PyFlink {golden['pyflink_version']} "
        f"({golden['compare']}):\n  PyFlink:   {expected}\n  pyflowkit: {got}\n"
        f"  only in PyFlink: {missing}\n  only in pyflowkit: {extra}"
    )


def params(goldens: list[dict[str, Any]], target: str) -> list[Any]:
    out = []
    for g in goldens:
        reason = KNOWN_DIFFERENCES.get((g["id"], target)) or KNOWN_DIFFERENCES.get((g["id"], "*"))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(g, marks=marks, id=g["id"]))
    return out


SPARK_SUBSET = [g for g in RUNNABLE if g["kind"] == "print" and not g["id"].startswith("catalog__")]


def test_goldens_recorded() -> None:
    from tests.goldens.cases import all_cases

    recorded = {g["id"] for g in GOLDEN_LIST}
    assert {c["id"] for c in all_cases()} <= recorded, "re-run tools/record_pyflink_goldens.py"
    assert {g["pyflink_version"] for g in GOLDEN_LIST} == {"1.20.3"}


@pytest.mark.parametrize("golden", params(RUNNABLE, "local"))
def test_local_cluster_matches_pyflink(golden: dict[str, Any]) -> None:
    assert_matches(golden, run_on_pyflowkit(golden, "local"))


@pytest.mark.parametrize("golden", params(SPARK_SUBSET, "spark"))
def test_spark_matches_pyflink(spark: Any, golden: dict[str, Any]) -> None:
    assert_matches(golden, run_on_pyflowkit(golden, "spark", spark))


@pytest.mark.parametrize("golden", [g for g in GOLDEN_LIST if g["error"]], ids=lambda g: g["id"])
def test_pipelines_pyflink_refuses_are_explained(golden: dict[str, Any]) -> None:
    """PyFlink 1.20 cannot run these (1.11 features pyflowkit keeps); each golden says why."""
    assert golden["notes"], f"{golden['id']}: PyFlink refused it; the golden must say why"
