"""pyflowkit: Flink 1.11's runtime in Jupyter (a PyFlink-shaped DataStream API, Flink's graph
compiler, a simulated MiniCluster and a Spark executor).

The main API names are re-exported lazily, so ``import pyflowkit`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "StreamExecutionEnvironment": "pyflowkit.datastream",
    "DataStream": "pyflowkit.datastream",
    "KeyedStream": "pyflowkit.datastream",
    "WindowedStream": "pyflowkit.datastream",
    "AllWindowedStream": "pyflowkit.datastream",
    "ConnectedStreams": "pyflowkit.datastream",
    "DataStreamSink": "pyflowkit.datastream",
    "OutputTag": "pyflowkit.datastream",
    "RuntimeExecutionMode": "pyflowkit.datastream",
    "CheckpointingMode": "pyflowkit.datastream",
    "TimeCharacteristic": "pyflowkit.datastream",
    "CheckpointConfig": "pyflowkit.datastream",
    "capture_environments": "pyflowkit.datastream.environment_capture",
    "Types": "pyflowkit.common",
    "Row": "pyflowkit.common",
    "RowKind": "pyflowkit.common",
    "Duration": "pyflowkit.common",
    "Time": "pyflowkit.common",
    "WatermarkStrategy": "pyflowkit.common",
    "TimestampAssigner": "pyflowkit.common",
    "Configuration": "pyflowkit.common",
    "RestartStrategies": "pyflowkit.common",
    "JobExecutionResult": "pyflowkit.common",
    "compare_versions": "pyflowkit.runtime.version_comparison",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pyflowkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = ["__version__", *_EXPORTS]


def _install_display_hook() -> None:
    """Graphs reach the render layer only through the hook it registers (cheap: export loads
    on first use)."""
    from pyflowkit.render.display_hook import install

    install()


_install_display_hook()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext pyflowkit`` (lazy: IPython is imported only here)."""
    from pyflowkit.notebook.extension import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext pyflowkit``."""
    from pyflowkit.notebook.extension import unload_ipython_extension as unload

    unload(ipython)
