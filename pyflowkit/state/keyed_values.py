"""One state's ``{key: value}`` as a user inspects it: their keys, told apart as Flink does.

The state tables hold a key Python finds equal to another key Flink tells apart (``1``, ``True``
and ``1.0``; ``0.0`` and ``-0.0``) as a ``TypedKey`` (``java_semantics.state_key``). A plain
``dict`` of the keys as the user gave them would merge those; one of the tables' keys would show
the wrapper. ``KeyedValues`` shows the user's keys (iteration, ``items()``, ``repr``) and finds a
value by the tables' rule (``view[1.0]`` is key ``1.0``'s value, not key ``1``'s). It stands for
what Flink's ``KeyedStateBackend.getKeys`` + ``getPartitionedState`` read back for inspection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from pyflowkit.java_semantics import plain_key, state_key


class KeyedValues(Mapping[Any, Any]):
    """Key → value of one state, keys as the key selector returned them. ``rule``: how the state
    tables tell keys apart (the backend's ``state_key``); ``pairs``: (key, value), the key plain
    or as the tables hold it."""

    __slots__ = ("_entries", "_rule")

    def __init__(
        self, pairs: Iterable[tuple[Any, Any]] = (), rule: Callable[[Any], Any] = state_key
    ) -> None:
        self._rule = rule
        self._entries: dict[Any, tuple[Any, Any]] = {}  # held key → (user's key, value)
        for key, value in pairs:
            self[key] = value

    def __setitem__(self, key: Any, value: Any) -> None:
        self._entries[self._rule(key)] = (plain_key(key), value)

    def __getitem__(self, key: Any) -> Any:
        try:
            return self._entries[self._rule(key)][1]
        except TypeError:  # an unhashable key the rule does not wrap: no such key
            raise KeyError(key) from None

    def __contains__(self, key: object) -> bool:
        try:
            return self._rule(key) in self._entries
        except TypeError:
            return False

    def __iter__(self) -> Iterator[Any]:
        return (key for key, _ in self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Mapping):
            return NotImplemented
        if len(other) != len(self):
            return False
        for key, value in other.items():
            if key not in self or self[key] != value:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self._entries.values()) + "}"
