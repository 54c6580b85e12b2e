"""Operator snapshots as plain data, and their redistribution on rescale.

Stands for Flink's ``OperatorSubtaskState`` (keyed state per key group, operator list state,
timers) and ``StateAssignmentOperation``/``RoundRobinOperatorStateRepartitioner``. Every value is
plain Python data (dicts, lists, user values) so savepoints can be written as JSON.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.key_groups import KeyGroupRange

SPLIT_DISTRIBUTE = "SPLIT_DISTRIBUTE"  # OperatorStateHandle.Mode names
UNION = "UNION"


@dataclass
class OperatorSnapshot:
    """One operator's state in one subtask at one checkpoint (Flink's ``OperatorSubtaskState``).

    ``keyed_state``: key group → state name → ``{"kind", "entries": [[key, namespace, value], …]}``.
    ``operator_state``: state name → ``{"mode": SPLIT_DISTRIBUTE|UNION, "entries": [...]}``.
    ``timers``: key group → ``[[service, domain, timestamp, key, namespace], …]``
    (domain ``"event"`` or ``"processing"``).
    """

    keyed_state: dict[int, dict[str, dict[str, Any]]] = field(default_factory=dict)
    operator_state: dict[str, dict[str, Any]] = field(default_factory=dict)
    timers: dict[int, list[list[Any]]] = field(default_factory=dict)

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
    chunks (``RoundRobinOperatorStateRepartitioner``); UNION entries go to every subtask.
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
                if st["mode"] != UNION:
                    names.setdefault(name, []).extend(st["entries"])
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
