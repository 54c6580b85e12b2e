"""Which ExecutionGraph edges carry a checkpoint barrier, or are blocked by alignment, right now.

No Flink counterpart: the web UI has none; this reads the simulated network of a ``JobRun``
(subpartition queues, input channel queues and ``blocked`` flags) and names the edges the way
``pyflowkit.render`` does (``ee_<consumer ExecutionVertexID>_<input number>_<producer subtask>``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

BARRIER = "barrier"
BLOCKED = "blocked"


def _has_barrier(buffers: Iterable[Any]) -> bool:
    from pyflowkit.runtime.checkpoint.barriers import CheckpointBarrier

    return any(isinstance(getattr(b, "event", None), CheckpointBarrier) for b in buffers)


def barrier_tokens(run: Any) -> dict[str, list[dict[str, Any]]]:
    """``{edge id: [token]}``: each barrier in flight on an edge at its place in the channel.

    A token has the checkpoint ``id``, the records ``ahead`` of it (still to be consumed before
    it) and ``pos`` along the edge, 0 at the producer and 1 at the consumer: the subpartition
    queue (producer side) followed by the input channel queue (consumer side), front last.
    """
    from pyflowkit.runtime.checkpoint.barriers import CheckpointBarrier

    tokens: dict[str, list[dict[str, Any]]] = {}
    for te in run.task_executors:
        if not te.alive:
            continue
        for task in te.tasks.values():
            if task.state.is_terminal():
                continue
            consumer = f"{task.tdd.job_vertex.id}_{task.tdd.subtask_index}"
            for input_number, gate in enumerate(task.gates):
                for channel in gate.channels:
                    queue = list(channel.queue)  # front (next to be read) first
                    if channel.subpartition is not None:
                        queue += channel.subpartition.queue
                    if not any(isinstance(b.event, CheckpointBarrier) for b in queue):
                        continue
                    edge = f"ee_{consumer}_{input_number}_{channel.partition_id[1]}"
                    ahead = 0
                    for i, buffer in enumerate(queue):
                        if isinstance(buffer.event, CheckpointBarrier):
                            pos = 1 - (i + 1) / (len(queue) + 1)
                            tokens.setdefault(edge, []).append(
                                {"id": buffer.event.id, "ahead": ahead, "pos": round(pos, 3)}
                            )
                        elif buffer.event is None:
                            ahead += len(
                                buffer.values if buffer.values is not None else buffer.elements
                            )
    return tokens


def channel_marks(run: Any) -> dict[str, str]:
    """``{edge id: "blocked" | "barrier"}`` for the live tasks' input channels (blocked wins)."""
    marks: dict[str, str] = {}
    for te in run.task_executors:
        if not te.alive:
            continue
        for task in te.tasks.values():
            if task.state.is_terminal():
                continue
            consumer = f"{task.tdd.job_vertex.id}_{task.tdd.subtask_index}"
            for input_number, gate in enumerate(task.gates):
                for channel in gate.channels:
                    edge = f"ee_{consumer}_{input_number}_{channel.partition_id[1]}"
                    in_flight = list(channel.queue)
                    if channel.subpartition is not None:
                        in_flight += channel.subpartition.queue
                    if channel.blocked:
                        marks[edge] = BLOCKED
                    elif _has_barrier(in_flight):
                        marks[edge] = BARRIER
    return marks


def edge_names(execution_graph: Any) -> dict[str, str]:
    """``ee_…`` edge id → ``producer (i/n) → consumer (j/m)`` with short names."""
    from pyflowkit.render.short_names import short_task_name

    names = {}
    for ejv in execution_graph.job_vertices:
        for ev in ejv.task_vertices:
            for input_number, group in enumerate(ev.input_edges):
                for edge in group:
                    producer = edge.source.producer
                    names[f"ee_{ev.id}_{input_number}_{edge.source.partition_number}"] = (
                        f"{short_task_name(producer.task_name_with_subtask_index)} → "
                        f"{short_task_name(ev.task_name_with_subtask_index)}"
                    )
    return names
