"""The key context: which key is current when an operator sees a record. One rule, every host.

Flink sets it in the task, never in the operator: ``StreamTaskNetworkOutput.emitRecord`` (a network
input) and ``ChainingOutput.pushToOperator`` (a chained input) call ``setKeyContextElement`` before
every ``processElement`` of an operator that has a state key selector. A ``MapFunction`` reading a
``ValueState`` after ``key_by`` therefore sees its record's key's state, as does a rich reduce,
filter, flat map or sink function.

Here the same holds for records that travel in batches: a keyed operator's batch goes through
``process_keyed_batch`` (key, then record, one by one) unless the operator's own batch path is
correct without it (``StreamOperator.batch_keys_itself``: it selects keys for its own state, or
nothing it runs reads the current key, e.g. a ``map(lambda ...)`` after ``key_by``).

A record that crossed a HASH edge may carry the key the edge's partitioner selected for it (the
same key selector as the operator's: PyFlink's ``key_by`` selects each key once and ships
``Row(key, value)``); ``carried_keys_input`` then makes that key current without selecting again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

RecordPush = Callable[[Any, "int | None"], None]
BatchPush = Callable[[Sequence[Any], "Sequence[int | None] | None"], None]
#: many records with the keys selected for them upstream (values, timestamps, keys)
KeyedBatchPush = Callable[[Sequence[Any], "Sequence[int | None] | None", Sequence[Any]], None]


def _is_keyed_input(operator: Any, input_index: int) -> bool:
    config = operator.config
    if input_index == 2:
        return config.key_selector2 is not None
    if operator.is_two_input:
        return config.key_selector1 is not None
    return bool(config.is_keyed)


def record_input(operator: Any, input_index: int = 1) -> RecordPush:
    """``pushToOperator`` for one record on ``input_index`` (1 or 2; one-input operators: 1):
    ``setKeyContextElement`` if that input is keyed, then ``processElement``."""
    if input_index == 2:
        process, set_key = operator.process_element2, operator.set_key_context_element2
    elif operator.is_two_input:
        process, set_key = operator.process_element1, operator.set_key_context_element1
    else:
        process, set_key = operator.process_element, operator.set_key_context_element1
    if not _is_keyed_input(operator, input_index):
        return process

    def push(value: Any, timestamp: int | None) -> None:
        set_key(value)
        process(value, timestamp)

    return push


def batch_input(operator: Any, input_index: int = 1) -> BatchPush:
    """Many records for ``operator`` on ``input_index``, each seen under its own key.

    Call after the operator is open (``batch_keys_itself`` may depend on its function)."""
    if operator.is_two_input:
        push = record_input(operator, input_index)

        def push_each(values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
            if timestamps is None:
                for v in values:
                    push(v, None)
            else:
                for v, ts in zip(values, timestamps, strict=False):
                    push(v, ts)

        return push_each
    if not _is_keyed_input(operator, 1) or operator.batch_keys_itself():
        return operator.process_batch
    return operator.process_keyed_batch


def carries_keys_for(head_node: Any, input_index: int) -> bool:
    """Whether every edge into ``input_index`` of the chain's head (0: one-input) partitions by
    the head's own state key selector for that input, so the keys it carries are the head's."""
    if input_index == 2:
        selector = head_node.state_key_selector2
    elif input_index == 1:
        selector = head_node.state_key_selector1
    else:
        selector = head_node.state_key_selector
    if selector is None:
        return False
    edges = [e for e in head_node.in_edges if e.type_number == input_index]
    return bool(edges) and all(
        getattr(e.partitioner, "key_selector", None) is selector for e in edges
    )


def carried_keys_input(operator: Any, input_index: int = 1) -> KeyedBatchPush | None:
    """Many records of a keyed ``input_index`` with their keys selected upstream: each key made
    current as it is (``setCurrentKey``), not selected again; None where the operator's batch
    path reads no key (its ``batch_input`` serves) or selects keys only inside itself.

    Call after the operator is open (``batch_keys_itself`` may depend on its function)."""
    if not _is_keyed_input(operator, input_index):
        return None
    if operator.is_two_input:
        process = operator.process_element2 if input_index == 2 else operator.process_element1
        set_key = operator.keyed_state_backend.set_current_key

        def push_each(
            values: Sequence[Any], timestamps: Sequence[int | None] | None, keys: Sequence[Any]
        ) -> None:
            if timestamps is None:
                for v, k in zip(values, keys, strict=True):
                    set_key(k)
                    process(v, None)
            else:
                for v, ts, k in zip(values, timestamps, keys, strict=True):
                    set_key(k)
                    process(v, ts)

        return push_each
    if not operator.batch_keys_itself():
        return operator.process_keyed_batch
    if operator.takes_carried_keys:
        return operator.process_batch
    return None
