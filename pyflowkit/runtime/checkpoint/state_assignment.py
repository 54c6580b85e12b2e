"""Mapping checkpointed operator state onto a (possibly rescaled) new job
(Flink's ``StateAssignmentOperation`` + ``Checkpoints.loadAndValidateCheckpoint``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyflowkit.errors import IllegalStateException
from pyflowkit.operators.context import default_max_parallelism
from pyflowkit.runtime.checkpoint.task_state import FinishedOnRestore, OperatorState
from pyflowkit.state.key_groups import compute_key_group_range_for_operator_index
from pyflowkit.state.snapshot import OperatorSnapshot, assign_snapshot

NOT_MAPPED = (
    "Failed to rollback to checkpoint/savepoint {pointer}. Cannot map checkpoint/savepoint state "
    "for operator {op} to the new program, because the operator is not available in the new "
    "program. If you want to allow to skip this, you can set the --allowNonRestoredState option "
    "on the CLI."
)
MAX_PARALLELISM_MISMATCH = (
    "Failed to rollback to checkpoint/savepoint {pointer}. Max parallelism mismatch between "
    "checkpoint/savepoint state and new program. Cannot map operator {op} with max parallelism "
    "{old} to new program with max parallelism {new}. This indicates that the program has been "
    "changed in a non-compatible way after the checkpoint/savepoint."
)

# (vertex id, subtask index) → generated operator id → the state that subtask restores
TaskRestore = dict[tuple[str, int], dict[str, OperatorSnapshot]]


def operator_id_mapping(vertices: Sequence[Any]) -> dict[str, tuple[Any, str]]:
    """Generated and user-defined operator ids → (JobVertex, generated id of that operator)."""
    out: dict[str, tuple[Any, str]] = {}
    for jv in vertices:
        pairs = list(getattr(jv, "operator_ids", []) or [])
        for pair in pairs:
            out[pair.generated_operator_id] = (jv, pair.generated_operator_id)
            if pair.user_defined_operator_id:
                out[pair.user_defined_operator_id] = (jv, pair.generated_operator_id)
    return out


def check_state_mapping(
    operator_states: dict[str, OperatorState],
    vertices: Sequence[Any],
    pointer: str,
    allow_non_restored_state: bool,
) -> tuple[dict[str, tuple[Any, str]], list[str]]:
    """Every state must map to an operator (unless allowed to skip); max parallelism must match.

    Returns the mapping and the ids of the skipped (non-restored) operator states.
    """
    mapping = operator_id_mapping(vertices)
    skipped: list[str] = []
    for op_id, state in operator_states.items():
        target = mapping.get(op_id)
        if target is None:
            if not state.subtask_states or all(s.is_empty for s in state.subtask_states.values()):
                continue  # a stateless operator that disappeared is fine (Flink checks state)
            if allow_non_restored_state:
                skipped.append(op_id)
                continue
            raise IllegalStateException(NOT_MAPPED.format(pointer=pointer, op=op_id))
        jv = target[0]
        new_max = default_max_parallelism(jv.max_parallelism, jv.parallelism)
        has_keyed = any(s.keyed_state or s.timers for s in state.subtask_states.values())
        if has_keyed and state.max_parallelism != new_max:
            raise IllegalStateException(
                MAX_PARALLELISM_MISMATCH.format(
                    pointer=pointer, op=op_id, old=state.max_parallelism, new=new_max
                )
            )
    return mapping, skipped


class StateAssignmentOperation:
    """Flink's ``StateAssignmentOperation``: each new subtask gets its key-group range of the keyed
    state and timers, and its share of operator state (round robin on rescale, union to all)."""

    def __init__(
        self,
        operator_states: dict[str, OperatorState],
        vertices: Sequence[Any],
        pointer: str = "",
        allow_non_restored_state: bool = False,
    ) -> None:
        self.operator_states = operator_states
        self.vertices = list(vertices)
        self.mapping, self.skipped = check_state_mapping(
            operator_states, vertices, pointer, allow_non_restored_state
        )

    def assign_states(self) -> TaskRestore:
        """``assignStates``: (vertex id, subtask) → generated operator id → its snapshot.

        A vertex whose operators are ``FullyFinishedOperatorState``s (1.20, FLIP-147) restores
        ``FINISHED_ON_RESTORE`` in every subtask (``TaskStateAssignment.isFullyFinished``)."""
        out: TaskRestore = {}
        finished = self._fully_finished_vertices()
        for jv in finished.values():
            for i in range(jv.parallelism):
                out[(jv.id, i)] = FinishedOnRestore()
        for op_id, state in self.operator_states.items():
            target = self.mapping.get(op_id)
            if target is None or target[0].id in finished:
                continue
            jv, generated = target
            n = jv.parallelism
            max_p = default_max_parallelism(jv.max_parallelism, n)
            old = [state.subtask_states.get(i) for i in range(state.parallelism)]
            for i in range(n):
                kgr = compute_key_group_range_for_operator_index(max_p, n, i)
                snap = assign_snapshot(old, i, n, kgr)
                if snap is not None:
                    out.setdefault((jv.id, i), {})[generated] = snap
        return out

    def _fully_finished_vertices(self) -> dict[str, Any]:
        """Vertex id → the new job's vertex restored finished; a vertex is fully finished or not
        at all (``TaskStateAssignment``'s check)."""
        flags: dict[str, list[bool]] = {}
        vertices: dict[str, Any] = {}
        for op_id, state in self.operator_states.items():
            target = self.mapping.get(op_id)
            if target is None:
                continue
            vertices[target[0].id] = target[0]
            flags.setdefault(target[0].id, []).append(state.fully_finished)
        out: dict[str, Any] = {}
        for vid, per_op in flags.items():
            if not any(per_op):
                continue
            if not all(per_op):
                raise IllegalStateException(
                    "JobVertex could either be fully finished or not, but not partially"
                )
            out[vid] = vertices[vid]
        return out
