"""Operator snapshots as plain data, and their redistribution on rescale.

Stands for Flink's ``OperatorSubtaskState`` (keyed state per key group, operator list state,
timers) and ``StateAssignmentOperation``/``RoundRobinOperatorStateRepartitioner``. Every value is
plain Python data (dicts, lists, user values) so savepoints can be written as JSON.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from pyflowkit.state.key_groups import KeyGroupRange

SPLIT_DISTRIBUTE = "SPLIT_DISTRIBUTE"  # OperatorStateHandle.Mode names
UNION = "UNION"
BROADCAST = "BROADCAST"  # broadcast state: every subtask holds the same copy


class OperatorSnapshot:
    """One operator's state in one subtask at one checkpoint (Flink's ``OperatorSubtaskState``).

    ``keyed_state``: key group → state name → ``{"kind", "entries": [[key, namespace, value], …]}``.
    ``operator_state``: state name → ``{"mode": SPLIT_DISTRIBUTE|UNION, "entries": [...]}``.
    ``timers``: key group → ``[[service, domain, timestamp, key, namespace], …]``
    (domain ``"event"`` or ``"processing"``).

    The keyed state may be given as a pending ``KeyedStateSnapshot`` (``defer_keyed_state``): it
    stays frozen (the asynchronous part sizes it from the frozen maps) and is materialised on
    first read (restore, savepoint, inspection).
    """

    def __init__(
        self,
        keyed_state: dict[int, dict[str, dict[str, Any]]] | None = None,
        operator_state: dict[str, dict[str, Any]] | None = None,
        timers: dict[int, list[list[Any]]] | None = None,
    ) -> None:
        self._keyed_state = {} if keyed_state is None else keyed_state
        self._pending: Any = None  # a KeyedStateSnapshot not materialised yet
        self.operator_state = {} if operator_state is None else operator_state
        self.timers = {} if timers is None else timers

    @property
    def keyed_state(self) -> dict[int, dict[str, dict[str, Any]]]:
        if self._pending is not None:
            self._keyed_state, self._pending = self._pending.materialize(), None
        return self._keyed_state

    @keyed_state.setter
    def keyed_state(self, value: dict[int, dict[str, dict[str, Any]]]) -> None:
        self._keyed_state, self._pending = value, None

    @property
    def pending_keyed_state(self) -> Any:
        """The frozen ``KeyedStateSnapshot`` not materialised yet, or None."""
        return self._pending

    def defer_keyed_state(self, pending: Any) -> None:
        """Hold a frozen keyed-state snapshot (``materialize()`` → the plain form) until read."""
        self._pending = pending

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OperatorSnapshot):
            return NotImplemented
        return (self.keyed_state, self.operator_state, self.timers) == (
            other.keyed_state,
            other.operator_state,
            other.timers,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"OperatorSnapshot(keyed_state={self.keyed_state!r}, "
            f"operator_state={self.operator_state!r}, timers={self.timers!r})"
        )

    def __getstate__(self) -> dict[str, Any]:
        return {
            "keyed_state": self.keyed_state,
            "operator_state": self.operator_state,
            "timers": self.timers,
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["keyed_state"], state["operator_state"], state["timers"])  # type: ignore[misc]

    @property
    def is_empty(self) -> bool:
        return not (self.keyed_state or self.operator_state or self.timers)

    def key_groups(self) -> list[int]:
        return sorted(set(self.keyed_state) | set(self.timers))

    def to_dict(self) -> dict[str, Any]:
        """Plain data (string keys at every level) for JSON savepoints."""
        return {
            "keyed_state": {str(kg): v for kg, v in self.keyed_state.items()},
            "operator_state": self.operator_state,
            "timers": {str(kg): v for kg, v in self.timers.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> OperatorSnapshot:
        return cls(
            keyed_state={int(kg): v for kg, v in data.get("keyed_state", {}).items()},
            operator_state=dict(data.get("operator_state", {})),
            timers={int(kg): v for kg, v in data.get("timers", {}).items()},
        )

    def copy(self) -> OperatorSnapshot:
        return copy.deepcopy(self)


def assign_snapshot(
    snapshots: Sequence[OperatorSnapshot | None],
    subtask_index: int,
    parallelism: int,
    key_group_range: KeyGroupRange,
) -> OperatorSnapshot | None:
    """The state a new subtask restores from the old subtasks' snapshots (rescale-aware).

    Keyed state and timers: every key group in ``key_group_range`` (Flink's
    ``StateAssignmentOperation``). Operator list state: unchanged when the parallelism is unchanged,
    else SPLIT_DISTRIBUTE entries are concatenated in old-subtask order and split into contiguous
    chunks (``RoundRobinOperatorStateRepartitioner``); UNION entries go to every subtask; new
    subtask i restores BROADCAST state from old subtask i mod old parallelism.
    """
    present = [s for s in snapshots if s is not None]
    if not present:
        return None
    result = OperatorSnapshot()
    for snap in present:
        for kg, states in snap.keyed_state.items():
            if kg in key_group_range:
                result.keyed_state[kg] = copy.deepcopy(states)
        for kg, timers in snap.timers.items():
            if kg in key_group_range:
                result.timers[kg] = copy.deepcopy(timers)
    if len(snapshots) == parallelism:
        own = snapshots[subtask_index]
        if own is not None:
            for name, st in own.operator_state.items():
                if st["mode"] != UNION:
                    result.operator_state[name] = copy.deepcopy(st)
    else:
        names: dict[str, list[Any]] = {}
        for snap in present:
            for name, st in snap.operator_state.items():
                if st["mode"] == SPLIT_DISTRIBUTE:
                    names.setdefault(name, []).extend(st["entries"])
        # broadcast state: new subtask i takes old subtask (i mod old parallelism)'s copy
        # (RoundRobinOperatorStateRepartitioner.repartitionBroadcastState)
        source = snapshots[subtask_index % len(snapshots)] if snapshots else None
        for name, st in (source.operator_state if source is not None else {}).items():
            if st["mode"] == BROADCAST:
                result.operator_state[name] = copy.deepcopy(st)
        for name, entries in names.items():
            base, extra = divmod(len(entries), parallelism)
            start = subtask_index * base + min(subtask_index, extra)
            end = start + base + (1 if subtask_index < extra else 0)
            result.operator_state[name] = {
                "mode": SPLIT_DISTRIBUTE,
                "entries": copy.deepcopy(entries[start:end]),
            }
    for snap in present:
        for name, st in snap.operator_state.items():
            if st["mode"] == UNION:
                union = result.operator_state.setdefault(name, {"mode": UNION, "entries": []})
                union["entries"].extend(copy.deepcopy(st["entries"]))
    return result
