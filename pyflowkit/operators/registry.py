"""Flink operator class name → pyflowkit operator class: where operators are created.

Operator modules register themselves with ``register_operator``; the built-in modules are
imported on first lookup. The windows engineer's module registers ``WindowOperator`` and
``EvictingWindowOperator`` (listed in ``_BUILTIN_MODULES``).
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from pyflowkit.operators.user_code_copy import copy_user_code

_REGISTRY: dict[str, type] = {}
_BUILTIN_MODULES = (
    "pyflowkit.operators.stream_source",
    "pyflowkit.operators.simple",
    "pyflowkit.operators.process",
    "pyflowkit.operators.co_broadcast",
    "pyflowkit.operators.grouped_reduce",
    "pyflowkit.operators.batch_grouped_reduce",
    "pyflowkit.operators.timestamps_watermarks",
    "pyflowkit.operators.co_operators",
    "pyflowkit.operators.sinks",
    "pyflowkit.operators.window_operator",
    "pyflowkit.operators.source_operator",
    "pyflowkit.operators.sink_operators",
    "pyflowkit.operators.cep.cep_operator",
)
_loaded = False
_load_lock = threading.RLock()  # reentrant: a built-in module may look an operator up on import


def register_operator(name: str, cls: type) -> type:
    """Register ``cls`` under Flink's operator class name ``name``."""
    _REGISTRY[name] = cls
    return cls


def _load_builtins() -> None:
    """Import every built-in operator module once; a thread arriving meanwhile waits for it.

    ``_loaded`` turns True only after the last import, so no thread (the Spark warm-up started by
    ``%load_ext pyflowkit`` beside the user's first run) ever looks up a half-filled registry.
    """
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        for module in _BUILTIN_MODULES:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:  # a module not written yet (windows in progress)
                if exc.name != module:
                    raise
        _loaded = True


def operator_class(name: str) -> type:
    _load_builtins()
    cls = _REGISTRY.get(name)
    if cls is None:
        raise KeyError(
            f"No operator registered for Flink operator class '{name}'. Known: "
            f"{', '.join(sorted(_REGISTRY))}."
        )
    return cls


def create_operator(factory: Any) -> Any:
    """``StreamOperatorFactory.createStreamOperator``: a fresh operator for one subtask.

    As Flink deserialises the factory per subtask and attempt, every operator gets private
    copies of the user function(s) and sources (``user_code_copy.copy_user_code``).
    """
    return operator_class(factory.operator_class).from_params(copy_user_code(factory.params))


def registered_operators() -> list[str]:
    _load_builtins()
    return sorted(_REGISTRY)
