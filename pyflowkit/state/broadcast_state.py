"""Broadcast state: a map each subtask holds a copy of (Flink's ``HeapBroadcastState``).

The broadcast side writes it (``BroadcastState``); the non-broadcast side reads it through
``ReadOnlyView`` (``ReadOnlyBroadcastState``), whose writes are refused naming the operator.
Snapshots are ``[[key, value], …]`` in insertion order, mode ``BROADCAST``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from pyflowkit.datastream.state import BroadcastState, ReadOnlyBroadcastState
from pyflowkit.errors import UnsupportedOperationException


class HeapBroadcastState(BroadcastState):
    """Flink's ``HeapBroadcastState``: a plain map, copied into every snapshot."""

    def __init__(self, descriptor: Any) -> None:
        self.descriptor = descriptor
        self.entries: dict[Any, Any] = {}

    def get(self, key: Any) -> Any:
        return self.entries.get(key)

    def contains(self, key: Any) -> bool:
        return key in self.entries

    def items(self) -> list[tuple[Any, Any]]:
        return list(self.entries.items())

    def keys(self) -> list[Any]:
        return list(self.entries)

    def values(self) -> list[Any]:
        return list(self.entries.values())

    def is_empty(self) -> bool:
        return not self.entries

    def put(self, key: Any, value: Any) -> None:
        self.entries[key] = value

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        self.entries.update(dict_value)

    def remove(self, key: Any) -> None:
        self.entries.pop(key, None)

    def clear(self) -> None:
        self.entries.clear()

    def snapshot(self) -> list[list[Any]]:
        return [[copy.deepcopy(k), copy.deepcopy(v)] for k, v in self.entries.items()]

    def restore(self, entries: Iterable[list[Any]]) -> None:
        self.entries = {_hashable(k): v for k, v in entries}


def _hashable(key: Any) -> Any:
    return tuple(_hashable(k) for k in key) if isinstance(key, list) else key


class ReadOnlyView(ReadOnlyBroadcastState):
    """``ReadOnlyBroadcastState`` over a broadcast state; writes raise an error."""

    def __init__(self, state: HeapBroadcastState, operator: str) -> None:
        self._state = state
        self._operator = operator

    def get(self, key: Any) -> Any:
        return self._state.get(key)

    def contains(self, key: Any) -> bool:
        return self._state.contains(key)

    def items(self) -> list[tuple[Any, Any]]:
        return self._state.items()

    def keys(self) -> list[Any]:
        return self._state.keys()

    def values(self) -> list[Any]:
        return self._state.values()

    def is_empty(self) -> bool:
        return self._state.is_empty()

    def _refuse(self, what: str) -> UnsupportedOperationException:
        return UnsupportedOperationException(
            f"{self._operator}: broadcast state '{self._state.descriptor.name}' is read-only in "
            f"process_element ({what}); only process_broadcast_element may change it, so that "
            "every subtask keeps the same copy."
        )

    def put(self, key: Any, value: Any) -> None:
        raise self._refuse("put")

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        raise self._refuse("put_all")

    def remove(self, key: Any) -> None:
        raise self._refuse("remove")

    def clear(self) -> None:
        raise self._refuse("clear")
