"""Non-keyed operator state (Flink's ``DefaultOperatorStateBackend``): named list states.

Sources keep their reader positions here. ``get_list_state`` entries are split across subtasks
on rescale; ``get_union_list_state`` entries go to every subtask.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

from pyflowkit.errors import IllegalStateException
from pyflowkit.state.broadcast_state import HeapBroadcastState
from pyflowkit.state.heap_keyed_state_backend import snapshot_copy
from pyflowkit.state.snapshot import BROADCAST, SPLIT_DISTRIBUTE, UNION


class PartitionableListState:
    """Flink's ``PartitionableListState``: ``get/add/add_all/update/clear``."""

    def __init__(self, name: str, mode: str) -> None:
        self.name = name
        self.mode = mode
        self.entries: list[Any] = []

    def get(self) -> list[Any]:
        return self.entries

    def add(self, value: Any) -> None:
        self.entries.append(value)

    def add_all(self, values: Iterable[Any]) -> None:
        self.entries.extend(values)

    def update(self, values: Iterable[Any]) -> None:
        self.entries = list(values)

    def clear(self) -> None:
        self.entries = []


class OperatorStateBackend:
    """Flink's ``DefaultOperatorStateBackend``."""

    def __init__(self) -> None:
        self.states: dict[str, PartitionableListState] = {}
        self.broadcast_states: dict[str, HeapBroadcastState] = {}
        self._restored: dict[str, dict[str, Any]] = {}
        self.is_restored = False

    def get_list_state(self, descriptor: Any) -> PartitionableListState:
        return self._get(descriptor, SPLIT_DISTRIBUTE)

    def get_union_list_state(self, descriptor: Any) -> PartitionableListState:
        return self._get(descriptor, UNION)

    def _get(self, descriptor: Any, mode: str) -> PartitionableListState:
        name = descriptor if isinstance(descriptor, str) else descriptor.name
        state = self.states.get(name)
        if state is None:
            state = self.states[name] = PartitionableListState(name, mode)
            restored = self._restored.pop(name, None)
            if restored is not None:
                state.entries = copy.deepcopy(restored["entries"])
        elif state.mode != mode:
            raise IllegalStateException(
                f"Operator state '{name}' was registered with mode {state.mode}, not {mode}."
            )
        return state

    def get_registered_state_names(self) -> set[str]:
        """``getRegisteredStateNames``: the list states, including restored ones not yet asked for."""
        return set(self.states) | {n for n, st in self._restored.items() if st["mode"] != BROADCAST}

    def get_broadcast_state(self, descriptor: Any, operator: str) -> HeapBroadcastState:
        """``getBroadcastState``: the named map every subtask holds a copy of."""
        name = descriptor.name
        state = self.broadcast_states.get(name)
        if state is None:
            if name in self.states:
                raise IllegalStateException(
                    f"{operator}: operator state '{name}' is a list state, not broadcast state."
                )
            state = self.broadcast_states[name] = HeapBroadcastState(descriptor)
            restored = self._restored.pop(name, None)
            if restored is not None:
                state.restore(copy.deepcopy(restored["entries"]))
        return state

    def snapshot(self) -> dict[str, dict[str, Any]]:
        out = {
            name: {"mode": s.mode, "entries": snapshot_copy(s.entries)}
            for name, s in self.states.items()
        }
        for name, b in self.broadcast_states.items():
            out[name] = {"mode": BROADCAST, "entries": b.snapshot()}
        for name, st in self._restored.items():  # restored but not (yet) asked for: keep it
            out.setdefault(name, copy.deepcopy(st))
        return out

    def restore(self, operator_state: dict[str, dict[str, Any]]) -> None:
        self.is_restored = True
        self._restored = copy.deepcopy(operator_state)
