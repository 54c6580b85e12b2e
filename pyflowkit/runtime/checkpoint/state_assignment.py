"""Mapping checkpointed operator state onto a (possibly rescaled) new job
(Flink's ``StateAssignmentOperation`` + ``Checkpoints.loadAndValidateCheckpoint``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyflowkit.errors import FlinkRuntimeException, IllegalStateException
from pyflowkit.operators.context import default_max_parallelism
from pyflowkit.runtime.checkpoint.task_state import (
    FinishedOnRestore,
    OperatorState,
    is_finished_subtask_state,
)
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


ALL_RUNNING, PARTIALLY_FINISHED, FULLY_FINISHED = (
    "ALL_RUNNING",
    "PARTIALLY_FINISHED",
    "FULLY_FINISHED",
)


def validate_operators_finished_state(
    operator_states: dict[str, OperatorState],
    mapping: dict[str, tuple[Any, str]],
    vertices: Sequence[Any],
) -> None:
    """Flink 1.20's ``VertexFinishedStateChecker.validateOperatorsFinishedState`` (FLIP-147):
    the operators of a vertex share one finished state; a fully finished vertex's predecessors
    are fully finished; a partially finished vertex's ALL_TO_ALL predecessors are fully
    finished, its POINTWISE ones not all running."""
    by_vertex: dict[str, set[str]] = {}
    for op_id, state in operator_states.items():
        target = mapping.get(op_id)
        if target is None:
            continue
        if state.fully_finished:
            finished = FULLY_FINISHED
        elif any(map(is_finished_subtask_state, state.subtask_states.values())):
            finished = PARTIALLY_FINISHED
        else:
            finished = ALL_RUNNING
        by_vertex.setdefault(target[0].id, set()).add(finished)

    def state_of(jv: Any) -> str:
        states = by_vertex.get(jv.id, {ALL_RUNNING})
        if len(states) != 1:
            raise FlinkRuntimeException(
                f"Can not restore vertex {getattr(jv, 'name', '')}({jv.id}) which contain mixed operator "
                f"finished state: [{', '.join(sorted(states))}]"
            )
        return next(iter(states))

    for jv in vertices:
        finished = state_of(jv)
        if finished == FULLY_FINISHED:
            if any(state_of(e.source) != FULLY_FINISHED for e in getattr(jv, "inputs", ())):
                raise FlinkRuntimeException(
                    "Illegal JobGraph modification. Cannot run a program with fully finished "
                    "vertices predeceased with the ones not fully finished. Task vertex "
                    f"{jv.name}({jv.id}) has a predecessor not fully finished"
                )
        elif finished == PARTIALLY_FINISHED:
            _check_predecessors_of_partially_finished(jv, state_of)


def _check_predecessors_of_partially_finished(jv: Any, state_of: Any) -> None:
    pattern: dict[str, str] = {}  # an ALL_TO_ALL edge from a predecessor outranks a POINTWISE one
    inputs = getattr(jv, "inputs", ())
    for edge in inputs:
        value = getattr(edge.distribution_pattern, "value", edge.distribution_pattern)
        if pattern.get(edge.source.id) != "ALL_TO_ALL":
            pattern[edge.source.id] = value
    for edge in inputs:
        predecessor = state_of(edge.source)
        if pattern[edge.source.id] == "ALL_TO_ALL" and predecessor != FULLY_FINISHED:
            which = "all running" if predecessor == ALL_RUNNING else "partially finished"
            raise FlinkRuntimeException(
                "Illegal JobGraph modification. Cannot run a program with partially finished "
                "vertices predeceased with running or partially finished ones and connected via "
                f"the ALL_TO_ALL edges. Task vertex {jv.name}({jv.id}) has a {which} predecessor"
            )
        if pattern[edge.source.id] == "POINTWISE" and predecessor == ALL_RUNNING:
            raise FlinkRuntimeException(
                "Illegal JobGraph modification. Cannot run a program with partially finished "
                "vertices predeceased with all running ones. Task vertex "
                f"{jv.name}({jv.id}) has a all running predecessor"
            )


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
        validate_operators_finished_state(self.operator_states, self.mapping, self.vertices)
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
