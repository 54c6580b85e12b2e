"""What Flink's web UI shows per subtask and per input channel, as one JSON-safe view model.

No Flink counterpart as a class: it reads a ``JobRun``'s tasks the way the web UI reads the
metrics of a vertex (``numRecordsIn``/``numRecordsOut``, ``currentInputWatermark`` with "No
Watermark" when none, ``buffers.inPoolUsage``/``outPoolUsage``/``inputQueueLength``/
``outputQueueLength``) and its back-pressure tab (ratio and level, ``runtime.back_pressure``), and
the watermark each channel holds in its input's ``StatusWatermarkValve``. Element ids are the
graph's: ``ev_<JobVertexID>_<i>`` for a subtask, ``ee_<consumer>_<input>_<producer>`` for a channel.
The browser only draws these values; it computes none.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.java_semantics import LONG_MIN_VALUE
from pyflowkit.render.palette import BACK_PRESSURE_COLOURS, text_on
from pyflowkit.runtime.back_pressure import SAMPLE_WINDOW_MS, back_pressure_level

NO_WATERMARK = "No Watermark"


def watermark_text(watermark: int | None) -> str:
    """The web UI's Watermarks tab: "No Watermark" for none (Long.MIN_VALUE), else the value."""
    return NO_WATERMARK if watermark is None or watermark <= LONG_MIN_VALUE else str(watermark)


def _usage(used: int, capacity: int) -> float:
    return round(min(used / capacity, 1.0), 2) if capacity > 0 else 0.0


def subtask_metrics(run: Any) -> dict[str, Any]:
    """``{"subtasks": {ev id: {...}}, "channels": {ee id: {...}}, "window_ms": …}`` for every
    live task of ``run`` (its current attempt on a live TaskExecutor)."""
    subtasks: dict[str, Any] = {}
    channels: dict[str, Any] = {}
    now = run.now if hasattr(run, "now") else 0
    for te in getattr(run, "task_executors", []):
        if not te.alive:
            continue
        for task in te.tasks.values():
            if task.state.is_terminal():
                continue
            key = f"{task.tdd.job_vertex.id}_{task.tdd.subtask_index}"
            subtasks[f"ev_{key}"] = _subtask(task, now)
            channels.update(_channels(task, key))
    return {"subtasks": subtasks, "channels": channels, "window_ms": SAMPLE_WINDOW_MS}


def _subtask(task: Any, now: int) -> dict[str, Any]:
    inv = task.invokable
    ratio = round(task.back_pressure.ratio(now), 2)
    level = back_pressure_level(ratio)
    colour = BACK_PRESSURE_COLOURS[level]
    pools = [p.pool for p in task.partitions]
    out_used = sum(min(p.in_use, p.capacity) for p in pools)
    out_capacity = sum(p.capacity for p in pools)
    gates = task.gates
    in_queue = sum(g.queued_buffers() for g in gates)
    in_capacity = sum(len(g.channels) * g.buffers_per_channel for g in gates)
    watermark = inv.current_watermark if gates else None  # a source has no input watermark
    return {
        "name": task.name,
        "numRecordsIn": inv.records_in,
        "numRecordsOut": inv.records_out,
        "currentInputWatermark": None
        if watermark is None or watermark <= LONG_MIN_VALUE
        else watermark,
        "watermark": watermark_text(watermark),
        "backPressureRatio": ratio,
        "backPressureLevel": level,
        "backPressuredMs": task.back_pressure.total_ms,
        "colour": colour,
        "text_colour": text_on(colour),
        "inputQueueLength": in_queue,
        "outputQueueLength": inv.queued_output_buffers(),
        "inPoolUsage": _usage(in_queue, in_capacity),
        "outPoolUsage": _usage(out_used, out_capacity),
    }


def _channels(task: Any, consumer: str) -> dict[str, Any]:
    """Each input channel of ``task``: buffers queued / exclusive buffers (its credit), the
    producer's backlog, and the watermark the channel's valve holds."""
    inputs = getattr(task.invokable, "inputs", None)
    out: dict[str, Any] = {}
    for number, gate in enumerate(task.gates):
        for channel in gate.channels:
            watermark = None
            if inputs is not None:
                input_index, position = inputs.channel_of.get((number, channel.index), (None, 0))
                valve = inputs.valves.get(input_index)
                if valve is not None:
                    watermark = valve.channel_watermarks[position]
            queued = len(channel.queue)
            capacity = gate.buffers_per_channel
            backlog = channel.subpartition.unsent() if channel.subpartition is not None else 0
            out[f"ee_{consumer}_{number}_{channel.partition_id[1]}"] = {
                "queued": queued,
                "capacity": capacity,
                "fill": _usage(queued, capacity),
                "full": queued >= capacity,
                "backlog": backlog,
                "watermark": watermark_text(watermark),
                "finished": channel.finished,
            }
    return out
