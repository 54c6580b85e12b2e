"""pyflowkit in Jupyter: the ``%%pipeline`` magics and the widgets (GraphView, Stepper, SparkProgress).

Importing this package is light; IPython and anywidget are imported by the modules that need them.
"""

from __future__ import annotations

import importlib
from typing import Any

from pyflowkit.notebook.extension import load_ipython_extension, unload_ipython_extension

_EXPORTS = {
    "GraphView": "pyflowkit.notebook.graph_view",
    "Stepper": "pyflowkit.notebook.stepper",
    "SparkProgressView": "pyflowkit.notebook.spark_progress",
    "PipelineView": "pyflowkit.notebook.pipeline_view",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pyflowkit.notebook' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = ["load_ipython_extension", "unload_ipython_extension", *_EXPORTS]
