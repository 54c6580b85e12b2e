"""PyFlink's ``pyflink.datastream``: the DataStream API.

Every name is re-exported lazily: importing a module of this package (e.g. ``functions``, which
the operators implement) does not load the environment, the streams or the graph compiler.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "AllWindowedStream": "pyflowkit.datastream.windowed_stream",
    "BroadcastConnectedStream": "pyflowkit.datastream.broadcast_stream",
    "BroadcastStream": "pyflowkit.datastream.broadcast_stream",
    "CheckpointConfig": "pyflowkit.datastream.checkpoint_config",
    "CheckpointStorage": "pyflowkit.datastream.checkpoint_storage",
    "CheckpointingMode": "pyflowkit.datastream.checkpointing_mode",
    "CloseableIterator": "pyflowkit.datastream.data_stream",
    "ConnectedStreams": "pyflowkit.datastream.connected_streams",
    "CustomCheckpointStorage": "pyflowkit.datastream.checkpoint_storage",
    "CustomStateBackend": "pyflowkit.datastream.state_backend",
    "DataStream": "pyflowkit.datastream.data_stream",
    "DataStreamSink": "pyflowkit.datastream.data_stream",
    "EmbeddedRocksDBStateBackend": "pyflowkit.datastream.state_backend",
    "ExternalizedCheckpointCleanup": "pyflowkit.datastream.checkpoint_config",
    "ExternalizedCheckpointRetention": "pyflowkit.datastream.externalized_checkpoint_retention",
    "FileSystemCheckpointStorage": "pyflowkit.datastream.checkpoint_storage",
    "FsStateBackend": "pyflowkit.datastream.state_backend",
    "HashMapStateBackend": "pyflowkit.datastream.state_backend",
    "JobManagerCheckpointStorage": "pyflowkit.datastream.checkpoint_storage",
    "KeyedStream": "pyflowkit.datastream.keyed_stream",
    "MemorySize": "pyflowkit.datastream.slot_sharing_group",
    "MemoryStateBackend": "pyflowkit.datastream.state_backend",
    "OutputTag": "pyflowkit.datastream.output_tag",
    "PredefinedOptions": "pyflowkit.datastream.state_backend",
    "RocksDBStateBackend": "pyflowkit.datastream.state_backend",
    "RuntimeExecutionMode": "pyflowkit.datastream.execution_mode",
    "SlotSharingGroup": "pyflowkit.datastream.slot_sharing_group",
    "StateBackend": "pyflowkit.datastream.state_backend",
    "StreamExecutionEnvironment": "pyflowkit.datastream.stream_execution_environment",
    "TimeCharacteristic": "pyflowkit.datastream.time_characteristic",
    "WindowedStream": "pyflowkit.datastream.windowed_stream",
}
# PyFlink also re-exports the function, window and state classes from pyflink.datastream
_LAZY_MODULES = (
    "pyflowkit.datastream.functions",
    "pyflowkit.datastream.window",
    "pyflowkit.datastream.state",
)


def __getattr__(name: str) -> Any:
    """Resolve a re-exported name on first use (then cache it in the module)."""
    if name.startswith("_"):
        raise AttributeError(name)
    module_name = _EXPORTS.get(name)
    if module_name is not None:
        value = getattr(importlib.import_module(module_name), name)
        globals()[name] = value
        return value
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


def __dir__() -> list[str]:
    return sorted(list(globals()) + list(_EXPORTS))


__all__ = sorted(_EXPORTS)
