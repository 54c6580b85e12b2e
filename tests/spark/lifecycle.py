"""A map function that records its lifecycle, for tests of how a host opens, closes and
disposes the functions of its subtasks."""

from __future__ import annotations

from typing import Any, ClassVar

from pyflowkit.datastream.functions import MapFunction


class Tracked(MapFunction):
    """Records open/close calls of every copy in ``calls`` (clear it first); raises on
    ``fail_on``."""

    calls: ClassVar[list[str]] = []

    def __init__(self, fail_on: int | None = None) -> None:
        self.fail_on = fail_on

    def open(self, runtime_context: Any) -> None:
        Tracked.calls.append("open")

    def map(self, value: int) -> int:
        if value == self.fail_on:
            raise ValueError(f"bad value {value}")
        return value

    def close(self) -> None:
        Tracked.calls.append("close")
