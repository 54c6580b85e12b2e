"""Source vertices fed by Spark's own stream sources: a monitored ``FileSource`` and
``socket_text_stream``.

Spark's file stream source stands for the ``FileSource``'s continuous split enumerator: it lists
the monitored paths at every trigger (``binaryFile``, the path column only, so Spark reads no file
content) and records in the checkpoint which files each micro-batch took, so a restarted query
never takes a committed file again. Spark's socket source stands for ``SocketTextStreamFunction``
(one line per row, in arrival order). The vertex's chain runs in one ``transformWithState`` group
hosting all of its subtasks (as the Python stream source does): file ``n`` in Flink's enumeration
order (path order within a listing) is split ``n``, read to its end by subtask ``n % p`` with the
FileSource's own ``StreamFormat``; socket lines go to the one subtask in order. Each subtask's
snapshot (reader splits/position, operator state, watermarks) and the number of splits assigned
so far live in the group's state variables.
"""

from __future__ import annotations

import copy
import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any
from urllib.parse import unquote, urlparse

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.file_source import FileSource, FileSourceReader, FileSourceSplit
from pyflowkit.operators.socket_source import SocketTextStreamFunction
from pyflowkit.operators.sources import Source, SourceReader
from pyflowkit.spark import records
from pyflowkit.spark.stage import ERROR_BEGIN, ERROR_END, user_traceback
from pyflowkit.spark.state_files import spec_state_classes
from pyflowkit.spark.streaming_processor import OWN, output_frame
from pyflowkit.spark.streaming_task import StreamingSubtask, SubtaskSnapshot, now_ms

FILE = "file"
SOCKET = "socket"
INPUT_DDL = "g int, t int, root int, path string, line string, o long"
BINARY_FILE_DDL = "path string, modificationTime timestamp, length long, content binary"
TASKS_STATE = "flink_source_tasks"
SPLITS_STATE = "flink_source_splits"


class SparkEnumeratedFileSource(FileSource):
    """A ``FileSource`` whose split enumerator is Spark's file stream source: its readers list no
    directory, splits are handed in (Flink's ``addSplits``)."""

    def __init__(self, source: FileSource) -> None:
        super().__init__(source.stream_format, source.paths, source.discovery_interval_ms)

    def create_reader(
        self, subtask_index: int, parallelism: int, clock: Any = None
    ) -> FileSourceReader:
        return FileSourceReader(self, subtask_index, parallelism, clock, enumerate_splits=False)


class HandedInReader(SourceReader):
    """Records a host hands in (Spark's socket source); the position counts records read."""

    def __init__(self) -> None:
        self.pending: list[Any] = []
        self.position = 0

    def add_records(self, values: list[Any]) -> None:
        self.pending.extend(values)

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        values, _ = self.poll_values(max_records)
        return [(v, None) for v in values]

    def poll_values(self, max_records: int) -> tuple[list[Any], None]:
        out = self.pending[:max_records]
        del self.pending[: len(out)]
        self.position += len(out)
        return out, None

    def is_finished(self) -> bool:
        return False

    def snapshot_position(self) -> int:
        return self.position

    def restore_position(self, position: int) -> None:
        self.position = position  # what it read before was committed with that position


class HandedInSource(Source):
    """The socket source on Spark: non-parallel, its records handed in per micro-batch."""

    is_parallel = False

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        return HandedInReader()


def spark_source_kind(vertex: Any) -> str | None:
    """FILE, SOCKET or None (the vertex runs in the Python stream source)."""
    params = vertex.stream_nodes[0].operator_factory.params
    source = params.get("source")
    if isinstance(source, FileSource) and source.discovery_interval_ms is not None:
        return FILE
    if isinstance(params.get("function"), SocketTextStreamFunction):
        return SOCKET
    return None


def fed_spec(spec: Any, kind: str) -> Any:
    """A copy of the vertex's StageSpec whose head reads what the Spark source hands in."""
    spec = copy.deepcopy(spec)
    head = spec.vertex.stream_nodes[0]
    params = dict(head.operator_factory.params)
    if kind == FILE:
        params["source"] = SparkEnumeratedFileSource(params["source"])
    else:
        params["source"] = HandedInSource()
        params["function"] = None
    head.operator_factory = replace(head.operator_factory, params=params)
    return spec


def _number_lines(batches: Iterator[Any]) -> Iterator[Any]:
    """Socket lines (one partition, in arrival order) with their index in the micro-batch."""
    import pyarrow as pa

    n = 0
    for batch in batches:
        rows = batch.num_rows
        yield pa.RecordBatch.from_arrays(
            [
                pa.array([OWN] * rows, pa.int32()),
                pa.array([0] * rows, pa.int32()),
                pa.array([0] * rows, pa.int32()),
                pa.nulls(rows, pa.string()),
                batch.column(0).cast(pa.string()),
                pa.array(range(n, n + rows), pa.int64()),
            ],
            names=["g", "t", "root", "path", "line", "o"],
        )
        n += rows


def socket_input(session: Any, function: SocketTextStreamFunction) -> Any:
    """Spark's socket source as input rows; refuses what it cannot do as Flink does."""
    if function.delimiter != "\n":
        raise IllegalArgumentException(
            f"Source: Socket Stream: Spark's socket source splits lines at \\n (or \\r\\n) only, "
            f"but the delimiter is {function.delimiter!r}. Use delimiter='\\n' or run the job on "
            "the simulated cluster (execution.target=local)."
        )
    if function.max_num_retries != 0:
        raise IllegalArgumentException(
            f"Source: Socket Stream: Spark's socket source does not reconnect (max_retry="
            f"{function.max_num_retries}). Use max_retry=0 or run the job on the simulated "
            "cluster (execution.target=local)."
        )
    lines = (
        session.readStream.format("socket")
        .option("host", function.hostname)
        .option("port", str(function.port))
        .option("numPartitions", "1")
        .load()
    )
    return lines.mapInArrow(_number_lines, INPUT_DDL)


def file_input(session: Any, source: FileSource) -> Any:
    """Spark's file stream source over each monitored path (its ``root`` index kept)."""
    from pyspark.sql import functions as F

    frames = []
    for root, path in enumerate(source.paths):
        if not os.path.exists(path):
            raise IllegalArgumentException(
                f"FileSource: the path {path!r} does not exist (java.io.FileNotFoundException)."
            )
        reader = (
            session.readStream.format("binaryFile")
            .schema(BINARY_FILE_DDL)
            .option("recursiveFileLookup", "true")  # NonSplittingRecursiveEnumerator
            .option("maxFileAge", "36500d")  # Flink reads every file, however old
        )
        if os.path.isfile(path):  # that file: its directory, by name (the processor checks)
            name = os.path.basename(path)
            glob = "".join(f"[{c}]" if c in "*?[]{}\\" else c for c in name)
            frame = reader.option("pathGlobFilter", glob).load(os.path.dirname(path) or ".")
        else:
            frame = reader.load(path)
        frames.append(
            frame.select(
                F.lit(OWN).cast("int").alias("g"),
                F.lit(0).cast("int").alias("t"),
                F.lit(root).cast("int").alias("root"),
                F.col("path"),
                F.lit(None).cast("string").alias("line"),
                F.lit(0).cast("long").alias("o"),
            )
        )
    df = frames[0]
    for frame in frames[1:]:
        df = df.unionByName(frame)
    return df


def local_path(uri: str) -> str:
    """A path of Spark's file index (``file:/a/b``) as the local path the StreamFormat opens."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path)
    return uri


class SparkSourceProcessor:
    """Hosts every subtask of a Spark-fed source vertex (PySpark's ``StatefulProcessor``, mixed
    in by ``spark_source_processor``)."""

    def __init__(self, spec: Any, kind: str, timers: bool) -> None:
        self.spec = spec
        self.kind = kind
        self.timers = timers
        self.handle: Any = None

    def init(self, handle: Any) -> None:
        self.handle = handle
        self.tasks = handle.getMapState(TASKS_STATE, "subtask int", "snapshot binary")
        self.assigned = handle.getValueState(SPLITS_STATE, "assigned long")

    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: Any):
        yield from self._run(timerValues, rows)

    def handleExpiredTimer(self, key: Any, timerValues: Any, expiredTimerInfo: Any):
        yield from self._run(timerValues, ())

    def close(self) -> None:
        pass

    def _inputs(self, frames: Any) -> list[list[Any]]:
        """Per subtask: the file splits or socket lines of this micro-batch, in order."""
        parallelism = self.spec.parallelism
        per_subtask: list[list[Any]] = [[] for _ in range(parallelism)]
        if self.kind == SOCKET:
            lines: list[tuple[int, str]] = []
            for pdf in frames:
                lines.extend(zip(pdf["o"].tolist(), pdf["line"].tolist(), strict=True))
            lines.sort(key=lambda x: x[0])
            per_subtask[0] = [line for _, line in lines]
            return per_subtask
        roots = self.spec.vertex.stream_nodes[0].operator_factory.params["source"].paths
        exact = [os.path.realpath(p) if os.path.isfile(p) else None for p in roots]
        found: list[tuple[int, tuple[str, ...], str]] = []
        for pdf in frames:
            for root, uri in zip(pdf["root"].tolist(), pdf["path"].tolist(), strict=True):
                path = local_path(uri)
                only = exact[int(root)]
                if only is not None and os.path.realpath(path) != only:
                    continue  # a file of that name in a subdirectory of a monitored file's dir
                found.append((int(root), tuple(path.split(os.sep)), path))
        found.sort()  # Flink's enumeration order: paths in order, a directory's entries by name
        start = int(self.assigned.get()[0]) if self.assigned.exists() else 0
        for i, (_, _, path) in enumerate(found):
            index = start + i
            per_subtask[index % parallelism].append(FileSourceSplit(str(index), path))
        if found:
            self.assigned.update((start + len(found),))
        return per_subtask

    def _run(self, timer_values: Any, frames: Any) -> Iterator[Any]:
        out = []
        next_timers = []
        subtask = 0
        try:
            inputs = self._inputs(frames)
            now = int(timer_values.getCurrentProcessingTimeInMs())
            if now < 0:
                now = now_ms()
            for subtask in range(self.spec.parallelism):
                columns, when = self._run_subtask(subtask, inputs[subtask], now)
                if columns is not None and columns["edge"]:
                    out.append(output_frame(columns))
                if when is not None:
                    next_timers.append(when)
            if self.timers:
                self._arm_timer(min(next_timers, default=None))
        except Exception as exc:
            where = f"{self.spec.vertex.name} ({subtask + 1}/{self.spec.parallelism})"
            raise RuntimeError(
                f"{ERROR_BEGIN}{user_traceback(exc)}{ERROR_END}{where}{ERROR_END}"
            ) from None
        yield from out

    def _run_subtask(self, subtask: int, items: list[Any], now: int) -> tuple[Any, int | None]:
        blob = self.tasks.getValue((subtask,)) if self.tasks.containsKey((subtask,)) else None
        classes = spec_state_classes(self.spec)
        restored = SubtaskSnapshot.from_bytes(bytes(blob[0]), classes) if blob else None
        if restored is not None and restored.finished:
            return None, None
        task = StreamingSubtask(self.spec, subtask, restored, now)
        try:
            chain = task.runner.chain
            reader = chain.head.reader
            if self.kind == FILE:
                reader.add_splits(items)
                pending = lambda: bool(reader.splits)  # noqa: E731
            else:
                reader.add_records(items)
                pending = lambda: bool(reader.pending)  # noqa: E731
            while pending():
                chain.emit_next(records.CHUNK_RECORDS)
            checkpoint = restored.checkpoint + 1 if restored is not None else 1
            columns = task.drain(checkpoint)
            snapshot = task.snapshot(checkpoint)
            self.tasks.updateValue((subtask,), (snapshot.to_bytes(classes.trust_pickled),))
            next_timer = task.next_timer()
        except BaseException:
            task.dispose(after_failure=True)
            raise
        task.dispose()  # the micro-batch's task is done
        return columns, next_timer

    def _arm_timer(self, when: int | None) -> None:
        handle = self.handle
        armed = list(handle.listTimers())
        for t in armed:
            if t != when:
                handle.deleteTimer(t)
        if when is not None and when not in armed:
            handle.registerTimer(when)


_PROCESSOR: Any = None
_PROCESSOR_LOCK = threading.Lock()  # one class for every thread


def spark_source_processor(spec: Any, kind: str, timers: bool) -> Any:
    """A ``StatefulProcessor`` hosting a Spark-fed source vertex (the class is built on first
    use: pyspark loads lazily)."""
    global _PROCESSOR
    with _PROCESSOR_LOCK:
        if _PROCESSOR is None:
            from pyspark.sql.streaming import StatefulProcessor

            class SparkFedSourceProcessor(SparkSourceProcessor, StatefulProcessor):
                pass

            _PROCESSOR = SparkFedSourceProcessor
        cls = _PROCESSOR
    return cls(spec, kind, timers)


def spark_source_frame(session: Any, spec: Any, kind: str, time_mode: str) -> Any:
    """The source vertex's output rows (stage schema) from Spark's file or socket source."""
    head = spec.vertex.stream_nodes[0].operator_factory.params
    if kind == FILE:
        rows = file_input(session, head["source"])
    else:
        rows = socket_input(session, head["function"])
    return rows.groupBy("g", "t").transformWithStateInPandas(
        statefulProcessor=spark_source_processor(
            fed_spec(spec, kind), kind, time_mode == "ProcessingTime"
        ),
        outputStructType=records.SCHEMA_DDL,
        outputMode="Append",
        timeMode=time_mode,
    )
