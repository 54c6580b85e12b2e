"""A source vertex as a Python streaming data source with offsets (Structured Streaming).

Stands for Flink's ``SourceStreamTask``: each source subtask runs its chain (the source operator
and what is chained to it) in the long-lived reader process Spark keeps per query, and emits the
same chunk rows (records, in-band watermarks, end of partition) as a batch stage. The offset of a
micro-batch is, per subtask, the reader position and the chain's Flink snapshot (its operator
state, e.g. the reader position list state), so a restarted query rebuilds the subtask from the
last committed offset and replays exactly the batches it had not committed
(``readBetweenOffsets``), as a Flink source restores its position from a checkpoint.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.spark import records
from pyflowkit.spark.state_files import decode_state, encode_state, spec_state_classes
from pyflowkit.spark.streaming_task import (
    STREAM_FIELDS,
    StreamingSubtask,
    SubtaskSnapshot,
    now_ms,
)
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.state.user_types import NO_CLASSES, StateClasses

FORMAT = "pyflowkit-flink-source"
PAUSE = "_pyflowkit_pause"  # while this file is in the control dir, sources read nothing
DRAIN = "_pyflowkit_drain"  # when this file is in the control dir, sources end (stop --drain)


def encode_object(obj: Any) -> str:
    """An object as a data source option (options are strings)."""
    return base64.b64encode(records.dumps(obj)).decode("ascii")


def decode_object(text: str) -> Any:
    return records.loads(base64.b64decode(text))


def _encode_state(operators: dict[str, OperatorSnapshot], trust_pickled: bool = False) -> str:
    """A source chain's Flink snapshot in the offset (schema JSON, no pickle unless trusted)."""
    value = {k: v.to_dict() for k, v in operators.items()}
    return encode_state(value, "the source state of an offset", trust_pickled).decode("utf-8")


def _decode_state(
    text: str, classes: StateClasses = NO_CLASSES, what: str = "a source offset"
) -> dict[str, OperatorSnapshot] | None:
    if not text:
        return None
    data = decode_state(text, classes, what)
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise IllegalArgumentException(f"Cannot restore {what}: expected operator id → state.")
    return {k: OperatorSnapshot.from_dict(v) for k, v in data.items()}


class FlinkSourceStreamReader:
    """Runs the source subtasks of one vertex; ``read`` is one micro-batch of all of them
    (PySpark's ``SimpleDataSourceStreamReader``, mixed in by ``data_source_class``). Not
    ``SupportsTriggerAvailableNow``: Spark fixes that trigger's target at a simple reader's first
    read, so "available now" is run as back-to-back batches until every source has ended."""

    def __init__(self, spec: Any, max_records: int, max_millis: int, control_dir: str = "") -> None:
        self.spec = spec
        self.pause_marker = os.path.join(control_dir, PAUSE) if control_dir else ""
        self.drain_marker = os.path.join(control_dir, DRAIN) if control_dir else ""
        self.max_records = max_records
        self.max_millis = max_millis
        self.tasks: list[StreamingSubtask | None] = []  # the live subtasks (replaced in place)
        self.at: str | None = None  # the offset (JSON) the live tasks stand at
        # Spark never hands a simple reader its stop(): the live tasks are also disposed when
        # the reader goes, at the latest when the query's reader process exits
        weakref.finalize(self, _dispose_all, self.tasks)

    def stop(self) -> None:
        """The query terminated (``DataSourceStreamReader.stop``): dispose the live subtasks."""
        _dispose_all(self.tasks)

    def initialOffset(self) -> dict:
        # the clock: the processing time the subtask starts at (logged, so a replay starts there)
        entry = {"state": "", "pos": 0, "clock": now_ms(), "ended": False}
        return {"batch": 0, "subtasks": [dict(entry) for _ in range(self.spec.parallelism)]}

    def _build(self, start: dict) -> list[StreamingSubtask | None]:
        """The source subtasks restored at offset ``start``; the live ones they replace are
        disposed (their functions closed, a ``SourceFunction.run`` thread cancelled)."""
        _dispose_all(self.tasks)
        tasks = self.tasks  # filled in place: the finalizer holds this list
        now = now_ms()
        for i, entry in enumerate(start["subtasks"]):
            if entry["ended"]:
                tasks.append(None)
                continue
            what = (
                f"the offset of source '{self.spec.vertex.name}' ({i + 1}/{len(start['subtasks'])})"
            )
            # None: the source's first batch
            restored = _decode_state(entry["state"], spec_state_classes(self.spec), what)
            snapshot = None if restored is None else SubtaskSnapshot(operators=restored)
            try:  # its processing time goes on from the logged one (first batch: the wall clock)
                task = StreamingSubtask(self.spec, i, snapshot, entry.get("clock") or now)
            except BaseException:
                _dispose_all(tasks, after_failure=True)
                raise
            # the offset's position goes on from the logged one whatever the reader restored
            task.base_position = entry["pos"] - task.reader_position()
            tasks.append(task)
        return tasks

    def read(self, start: dict) -> tuple[Iterator[tuple], dict]:
        if self.pause_marker and os.path.exists(self.pause_marker):
            return iter(()), start  # the job is stopping at this batch boundary
        key = json.dumps(start, sort_keys=True)
        if self.at != key:
            self._build(start)
        deadline = time.monotonic() + self.max_millis / 1000
        drain = bool(self.drain_marker) and os.path.exists(self.drain_marker)
        rows, end = self._run(start, None, deadline, drain)
        if not rows and not _moved(start, end):
            self.at = key
            return iter(()), start
        self.at = json.dumps(end, sort_keys=True)
        return iter(rows), end

    def readBetweenOffsets(self, start: dict, end: dict) -> Iterator[tuple]:
        """Replay after a restart: rebuild from ``start`` and read exactly up to ``end``."""
        self._build(start)
        rows, _ = self._run(start, end, None)
        self.at = None
        return iter(rows)

    def _run(
        self, start: dict, end: dict | None, deadline: float | None, drain: bool = False
    ) -> tuple[list, dict]:
        rows: list[tuple] = []
        entries = []
        batch = start["batch"] + 1
        trust = spec_state_classes(self.spec).trust_pickled
        for i, task in enumerate(self.tasks):
            entry = start["subtasks"][i]
            if task is None or task.finished:
                entries.append(entry)
                continue
            drained = drain
            if end is not None:  # a replay: read exactly to the logged position (and end)
                target = end["subtasks"][i]
                drained = bool(target.get("drained"))
                limit = None if target["ended"] and not drained else target["pos"]
            else:
                limit = entry["pos"] + self.max_records
            if end is not None or not drain:  # a replay counts the records' cost, no waits
                task.emit_source(limit, deadline, measure=end is None)
            if end is not None and target.get("clock"):  # a replay ends where the batch did
                task.advance_time(target["clock"])
            if drained and not task.finished:  # stop --drain: MAX_WATERMARK, the source ends
                advance = getattr(task.runner.chain.head, "advance_to_end_of_event_time", None)
                if advance is not None:  # a FLIP-27 source has none in 1.11: no MAX_WATERMARK
                    advance()
                task.runner.chain.end_input(0)
                task.finish()
            columns = task.drain(batch)
            rows.extend(zip(*(columns[f] for f in STREAM_FIELDS), strict=True))
            entries.append(
                {
                    "state": ""
                    if task.finished
                    else _encode_state(task.snapshot(batch).operators, trust),
                    "pos": task.position(),
                    "clock": task.now,
                    "ended": task.finished,
                    **({"drained": True} if drained else {}),
                }
            )
        return rows, {"batch": batch, "subtasks": entries}

    def commit(self, end: dict) -> None:
        """Spark committed the batch: Flink's ``notifyCheckpointComplete`` for the source chain."""
        for task in self.tasks:
            if task is not None and not task.finished:
                task.runner.chain.notify_checkpoint_complete(end["batch"])


def _moved(start: dict, end: dict) -> bool:
    """Whether a read took its sources further: a position moved or a source ended. A batch
    can read records and hand Spark no rows (a chain that ends in a sink inside the source
    subtask); its offset must still move on, or the next read would start from where the live
    subtasks already are and read nothing, for ever."""
    return any(
        a["pos"] != b["pos"] or a["ended"] != b["ended"]
        for a, b in zip(start["subtasks"], end["subtasks"], strict=True)
    )


def _dispose_all(tasks: list[StreamingSubtask | None], after_failure: bool = False) -> None:
    """Dispose every live subtask in ``tasks`` and empty the list."""
    live = [t for t in tasks if t is not None]
    tasks.clear()
    for task in live:
        task.dispose(after_failure)


_DATA_SOURCE: Any = None
_DATA_SOURCE_LOCK = threading.Lock()  # one class for every thread (the warm-up's and the user's)


def data_source_class() -> type:
    """The ``pyflowkit-flink-source`` DataSource class (built on first use: pyspark loads lazily).

    Option ``spec`` is the source vertex's StageSpec; ``max_records`` / ``max_millis`` bound what
    one subtask reads per micro-batch.
    """
    global _DATA_SOURCE
    with _DATA_SOURCE_LOCK:
        if _DATA_SOURCE is None:
            _DATA_SOURCE = _build_data_source_class()
        return _DATA_SOURCE


def _build_data_source_class() -> type:
    from pyspark.sql.datasource import DataSource, SimpleDataSourceStreamReader

    class SparkFlinkSourceStreamReader(FlinkSourceStreamReader, SimpleDataSourceStreamReader):
        pass

    class FlinkSourceDataSource(DataSource):
        @classmethod
        def name(cls) -> str:
            return FORMAT

        def schema(self) -> str:
            return records.SCHEMA_DDL

        def simpleStreamReader(self, schema: Any) -> Any:
            return SparkFlinkSourceStreamReader(
                decode_object(self.options["spec"]),
                int(self.options.get("max_records", "10000")),
                int(self.options.get("max_millis", "200")),
                self.options.get("control_dir", ""),
            )

    return FlinkSourceDataSource


def register(session: Any) -> None:
    """Register the format on ``session`` once: every query of the session reads it. Registering
    pickles the class by value and ships it to the JVM (1-3 s of CPU, 18 s on a loaded machine),
    which each query start used to repeat."""
    try:
        manager = session._jsparkSession.sessionState().dataSourceManager()
        if manager.dataSourceExists(FORMAT):
            return
    except Exception:  # noqa: BLE001 - Spark Connect (no JVM session here): register as before
        pass
    session.dataSource.register(data_source_class())
