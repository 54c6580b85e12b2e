"""Restored keyed state read with the restoring job's declared types, before any task starts.

Stands for the type check Flink's state backends make on restore: a heap backend reads every
state value with the state's ``TypeSerializer`` (``HeapRestoreOperation``), so a value written
with another type fails the restore ("Could not restore keyed state backend for ..."), naming
the operator, instead of reaching the user's function. Checked here where the job declares the
type: the keys of every keyed operator (``key_by(..., key_type=...)``) and the value of
``StreamGroupedReduce``'s ``_op_state`` (Flink gives it the reduce's input type). Undeclared
types travel pickled (PyFlink's ``PickledBytesSerializer`` reads any value) and are not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.declared_types import first_misfit, value_check
from pyflowkit.runtime.checkpoint.state_assignment import operator_id_mapping
from pyflowkit.runtime.checkpoint.task_state import OperatorState

REDUCE_STATE = "_op_state"  # StreamGroupedReduce.STATE_NAME


def _short(value: Any) -> str:
    text = repr(value)
    return f"{text[:57]}..." if len(text) > 60 else text


def _node_of(jv: Any, generated_id: str) -> Any:
    for pair, node in zip(jv.operator_ids, jv.stream_nodes, strict=False):
        if pair.generated_operator_id == generated_id:
            return node
    return None


def check_state_types(
    operator_states: dict[str, OperatorState], vertices: Sequence[Any], pointer: str, file: str
) -> None:
    """Refuse (``IllegalArgumentException``) a restored key or reduce value that the restoring
    job's declared type cannot read, naming the state, the operator and the file."""
    mapping = operator_id_mapping(vertices)
    for op_id, state in operator_states.items():
        target = mapping.get(op_id)
        node = None if target is None else _node_of(*target)
        if node is None or not node.is_keyed:
            continue
        key_check = value_check(node.state_key_type)
        value_type = node.output_type
        is_reduce = node.operator_factory.operator_class == "StreamGroupedReduce"
        reduce_check = value_check(value_type) if is_reduce else None
        if key_check is None and reduce_check is None:
            continue
        for subtask in sorted(state.subtask_states):
            keyed = state.subtask_states[subtask].keyed_state
            for states in keyed.values():
                for name, st in states.items():
                    entries = st.get("entries", ())
                    keys = [e[0] for e in entries]
                    columns = [("key", key_check, keys, node.state_key_type)]
                    if name == REDUCE_STATE:
                        columns.append(("value", reduce_check, [e[2] for e in entries], value_type))
                    for kind, check, values, declared in columns:
                        if check is None or check.all_fit(values):
                            continue
                        index, why = first_misfit(check, values) or (0, "")
                        key = keys[index] if kind == "value" else None
                        _refuse(
                            pointer,
                            file,
                            name,
                            node,
                            op_id,
                            kind,
                            values[index],
                            declared,
                            why,
                            key,
                        )


def _refuse(
    pointer: str,
    file: str,
    name: str,
    node: Any,
    op_id: str,
    what: str,
    value: Any,
    declared: Any,
    why: str,
    key: Any,
) -> None:
    uid = f"uid {node.uid!r}, " if node.uid else ""
    of_key = "" if key is None else f" of key {_short(key)}"
    raise IllegalArgumentException(
        f"Cannot restore savepoint {pointer!r}: its {file} holds a {what} of state {name!r} "
        f"of operator {node.operator_name!r} ({uid}operator id {op_id}){of_key} that the "
        f"restoring job's declared type {declared} cannot read: {_short(value)} "
        f"({type(value).__name__}): {why}. Flink fails the restore when the state's serializer "
        "cannot read a value (the file was edited, or the job declares another type than the "
        "one the state was written with): restore a savepoint of this type, or declare the "
        "type the state was written with."
    )
