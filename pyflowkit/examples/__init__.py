"""Bundled example pipelines: the jobs ``pyflowkit demo`` compiles, draws (and later runs).

Each example module defines ``JOB_NAME``, ``build(env)`` (adds the pipeline to a
``StreamExecutionEnvironment``), ``expected_output()`` (the sink's records computed in plain
Python) and runs as a script (``python -m pyflowkit.examples.word_count``) or through
``pyflowkit graph pyflowkit/examples/word_count.py``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: The demo's examples, in the order it shows them.
EXAMPLES: tuple[str, ...] = ("alerts_geohash", "word_count")


def load_example(name: str) -> ModuleType:
    """The example module ``pyflowkit.examples.<name>``."""
    if name not in EXAMPLES:
        raise ValueError(f"unknown example {name!r}: expected one of {', '.join(EXAMPLES)}")
    return importlib.import_module(f"pyflowkit.examples.{name}")
