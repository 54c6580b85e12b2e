"""Read-only views of a simulated job: pandas frames and Flink REST-shaped dictionaries.

Stands for the views of Flink's web UI / REST API (``/jobs/:jobid/vertices``, ``/taskmanagers``,
``/jobs/:jobid/checkpoints`` + ``/details/:id``); they read the run and never change it.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.job_graph import JobVertex
from pyflowkit.runtime.checkpoint.stats import HISTORY_COLUMNS
from pyflowkit.runtime.job_stepping import SteppedRun
from pyflowkit.runtime.task_executor import TaskExecutor
from pyflowkit.runtime.trace import TraceEvent
from pyflowkit.state.keyed_values import KeyedValues

TASK_COLUMNS = [
    "vertex",
    "subtask",
    "name",
    "state",
    "task_state",
    "attempt",
    "task_executor",
    "slot",
    "records_in",
    "records_out",
    "queued_in",
    "queued_out",
    "back_pressured",
    "watermark",
    "metrics",
]
SLOT_COLUMNS = ["task_executor", "slot", "alive", "state", "allocation_id", "job", "tasks"]


def state_history(
    trace: list[TraceEvent], parallelism: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """Every job and task state change in ``trace``, in order (JobMaster and TaskExecutor sides).

    A subtask is named as Flink's web UI and ``TaskInfo.getTaskNameWithSubtasks`` name it,
    ``Keyed Aggregation (1/2)``: (index + 1) / parallelism, ``parallelism`` per vertex name.
    """
    return [
        {
            "step": e.step,
            "time": e.time,
            "component": e.component,
            "subject": (
                _subtask_name(e.vertex, e.subtask, parallelism or {})
                if e.vertex is not None and e.subtask is not None
                else f"job {e.job}"
            ),
            "attempt": e.attempt,
            "from": e.old_state,
            "to": e.new_state,
        }
        for e in trace
        if e.new_state is not None
    ]


def _subtask_name(vertex: str, subtask: int, parallelism: dict[str, int]) -> str:
    p = parallelism.get(vertex)
    return f"{vertex} ({subtask + 1}/{p})" if p else f"{vertex} ({subtask + 1})"


def tasks_frame(run: SteppedRun) -> Any:
    """One row per subtask: states, attempt, slot, records, queued buffers, back pressure,
    the user metrics its operators registered (identifier → value)."""
    import pandas as pd

    return pd.DataFrame(task_rows(run), columns=TASK_COLUMNS)


def task_rows(run: SteppedRun) -> list[dict[str, Any]]:
    """The rows of ``tasks_frame`` as dicts (no pandas: the Stepper reads them every step)."""
    rows = []
    jm = run.job_master
    for ev in [] if jm is None else jm.scheduler.execution_vertices:
        e = ev.current_execution
        task = run._task(ev.job_vertex.id, ev.subtask_index)
        inv = task.invokable if task is not None else None
        rows.append(
            {
                "vertex": ev.job_vertex.name,
                "subtask": ev.subtask_index,
                "name": ev.name,
                "state": e.state.value,
                "task_state": task.state.value if task else None,
                "attempt": e.attempt_number,
                "task_executor": e.slot.task_executor.name if e.slot is not None else None,
                "slot": e.slot.slot_index if e.slot is not None else None,
                "records_in": inv.records_in if inv else 0,
                "records_out": inv.records_out if inv else 0,
                "queued_in": inv.queued_input_buffers() if inv else 0,
                "queued_out": inv.queued_output_buffers() if inv else 0,
                "back_pressured": bool(task.back_pressured) if task else False,
                "watermark": inv.current_watermark if inv else None,
                "metrics": task.task_env.metric_registry.values() if task else {},
            }
        )
    return rows


def slots_frame(task_executors: list[TaskExecutor]) -> Any:
    """One row per TaskExecutor slot: state, allocation, job and the tasks it hosts."""
    import pandas as pd

    return pd.DataFrame(slot_rows(task_executors), columns=SLOT_COLUMNS)


def slot_rows(task_executors: list[TaskExecutor]) -> list[dict[str, Any]]:
    """The rows of ``slots_frame`` as dicts."""
    return [
        {
            "task_executor": te.name,
            "slot": s.index,
            "alive": te.alive,
            "state": s.state,
            "allocation_id": s.allocation_id,
            "job": s.job_id,
            "tasks": ", ".join(sorted(t.name for t in s.tasks.values())),
        }
        for te in task_executors
        for s in te.task_slot_table.slots
    ]


def checkpoints_frame(coord: Any) -> Any:
    """One row per checkpoint and savepoint, oldest first (Flink REST ``/checkpoints`` names)."""
    import pandas as pd

    rows = [] if coord is None else coord.stats.all_checkpoints()
    return pd.DataFrame(
        [{c: r.get(c) for c in HISTORY_COLUMNS} for r in rows], columns=HISTORY_COLUMNS
    )


def checkpoints_overview(coord: Any) -> dict[str, Any]:
    """``GET /jobs/:jobid/checkpoints``: counts, summary, latest, history."""
    if coord is None:
        from pyflowkit.runtime.checkpoint.stats import CheckpointStatsTracker

        return CheckpointStatsTracker({}).snapshot()
    return coord.stats.snapshot()


def checkpoint_details(coord: Any, checkpoint_id: int) -> dict[str, Any]:
    """``GET /jobs/:jobid/checkpoints/details/:id``: per vertex and per subtask (ack time,
    sync/async/alignment durations, state size)."""
    if coord is None or checkpoint_id not in coord.stats.by_id:
        known = [] if coord is None else sorted(coord.stats.by_id)
        raise IllegalArgumentException(
            f"checkpoint_details: no checkpoint {checkpoint_id!r} in this job; known: {known}."
        )
    return coord.stats.details(checkpoint_id)


IN_FLIGHT_COLUMNS = ["subtask", "input_channel_records", "output_subpartition_records"]


def _completed(coord: Any, checkpoint_id: int, caller: str) -> Any:
    """The completed checkpoint ``checkpoint_id``, or ``caller``'s error naming those there are."""
    completed = None if coord is None else coord.completed_by_id.get(checkpoint_id)
    if completed is None:
        known = [] if coord is None else sorted(coord.completed_by_id)
        raise IllegalArgumentException(
            f"{caller}: checkpoint {checkpoint_id!r} has not completed in this job; "
            f"completed: {known}."
        )
    return completed


def in_flight_frame(coord: Any, job_graph: Any, checkpoint_id: int) -> Any:
    """One row per subtask whose channel state checkpoint ``checkpoint_id`` persisted (unaligned
    checkpoints: the records its barrier overtook), named as the web UI names subtasks."""
    import pandas as pd

    completed = _completed(coord, checkpoint_id, "in_flight_data")
    vertices = {v.id: v for v in job_graph.vertices}
    rows = []
    for (vertex_id, subtask), state in sorted(completed.channel_states.items()):
        jv = vertices.get(vertex_id)
        name = vertex_id if jv is None else jv.name
        parallelism = {name: jv.parallelism} if jv is not None else {}
        rows.append(
            {
                "subtask": _subtask_name(name, subtask, parallelism),
                "input_channel_records": sum(len(v) for v in state.input.values()),
                "output_subpartition_records": sum(
                    len(els) for per in state.output.values() for els in per.values()
                ),
            }
        )
    return pd.DataFrame(rows, columns=IN_FLIGHT_COLUMNS)


def keyed_state_at(coord: Any, checkpoint_id: int, jv: JobVertex) -> dict[str, Any]:
    """Operator name → state name → {key: value} as snapshotted by checkpoint ``checkpoint_id``
    (all subtasks of ``jv`` merged; keyed state outside windows)."""
    completed = _completed(coord, checkpoint_id, "keyed_state_at")
    if completed.state_released:
        kept = sorted(i for i, c in coord.completed_by_id.items() if not c.state_released)
        raise IllegalArgumentException(
            f"keyed_state_at: checkpoint {checkpoint_id} was subsumed and its state discarded "
            f"(the state of the newest {coord.inspectable_history} subsumed checkpoints "
            f"is kept for inspection); checkpoints with state: {kept}."
        )
    names = {p.generated_operator_id: n.operator_name for p, n in _operators(jv)}
    uids = {p.user_defined_operator_id: n.operator_name for p, n in _operators(jv)}
    out: dict[str, Any] = {}
    for op_id, op_state in completed.operator_states.items():
        name = names.get(op_id) or uids.get(op_id)
        if name is None:
            continue
        per_op: dict[str, KeyedValues] = {}  # the user's keys, 1 / True / 1.0 apart
        for _i, snap in sorted(op_state.subtask_states.items()):
            for _kg, states in sorted(snap.keyed_state.items()):
                for state_name, st in states.items():
                    for key, namespace, value in st["entries"]:
                        if namespace is None:
                            values = per_op.get(state_name)
                            if values is None:
                                values = per_op[state_name] = KeyedValues()
                            values[_hashable(key)] = value
        if per_op:
            out[name] = per_op
    return out


def _operators(jv: JobVertex) -> list[tuple[Any, Any]]:
    pairs = list(getattr(jv, "operator_ids", []) or [])
    return list(zip(pairs, jv.stream_nodes, strict=False))


def _hashable(key: Any) -> Any:
    """A tuple key that JSON made a list, a tuple again (a list key stays a ``PickledList``)."""
    return tuple(_hashable(k) for k in key) if type(key) is list else key
