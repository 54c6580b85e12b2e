"""Keyed state of a streaming job on Spark, read back with Spark's state data source.

pyflowkit's counterpart of Flink's State Processor API / queryable state for a running or
stopped job: Spark's ``state-metadata`` and ``statestore`` readers list the query's stateful
operators and read the ``flink_keyed_state`` map state of the transformWithState that hosts a
vertex; the result has the shape ``JobRun.keyed_state_at`` gives for the simulated cluster
(operator name → state name → {key: value}, keyed state outside windows).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.spark.state_files import decode_state
from pyflowkit.spark.streaming_processor import KEYED_STATE
from pyflowkit.state.keyed_values import KeyedValues
from pyflowkit.state.time import VOID_NAMESPACE
from pyflowkit.state.user_types import vertex_state_classes
from pyflowkit.task.chain import operator_ids


def _hashable(key: Any) -> Any:
    """A tuple key that JSON made a list, a tuple again (a list key stays a ``PickledList``)."""
    return tuple(_hashable(k) for k in key) if type(key) is list else key


def _field(row: Any, name: str, position: int) -> Any:
    data = row.asDict(recursive=False)
    return data[name] if name in data else row[position]


def read_keyed_state(
    session: Any, checkpoint_location: str, vertex: Any, batch_id: int | None = None
) -> dict[str, Any]:
    """Operator name → state name → {key: value} of ``vertex`` at ``batch_id`` (the last
    committed batch if None), all subtasks merged."""
    wanted = dict(
        zip(operator_ids(vertex), (n.operator_name for n in vertex.stream_nodes), strict=False)
    )
    meta = session.read.format("state-metadata").load(checkpoint_location).collect()
    classes = vertex_state_classes([vertex])
    out: dict[str, Any] = {}
    for operator in sorted({int(_field(r, "operatorId", 0)) for r in meta}):
        reader = (
            session.read.format("statestore")
            .option("operatorId", operator)
            .option("stateVarName", KEYED_STATE)
        )
        if batch_id is not None:
            reader = reader.option("batchId", batch_id)
        try:
            rows = reader.load(checkpoint_location).collect()
        except Exception:  # this stateful operator has no such state variable
            continue
        matched = False
        for row in rows:
            blob = _field(row, "user_map_value", 2)
            blob = blob[0] if not isinstance(blob, (bytes, bytearray)) else blob
            what = f"the keyed state of '{vertex.name}' in {checkpoint_location}"
            for op_id, (states, _timers) in decode_state(bytes(blob), classes, what).items():
                name = wanted.get(op_id)
                if name is None:
                    continue
                matched = True
                per_op = out.setdefault(name, {})
                for state_name, st in states.items():
                    for key, namespace, value in st["entries"]:
                        if namespace is VOID_NAMESPACE or namespace is None:
                            values = per_op.get(state_name)
                            if values is None:  # the user's keys, 1 / True / 1.0 apart
                                values = per_op[state_name] = KeyedValues()
                            values[_hashable(key)] = value
        if matched:
            break
    return out
