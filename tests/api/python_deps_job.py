"""Functions that use a job's Python dependencies (importable on Spark's workers)."""

from __future__ import annotations

import importlib
from typing import Any

from pyflowkit.datastream import MapFunction


class ImportingMap(MapFunction):
    """Imports ``module`` (shipped with ``add_python_file``) and applies its ``transform``."""

    def __init__(self, module: str) -> None:
        self.module = module

    def map(self, value: str) -> str:
        return importlib.import_module(self.module).transform(value)


class CachedFileMap(MapFunction):
    """Prefixes each value with the first line of the cached file ``name``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def open(self, runtime_context: Any) -> None:
        path = runtime_context.get_distributed_cache().get_file(self.name)
        with open(path, encoding="UTF-8") as f:
            self.prefix = f.readline().strip()

    def map(self, value: str) -> str:
        return f"{self.prefix}:{value}"
