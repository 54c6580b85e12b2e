"""Flink's ``DistributedCache``: files registered with ``register_cached_file``, by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pyflowkit.errors import IllegalArgumentException


class DistributedCache:
    """Flink's ``DistributedCache`` as a task sees it: ``get_file(name)`` is a local path.

    ``resolve(name, path)`` turns a registered path into where this host put the file (the path
    itself in this process; ``SparkFiles.get`` on a Spark executor).
    """

    def __init__(
        self,
        files: Mapping[str, tuple[str, bool]],
        resolve: Callable[[str, str], str] | None = None,
    ) -> None:
        self._files = dict(files)
        self._resolve = resolve

    def get_file(self, name: str) -> str:
        entry = self._files.get(name)
        if entry is None:
            raise IllegalArgumentException(
                f"File with name '{name}' is not available. Did you forget to register the file? "
                f"(registered: {sorted(self._files)})"
            )
        path = entry[0]
        return self._resolve(name, path) if self._resolve is not None else path
