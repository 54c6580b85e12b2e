"""The savepoint's ``notifyCheckpointComplete`` for the sinks of a stopped streaming query.

Stands for what Flink does between a synchronous savepoint and the end of the tasks
(``StreamTask.notifyCheckpointCompleteAsync`` of stop-with-savepoint): a sink's last pre-committed
work (a ``FileSink``'s part files handed to its committer, a ``TwoPhaseCommitSinkFunction``'s
pre-committed transactions) is committed before the job stops. On Spark the next micro-batch
would commit it; the query stopped at a batch boundary, so the driver restores each such sink
subtask from the last committed state (the ``flink_task`` value state: operator state, where
committables and transactions live) exactly as that next batch would, which commits them.
Commits are idempotent (Flink's contract), so a job resumed from the savepoint committing them
again changes nothing.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.functions import CheckpointListener
from pyflowkit.state.user_types import job_state_classes
from pyflowkit.task.chain import operator_ids

_COMMITTERS = frozenset({"StreamingCommitterOperator"})


def committing_vertices(job_graph: Any) -> list[int]:
    """Indices of the non-source vertices whose chain commits on a completed checkpoint."""
    out = []
    for index, vertex in enumerate(job_graph.vertices):
        if not vertex.inputs:
            continue  # source chains are notified by the stream reader's commit
        for node in vertex.stream_nodes:
            factory = node.operator_factory
            params = getattr(factory, "params", {}) or {}
            if factory.operator_class in _COMMITTERS or any(
                isinstance(v, CheckpointListener) for v in params.values()
            ):
                out.append(index)
                break
    return out


def _field(row: Any, name: str, position: int) -> Any:
    data = row.asDict(recursive=False)
    return data[name] if name in data else row[position]


def commit_stopped_sinks(
    session: Any, checkpoint_location: str, job_graph: Any, settings: Any
) -> int:
    """Restore every committing sink subtask of the stopped query from its last committed state
    (which commits what that state pre-committed); the number of subtasks notified."""
    from pyflowkit.spark.plan import stage_specs
    from pyflowkit.spark.streaming_processor import OWN, TASK_STATE
    from pyflowkit.spark.streaming_task import StreamingSubtask, SubtaskSnapshot, now_ms

    indices = committing_vertices(job_graph)
    if not indices:
        return 0
    specs = stage_specs(job_graph, settings, "STREAMING")
    for spec in specs:
        spec.typed = {}  # as the streaming plan: chunks travel pickled
    ids = {i: set(operator_ids(job_graph.vertices[i])) for i in indices}
    classes = job_state_classes(job_graph)
    meta = session.read.format("state-metadata").load(checkpoint_location).collect()
    notified = 0
    for operator in sorted({int(_field(r, "operatorId", 0)) for r in meta}):
        reader = (
            session.read.format("statestore")
            .option("operatorId", operator)
            .option("stateVarName", TASK_STATE)
        )
        try:
            rows = reader.load(checkpoint_location).collect()
        except Exception:  # a stateful operator without that state variable
            continue
        for row in rows:
            key = _field(row, "key", 0)
            if int(key[0]) != OWN:
                continue
            value = _field(row, "value", 1)
            blob = value[0] if not isinstance(value, (bytes, bytearray)) else value
            snapshot = SubtaskSnapshot.join(bytes(blob), [], classes, checkpoint_location)
            if snapshot.finished or not snapshot.operators:
                continue  # a finished task committed at its end of input
            ops = set(snapshot.operators)
            vertex = next((i for i in indices if ops <= ids[i]), None)
            if vertex is None:
                continue
            # restoring commits what the snapshot pre-committed; then the task is done
            StreamingSubtask(specs[vertex], int(key[1]), snapshot, now_ms()).dispose()
            notified += 1
    return notified
