"""Lazy registries and caches reached by two threads at once (issue 26, "tests run what users run").

``%load_ext pyflowkit`` starts the Spark warm-up on a background thread; the user's first
``%pipeline run`` looks operators up on the main thread at the same moment. Each case starts the
same lookup from several threads behind one barrier, in a fresh interpreter (so nothing is loaded
yet) and with the built-in imports slowed down (so the old code's window, ``_loaded`` set before
the imports finished, is wide open on every run).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO_ROOT

THREADS = 6

# Each program prints one JSON line: what every thread got (or the error it raised).
_PREAMBLE = textwrap.dedent(
    f"""
    import json, threading, time, types
    barrier = threading.Barrier({THREADS})
    results = [None] * {THREADS}

    def race(fn):
        def worker(i):
            barrier.wait()
            try:
                results[i] = fn()
            except Exception as exc:
                results[i] = f"{{type(exc).__name__}}: {{exc}}"
        threads = [threading.Thread(target=worker, args=(i,)) for i in range({THREADS})]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        print(json.dumps(results))
    """
)

_SLOW_IMPORTS = textwrap.dedent(
    """
    import importlib
    from pyflowkit.operators import registry
    def slow_import(name):
        time.sleep(0.02)  # a cold import of a real operator module takes milliseconds too
        return importlib.import_module(name)
    registry.importlib = types.SimpleNamespace(import_module=slow_import)
    """
)

CASES = [
    pytest.param(
        _SLOW_IMPORTS + "race(lambda: registry.operator_class('StreamSource').__name__)",
        lambda got: got == ["StreamSource"] * THREADS,
        id="operator_class-StreamSource",
    ),
    pytest.param(
        _SLOW_IMPORTS + "race(lambda: registry.operator_class('CepOperator').__name__)",
        lambda got: got == ["CepOperator"] * THREADS,
        id="operator_class-last-builtin-module",
    ),
    pytest.param(
        _SLOW_IMPORTS + "race(lambda: len(registry.registered_operators()))",
        lambda got: len(set(got)) == 1 and isinstance(got[0], int) and got[0] > 10,
        id="registered_operators-complete",
    ),
]


def _run(program: str) -> list:
    done = subprocess.run(
        [sys.executable, "-c", _PREAMBLE + program],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(("program", "ok"), CASES)
def test_concurrent_first_lookups_see_the_whole_registry(program: str, ok) -> None:
    got = _run(program)
    assert ok(got), got


def test_lazily_built_spark_classes_are_one_class_for_every_thread() -> None:
    """The streaming DataSource class (registered on the session by name): one class for all."""
    pytest.importorskip("pyspark")
    got = _run(
        textwrap.dedent(
            """
            from pyflowkit.spark import streaming_source
            race(lambda: id(streaming_source.data_source_class()))
            """
        )
    )
    assert len(set(got)) == 1, got
