"""Heap implementations of keyed state (Flink's ``HeapValueState``, ``HeapListState``, …).

Each state reads and writes its ``StateTable`` at the backend's current key and the state's
current namespace. Values live in the table as they are (no serialisation).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from pyflowkit.datastream.state import (
    AggregatingState,
    ListState,
    MapState,
    ReducingState,
    ValueState,
)
from pyflowkit.state.time import VOID_NAMESPACE

if TYPE_CHECKING:
    from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend, StateTable


class _HeapState:
    """Flink's ``AbstractHeapState``: current namespace + access to the backend's current key."""

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        self.backend = backend
        self.table = table
        self.descriptor = descriptor
        self.namespace: Any = VOID_NAMESPACE

    def set_current_namespace(self, namespace: Any) -> None:
        self.namespace = namespace

    def _get(self) -> Any:
        b = self.backend
        return self.table.get(b.current_key_group, self.namespace, b.current_state_key)

    def _put(self, value: Any) -> None:
        b = self.backend
        self.table.put(b.current_key_group, self.namespace, b.current_state_key, value)

    def clear(self) -> None:
        b = self.backend
        self.table.remove(b.current_key_group, self.namespace, b.current_state_key)

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        """``InternalMergingState.mergeNamespaces`` (session windows): fold sources into target."""
        raise NotImplementedError(f"{type(self).__name__} cannot merge namespaces.")


class HeapValueState(_HeapState, ValueState):
    """Flink's ``HeapValueState``."""

    def value(self) -> Any:
        return self._get()

    def update(self, value: Any) -> None:
        if value is None:
            self.clear()
        else:
            self._put(value)


class HeapListState(_HeapState, ListState):
    """Flink's ``HeapListState``: ``get()`` is an empty list when nothing was added."""

    def get(self) -> list[Any]:
        values = self._get()
        return [] if values is None else values

    def _without_null(self, values: Iterable[Any]) -> list[Any]:
        """``values`` as a list; a null element is refused (Flink's ``ListState`` contract)."""
        values = list(values)
        if any(v is None for v in values):
            raise ValueError(f"You cannot add null to list state '{self.descriptor.name}'.")
        return values

    def add(self, value: Any) -> None:
        if value is None:
            raise ValueError(f"You cannot add null to list state '{self.descriptor.name}'.")
        values = self._get()
        if values is None:
            self._put([value])
        else:
            values.append(value)

    def add_all(self, values: Iterable[Any]) -> None:
        values = self._without_null(values)
        if values:
            current = self._get()
            if current is None:
                self._put(values)
            else:
                current.extend(values)

    def update(self, values: Iterable[Any]) -> None:
        values = self._without_null(values)
        if values:
            self._put(values)
        else:
            self.clear()

    def add_grouped(self, groups: Iterable[Sequence[Any]]) -> None:
        """A keyed fold over a batch: for each ``(key, key_group, namespace, values)`` in
        order, ``add`` every value (no nulls; the ``values`` list is taken over), without
        changing the key context."""
        namespace_map = self.table.namespace_map_for_batch()
        for key, key_group, namespace, values in groups:
            if not values:
                continue
            m = namespace_map(key_group, namespace)
            current = m.get(key)
            if current is None:
                m[key] = values
            else:
                current.extend(values)

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        merged: list[Any] = []
        b = self.backend
        for ns in sources:
            part = self.table.remove(b.current_key_group, ns, b.current_state_key)
            if part:
                merged.extend(part)
        if merged:
            current = self.table.get(b.current_key_group, target, b.current_state_key)
            if current is None:
                self.table.put(b.current_key_group, target, b.current_state_key, merged)
            else:
                current.extend(merged)


class HeapMapState(_HeapState, MapState):
    """Flink's ``HeapMapState``: a dict per key and namespace."""

    def _map(self, create: bool = False) -> dict[Any, Any] | None:
        m = self._get()
        if m is None and create:
            m = {}
            self._put(m)
        return m

    def get(self, key: Any) -> Any:
        m = self._map()
        return None if m is None else m.get(key)

    def put(self, key: Any, value: Any) -> None:
        self._map(create=True)[key] = value  # type: ignore[index]

    def put_all(self, dict_value: dict[Any, Any]) -> None:
        if dict_value:
            self._map(create=True).update(dict_value)  # type: ignore[union-attr]

    def remove(self, key: Any) -> None:
        m = self._map()
        if m is not None:
            m.pop(key, None)
            if not m:
                self.clear()

    def contains(self, key: Any) -> bool:
        m = self._map()
        return m is not None and key in m

    def items(self) -> list[tuple[Any, Any]]:
        m = self._map()
        return [] if m is None else list(m.items())

    def keys(self) -> list[Any]:
        m = self._map()
        return [] if m is None else list(m.keys())

    def values(self) -> list[Any]:
        m = self._map()
        return [] if m is None else list(m.values())

    def is_empty(self) -> bool:
        m = self._map()
        return not m


class HeapReducingState(_HeapState, ReducingState):
    """Flink's ``HeapReducingState``: ``add`` reduces into the stored value."""

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        super().__init__(backend, table, descriptor)
        self._reduce = descriptor.reduce

    def get(self) -> Any:
        return self._get()

    def add(self, value: Any) -> None:
        current = self._get()
        self._put(value if current is None else self._reduce(current, value))

    def add_grouped(self, groups: Iterable[Sequence[Any]]) -> None:
        """A keyed fold over a batch: for each ``(key, key_group, namespace, values)`` in
        order, ``add`` every value (one state lookup per group), without changing the key
        context."""
        namespace_map = self.table.namespace_map_for_batch()
        reduce = self._reduce
        for key, key_group, namespace, values in groups:
            if not values:
                continue
            m = namespace_map(key_group, namespace)
            acc = m.get(key)
            for v in values:
                acc = v if acc is None else reduce(acc, v)
            m[key] = acc

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        b = self.backend
        acc = None
        for ns in sources:
            part = self.table.remove(b.current_key_group, ns, b.current_state_key)
            if part is not None:
                acc = part if acc is None else self._reduce(acc, part)
        if acc is not None:
            current = self.table.get(b.current_key_group, target, b.current_state_key)
            merged = acc if current is None else self._reduce(current, acc)
            self.table.put(b.current_key_group, target, b.current_state_key, merged)


class HeapAggregatingState(_HeapState, AggregatingState):
    """Flink's ``HeapAggregatingState``: stores the accumulator; ``get()`` is ``get_result``."""

    def __init__(self, backend: HeapKeyedStateBackend, table: StateTable, descriptor: Any) -> None:
        super().__init__(backend, table, descriptor)
        self._fn = descriptor.agg_function

    def get(self) -> Any:
        acc = self._get()
        return None if acc is None else self._fn.get_result(acc)

    def get_accumulator(self) -> Any:
        return self._get()

    def add(self, value: Any) -> None:
        acc = self._get()
        if acc is None:
            acc = self._fn.create_accumulator()
        self._put(self._fn.add(value, acc))

    def add_grouped(self, groups: Iterable[Sequence[Any]]) -> None:
        """A keyed fold over a batch: for each ``(key, key_group, namespace, values)`` in
        order, ``add`` every value to the accumulator (one state lookup per group), without
        changing the key context."""
        namespace_map = self.table.namespace_map_for_batch()
        fn = self._fn
        for key, key_group, namespace, values in groups:
            if not values:
                continue
            m = namespace_map(key_group, namespace)
            acc = m.get(key)
            for v in values:
                if acc is None:
                    acc = fn.create_accumulator()
                acc = fn.add(v, acc)
            m[key] = acc

    def merge_namespaces(self, target: Any, sources: Iterable[Any]) -> None:
        b = self.backend
        acc = None
        for ns in sources:
            part = self.table.remove(b.current_key_group, ns, b.current_state_key)
            if part is not None:
                acc = part if acc is None else self._fn.merge(acc, part)
        if acc is not None:
            current = self.table.get(b.current_key_group, target, b.current_state_key)
            merged = acc if current is None else self._fn.merge(current, acc)
            self.table.put(b.current_key_group, target, b.current_state_key, merged)


STATE_CLASSES: dict[str, type[_HeapState]] = {
    "value": HeapValueState,
    "list": HeapListState,
    "map": HeapMapState,
    "reducing": HeapReducingState,
    "aggregating": HeapAggregatingState,
}
