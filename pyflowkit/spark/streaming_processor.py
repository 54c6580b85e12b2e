"""A non-source JobVertex as Spark's ``transformWithState`` (pandas flavour), one group per subtask.

Stands for Flink's ``StreamTask`` of one vertex with its ``CheckpointedStreamOperator``s: the
grouping key is ``(0, subtask)`` for rows of the vertex's in-edges (their ``target`` is the Flink
subtask the routing chose: key group → subtask for HASH), so one Spark group is one Flink subtask
and its state variables hold that subtask's Flink state: ``flink_keyed_state`` maps each key group
to its keyed state and timers (pyflowkit's schema codec: user objects by class name and fields,
rebuilt only from the vertex's own classes; no pickle unless the job trusts its state files),
``flink_task`` holds operator state and in-memory watermarks. Processing-time
timers and periodic callbacks become one Spark processing-time timer per subtask (the earliest);
Flink's event time travels in-band as in the batch executor (each chunk's watermark through the
subtask's ``StatusWatermarkValve``), so no row is ever dropped by Spark's own watermark.
Rows of other edges and sink rows pass through under ``(1, producer)`` untouched.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

from pyflowkit.spark import records
from pyflowkit.spark.stage import ERROR_BEGIN, ERROR_END, StageSpec, user_traceback
from pyflowkit.spark.state_files import spec_state_classes
from pyflowkit.spark.streaming_task import (
    STREAM_FIELDS,
    StreamingSubtask,
    SubtaskSnapshot,
    marker_time,
    now_ms,
    sorted_input,
)

PROGRESS = -5  # (records.METRICS is -4) edge code of a subtask's (vertex name, input watermark) row for the driver
OWN = 0  # grouping value of rows for this vertex
PASS = 1  # ... of rows passing through
TASK_STATE = "flink_task"
KEYED_STATE = "flink_keyed_state"
_DTYPES = {"edge": "int32", "target": "int32", "producer": "int32", "seq": "int64"}


def output_frame(columns: dict[str, list[Any]]) -> Any:
    """Output rows (stage schema without typed columns) as a pandas frame."""
    import pandas as pd

    frame = pd.DataFrame({f: columns[f] for f in STREAM_FIELDS})
    return frame.astype(_DTYPES)


class VertexProcessor:
    """Hosts one vertex's ``OperatorChain``; Spark calls it per (group, subtask) and batch
    (PySpark's ``StatefulProcessor``, mixed in by ``vertex_processor``)."""

    def __init__(self, spec: StageSpec, timers: bool = True) -> None:
        self.spec = spec
        self.timers = timers  # Spark TimeMode ProcessingTime (else None: no Spark timers)
        self.handle: Any = None
        self.loaded: dict[int, bytes] = {}

    def init(self, handle: Any) -> None:
        self.handle = handle
        self.task_state = handle.getValueState(TASK_STATE, "snapshot binary")
        self.key_groups = handle.getMapState(KEYED_STATE, "key_group int", "state binary")

    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: Any):
        group, subtask = int(key[0]), int(key[1])
        if group == PASS:
            for frame in rows:
                yield frame[list(STREAM_FIELDS)]
            return
        yield from self._run(subtask, timerValues, rows)

    def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any):
        group, subtask = int(key[0]), int(key[1])
        if group == OWN:
            yield from self._run(subtask, timerValues, ())

    def close(self) -> None:
        pass

    # ---- one subtask, one batch ------------------------------------------------------------
    def _run(self, subtask: int, timer_values: Any, frames: Any) -> Iterator[Any]:
        task: StreamingSubtask | None = None
        try:
            restored = self._load()
            if restored is not None and restored.finished:
                return
            wall = int(timer_values.getCurrentProcessingTimeInMs())
            if wall < 0:  # TimeMode None: Spark gives no processing time
                wall = now_ms()
            rows = list(sorted_input(frames))
            task = StreamingSubtask(self.spec, subtask, restored, _start_time(restored, rows, wall))
            if not rows and restored is not None and restored.wall and restored.wall < wall:
                task.wait(wall - restored.wall)  # no input since then: that real time passed
            task.process(rows)
            checkpoint = restored.checkpoint + 1 if restored else 1
            columns = task.drain(checkpoint)
            for name, value in (("edge", PROGRESS), ("target", 0), ("producer", subtask)):
                columns[name].append(value)
            columns["seq"].append(len(columns["seq"]))
            columns["payload"].append(
                records.dumps((self.spec.vertex.name, task.input_watermark()))
            )
            snapshot = task.snapshot(checkpoint)
            snapshot.wall = wall
            self._store(snapshot)
            if self.timers:
                due = task.next_timer()  # Spark's timers are wall clock: due after that long idle
                self._arm_timer(None if due is None else wall + max(1, due - task.now))
            task.dispose()  # the micro-batch's task is done
        except Exception as exc:
            if task is not None:
                task.dispose(after_failure=True)
            where = f"{self.spec.vertex.name} ({subtask + 1}/{self.spec.parallelism})"
            raise RuntimeError(
                f"{ERROR_BEGIN}{user_traceback(exc)}{ERROR_END}{where}{ERROR_END}"
            ) from None
        if columns["edge"]:
            yield output_frame(columns)

    def _load(self) -> SubtaskSnapshot | None:
        if not self.task_state.exists():
            self.loaded = {}
            return None
        task = bytes(self.task_state.get()[0])
        self.loaded = {int(k[0]): bytes(v[0]) for k, v in self.key_groups.iterator()}
        return SubtaskSnapshot.join(task, self.loaded.items(), spec_state_classes(self.spec))

    def _store(self, snapshot: SubtaskSnapshot) -> None:
        task, key_groups = snapshot.split(spec_state_classes(self.spec).trust_pickled)
        self.task_state.update((task,))
        for kg, blob in key_groups.items():
            if self.loaded.get(kg) != blob:
                self.key_groups.updateValue((kg,), (blob,))
        for kg in self.loaded.keys() - key_groups.keys():
            self.key_groups.removeKey((kg,))

    def _arm_timer(self, when: int | None) -> None:
        handle = self.handle
        armed = list(handle.listTimers())  # type: ignore[union-attr]
        for t in armed:
            if t != when:
                handle.deleteTimer(t)  # type: ignore[union-attr]
        if when is not None and when not in armed:
            handle.registerTimer(when)  # type: ignore[union-attr]


def _start_time(restored: SubtaskSnapshot | None, rows: list[Any], wall: int) -> int:
    """A subtask's processing time as a micro-batch starts: its own from the last batch; in its
    first, the first in-band time its producers sent (else the wall clock)."""
    if restored is not None:
        return restored.clock
    for _edge, _producer, payload in rows:
        when = marker_time(payload)
        if when is not None:
            return when
    return wall


_PROCESSOR: Any = None
_PROCESSOR_LOCK = threading.Lock()  # one class for every thread


def vertex_processor(spec: StageSpec, timers: bool = True) -> Any:
    """A ``StatefulProcessor`` hosting ``spec``'s vertex (the class is built on first use)."""
    global _PROCESSOR
    with _PROCESSOR_LOCK:
        if _PROCESSOR is None:
            from pyspark.sql.streaming import StatefulProcessor

            class SparkVertexProcessor(VertexProcessor, StatefulProcessor):
                pass

            _PROCESSOR = SparkVertexProcessor
        cls = _PROCESSOR
    return cls(spec, timers)


def grouping_columns(df: Any, consumed_edges: list[int]) -> Any:
    """Add ``g`` (OWN for the vertex's in-edges, PASS else) and ``t`` (target subtask or, for
    rows passing through, the producer) to the rows before ``groupBy("g", "t")``."""
    from pyspark.sql import functions as F

    own = F.col("edge").isin(consumed_edges) if consumed_edges else F.lit(False)
    df = df.withColumn("g", F.when(own, F.lit(OWN)).otherwise(F.lit(PASS)))
    return df.withColumn("t", F.when(own, F.col("target")).otherwise(F.col("producer")))


OUTPUT_DDL = records.SCHEMA_DDL
