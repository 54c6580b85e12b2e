"""PyFlink's ``pyflink.datastream``: the DataStream API.

The function, state, window and connector classes live in modules written alongside
(``functions``, ``state``, ``window``, ``connectors``) and are re-exported lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

from pyflowkit.datastream.checkpoint_config import CheckpointConfig, ExternalizedCheckpointCleanup
from pyflowkit.datastream.checkpointing_mode import CheckpointingMode
from pyflowkit.datastream.connected_streams import ConnectedStreams
from pyflowkit.datastream.data_stream import CloseableIterator, DataStream, DataStreamSink
from pyflowkit.datastream.execution_mode import RuntimeExecutionMode
from pyflowkit.datastream.keyed_stream import KeyedStream
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.datastream.stream_execution_environment import StreamExecutionEnvironment
from pyflowkit.datastream.time_characteristic import TimeCharacteristic
from pyflowkit.datastream.windowed_stream import AllWindowedStream, WindowedStream

_LAZY_MODULES = (
    "pyflowkit.datastream.functions",
    "pyflowkit.datastream.window",
    "pyflowkit.datastream.state",
)


def __getattr__(name: str) -> Any:
    """PyFlink re-exports function/window/state classes here; resolve them on first use."""
    if name.startswith("_"):
        raise AttributeError(name)
    for module_name in _LAZY_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:
                continue
            raise
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module 'pyflowkit.datastream' has no attribute {name!r}")


__all__ = [
    "AllWindowedStream",
    "CheckpointConfig",
    "CheckpointingMode",
    "CloseableIterator",
    "ConnectedStreams",
    "DataStream",
    "DataStreamSink",
    "ExternalizedCheckpointCleanup",
    "KeyedStream",
    "OutputTag",
    "RuntimeExecutionMode",
    "StreamExecutionEnvironment",
    "TimeCharacteristic",
    "WindowedStream",
]
