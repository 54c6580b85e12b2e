"""PyFlink's ``pyflink.datastream.connectors.hybrid_source``: ``HybridSource`` and its builder."""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.connectors.base import Source
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators import hybrid_source as _hybrid

__all__ = ["HybridSource", "HybridSourceBuilder"]


def _checked(source: Any, where: str) -> Any:
    if not callable(getattr(source, "create_reader", None)):
        raise IllegalArgumentException(
            f"HybridSource.{where} needs a Source (e.g. a FileSource or NumberSequenceSource), "
            f"got {source!r}."
        )
    return source


class HybridSource(_hybrid.HybridSource, Source):
    """PyFlink's ``HybridSource`` (Flink's): switches from one source to the next when it is
    read, e.g. a file history, then a live source."""

    @staticmethod
    def builder(first_source: Source) -> HybridSourceBuilder:
        return HybridSourceBuilder(_checked(first_source, "builder(first_source)"))


class HybridSourceBuilder:
    """PyFlink's ``HybridSourceBuilder``: the sources in reading order."""

    def __init__(self, first_source: Any) -> None:
        self._sources = [first_source]

    def add_source(self, source: Source) -> HybridSourceBuilder:
        self._sources.append(_checked(source, "add_source(source)"))
        return self

    def build(self) -> HybridSource:
        return HybridSource(self._sources)
