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

from pyflowkit.java_semantics import LONG_MAX_VALUE, LONG_MIN_VALUE
from pyflowkit.render.palette import BACK_PRESSURE_COLOURS, text_on
from pyflowkit.runtime.back_pressure import SAMPLE_WINDOW_MS, back_pressure_level

NO_WATERMARK = "No Watermark"
#: The characters a strip line may have beside the back-pressure chip.
STRIP_CHARS = 20


def watermark_text(watermark: int | None) -> str:
    """The web UI's Watermarks tab: "No Watermark" for none (Long.MIN_VALUE), else the value."""
    return NO_WATERMARK if watermark is None or watermark <= LONG_MIN_VALUE else str(watermark)


def _short(text: str) -> str:
    """A watermark in the strip: Long.MAX_VALUE (end of input) by its Flink name."""
    return "MAX_WATERMARK" if text == str(LONG_MAX_VALUE) else text


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
            own = _channels(task, key)
            subtasks[f"ev_{key}"] = _with_strip(_subtask(task, now), list(own.values()))
            channels.update(own)
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


def _with_strip(m: dict[str, Any], channels: list[dict[str, Any]]) -> dict[str, Any]:
    """The strip drawn in the subtask's box (two lines and the back-pressure chip) and its
    tooltip: the same values in words, one line per input channel."""
    wm = _short(m["watermark"])
    held = [_short(c["watermark"]) for c in channels]
    wm_line = f"WM {wm}" if len(set(held)) <= 1 else f"WM {wm} ← {' | '.join(held)}"
    if len(wm_line) > STRIP_CHARS:  # too long for the box: the channels are in the tooltip
        wm_line = f"WM {wm} (min of {len(held)})"
    m["strip"] = [f"in {m['numRecordsIn']} · out {m['numRecordsOut']}", wm_line]
    m["chip"] = [m["backPressureLevel"], f"{m['backPressureRatio']:.2f}"]
    lines = [
        m["name"],
        f"numRecordsIn {m['numRecordsIn']} · numRecordsOut {m['numRecordsOut']}",
        f"currentInputWatermark: {m['watermark']}",
        f"back pressure {m['backPressureLevel']}: blocked on output buffers "
        f"{m['backPressureRatio']:.0%} of the last {SAMPLE_WINDOW_MS} ms",
        f"inPoolUsage {m['inPoolUsage']:.0%} · outPoolUsage {m['outPoolUsage']:.0%}",
    ]
    lines += [
        f"input channel {i}: {c['queued']}/{c['capacity']} buffers, {c['backlog']} waiting "
        f"upstream, watermark {c['watermark']}"
        for i, c in enumerate(channels)
    ]
    m["title"] = "\n".join(lines)
    return m


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
