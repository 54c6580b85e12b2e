"""How records travel between Spark stages: chunks of (values, timestamps, watermark) per channel.

Stands for Flink's network buffers (``RecordWriter`` → ``ResultSubpartition``): a producer subtask
fills one buffer per target subtask and flushes it as one Spark row, so the per-row cost is paid per
chunk, not per record. Watermarks ride at the end of a chunk and are sent to every channel (Flink's
``broadcastEmit``). Values are pickled (PyFlink's ``PICKLED_BYTE_ARRAY``) unless the edge has a
declared type: then the chunk is one typed ``array<…>`` column value (``typed_columns``).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

from pyflowkit.graph.adaptive_batch import records_bytes
from pyflowkit.graph.routing import ChannelSelector
from pyflowkit.state.time import MAX_WATERMARK
from pyflowkit.task.record_writer_output import RecordWriterOutput as TaskRecordWriterOutput

# Row layout of every stage's output (a Spark/Arrow schema); typed edges add one column each.
SCHEMA_DDL = "edge int, target int, producer int, seq long, payload binary"
FIELDS = ("edge", "target", "producer", "seq", "payload")
# a typed chunk: payload is null; its timestamps, watermark and flags have their own columns
TYPED_DDL = ", ts array<bigint>, wm bigint, flags int"
TYPED_FIELDS = ("ts", "wm", "flags")


def arrow_fields() -> list[tuple[str, Any]]:
    """``FIELDS`` and ``TYPED_FIELDS`` as (name, Arrow type) pairs: a stage output's columns
    before its typed edges' own."""
    import pyarrow as pa

    types = (pa.int32(), pa.int32(), pa.int32(), pa.int64(), pa.binary())
    typed = (pa.list_(pa.int64()), pa.int64(), pa.int32())
    return list(zip(FIELDS + TYPED_FIELDS, types + typed, strict=True))


PRINT_OUT = -1  # edge code of print-sink lines to stdout
PRINT_ERR = -2  # ... to stderr
COLLECT = -3  # edge code of collect-sink records (target = the sink's StreamNode id)
METRICS = -4  # edge code of a subtask's final metric values ([task name with subtasks, values])
# edge code of the bytes a finished subtask wrote into a BLOCKING result (target = the edge): what
# the adaptive batch parallelism of its consumer is decided from (Flink's ResultPartitionBytes)
RESULT_BYTES = -5
CHUNK_RECORDS = 2048
END_OF_PARTITION = b"E"  # payload of the end-of-partition marker row
TYPED_KEYS = b"K"  # payload prefix of a typed chunk's carried keys (pickled: b"P"/b"C" + …)


def spark_fields() -> list[Any]:
    """``SCHEMA_DDL + TYPED_DDL`` as pyspark ``StructField``s (built without the JVM)."""
    from pyspark.sql import types as T

    return [
        T.StructField("edge", T.IntegerType()),
        T.StructField("target", T.IntegerType()),
        T.StructField("producer", T.IntegerType()),
        T.StructField("seq", T.LongType()),
        T.StructField("payload", T.BinaryType()),
        T.StructField("ts", T.ArrayType(T.LongType())),
        T.StructField("wm", T.LongType()),
        T.StructField("flags", T.IntegerType()),
    ]


def dumps(obj: Any) -> bytes:
    """Pickle fast; fall back to cloudpickle for values whose classes live in ``__main__``."""
    try:
        data = pickle.dumps(obj, protocol=5)
    except Exception:
        data = b"__main__"
    if b"__main__" in data:
        from pyspark import cloudpickle

        return b"C" + cloudpickle.dumps(obj, protocol=5)
    return b"P" + data


def loads(data: bytes) -> Any:
    return pickle.loads(memoryview(data)[1:])


def column_of(edge_index: int) -> str:
    """The typed column of a JobEdge's chunks."""
    return f"e{edge_index}"


class RowSink:
    """Collects the output rows of one subtask in columnar lists (turned into Arrow batches)."""

    def __init__(self, producer: int, typed_columns: tuple[str, ...] = ()) -> None:
        self.producer = producer
        self.seq = 0
        self.names = (*FIELDS, *TYPED_FIELDS, *typed_columns)
        self.typed_columns = typed_columns
        self.columns: dict[str, list[Any]] = {f: [] for f in self.names}

    def emit(self, edge: int, target: int, payload: bytes, seq: int | None = None) -> None:
        """One row; ``seq`` (default: the current one) orders it at its consumer."""
        c = self.columns
        c["edge"].append(edge)
        c["target"].append(target)
        c["producer"].append(self.producer)
        c["seq"].append(self.seq if seq is None else seq)
        c["payload"].append(payload)
        for name in self.names[5:]:
            c[name].append(None)

    def emit_typed(
        self,
        edge: int,
        target: int,
        values: list[Any],
        stamps: list[Any] | None,
        watermark: int | None,
        flags: int,
        seq: int | None = None,
        keys: list[Any] | None = None,
    ) -> None:
        """One chunk as a typed column value (``values`` already checked to round-trip); its
        records' ``keys`` (a HASH edge carries them) pickled in the payload column."""
        payload = None if keys is None else TYPED_KEYS + dumps(keys)
        self.emit(edge, target, payload, seq)  # type: ignore[arg-type]
        c = self.columns
        c["ts"][-1] = stamps
        c["wm"][-1] = watermark
        c["flags"][-1] = flags
        c[column_of(edge)][-1] = values

    def advance(self) -> None:
        """Chunks emitted between two advances share one sequence number (lockstep merge key)."""
        self.seq += 1

    def __len__(self) -> int:
        return len(self.columns["edge"])

    def drain(self) -> dict[str, list[Any]]:
        out, self.columns = self.columns, {f: [] for f in self.names}
        return out


class RecordWriterOutput(TaskRecordWriterOutput):
    """The task core's ``RecordWriterOutput`` over Arrow rows: records routed into per-target
    buffers, written as chunks; ``emit_watermark`` flushes and sends the watermark to every
    connected target. With ``count_bytes`` (an edge into a vertex whose parallelism the adaptive
    batch scheduler decides) it counts the bytes of the records it ships (``bytes_written``).
    """

    count_bytes = False
    bytes_written = 0

    def __init__(
        self,
        edge_index: int,
        selector: ChannelSelector,
        sink: RowSink,
        output_tag: Any = None,
        only_max_watermark: bool = False,
        encode: Any = None,
    ) -> None:
        super().__init__(selector)
        self.edge_index = edge_index
        self.encode = encode  # typed_columns.encoder of the edge's declared type, or None
        self.sink = sink
        self.output_tag = output_tag
        self.only_max_watermark = only_max_watermark  # BATCH: the watermark jumps to the end
        self.buffers: dict[int, tuple[list[Any], list[Any]]] = {}
        self.keys: dict[int, list[Any]] = {}  # per target: the records' keys (a HASH edge)
        self.buffered = 0

    def write(self, channel: int, value: Any, timestamp: int | None) -> None:
        self._append(self.selector.consumers[channel], value, timestamp)
        if self.buffered >= CHUNK_RECORDS:
            self.flush()

    def write_keyed(self, channel: int, value: Any, timestamp: int | None, key: Any) -> None:
        target = self.selector.consumers[channel]
        self._append(target, value, timestamp)
        self.keys.setdefault(target, []).append(key)
        if self.buffered >= CHUNK_RECORDS:
            self.flush()

    def collect_batch(self, values: Any, timestamps: Any) -> None:
        if self.selector.is_broadcast:
            super().collect_batch(values, timestamps)
            return
        if type(values) is not list:
            values = list(values)
        if timestamps is not None and type(timestamps) is not list:
            timestamps = list(timestamps)
        consumers = self.selector.consumers
        route = self.selector.route
        route_with_keys = self.selector.route_with_keys
        buffers = self.buffers
        start, count = 0, len(values)
        while start < count:  # flush every CHUNK_RECORDS buffered records, as collect does
            end = min(count, start + CHUNK_RECORDS - self.buffered)
            whole = start == 0 and end == count
            vals = values if whole else values[start:end]
            stamps = timestamps if timestamps is None or whole else timestamps[start:end]
            carries = self.carries_keys  # each record's key, selected once, travels beside it
            routed = route_with_keys(vals, stamps) if carries else route(vals, stamps)
            for channel, part in enumerate(routed):
                vs, ts = part[0], part[1]
                if not vs:
                    continue
                target = consumers[channel]
                buf = buffers.get(target)
                if buf is None:
                    buf = buffers[target] = ([], [])
                buf[0].extend(vs)
                buf[1].extend(ts if ts is not None else [None] * len(vs))
                if carries:
                    self.keys.setdefault(target, []).extend(part[2])
            self.buffered += end - start
            start = end
            if self.buffered >= CHUNK_RECORDS:
                self.flush()

    def _append(self, target: int, value: Any, timestamp: int | None) -> None:
        buf = self.buffers.get(target)
        if buf is None:
            buf = self.buffers[target] = ([], [])
        buf[0].append(value)
        buf[1].append(timestamp)
        self.buffered += 1

    def flush(self, watermark: int | None = None) -> None:
        targets = self.selector.targets if watermark is not None else sorted(self.buffers)
        for target in targets:
            values, stamps = self.buffers.pop(target, ([], []))
            if not values and watermark is None:
                continue
            if all(t is None for t in stamps):
                stamps = None
            if self.count_bytes:
                self.bytes_written += records_bytes(values)
            keys = self.keys.pop(target, None)
            typed = self.encode(values) if self.encode is not None else None
            if typed is not None:
                self.sink.emit_typed(
                    self.edge_index, target, typed[0], stamps, watermark, typed[1], keys=keys
                )
                continue
            chunk = (
                (values, stamps, watermark) if keys is None else (values, stamps, watermark, keys)
            )
            self.sink.emit(self.edge_index, target, dumps(chunk))
        self.buffers.clear()
        self.keys.clear()
        self.buffered = 0

    def emit_watermark(self, watermark: int) -> None:
        if not self.only_max_watermark or watermark >= MAX_WATERMARK:
            self.flush(watermark)

    def close(self) -> None:
        """Flush, then an end-of-partition chunk to every connected target (Flink's
        ``EndOfPartitionEvent``), so each consumer partition sees at least one row."""
        self.flush()
        for target in self.selector.targets:
            self.sink.emit(self.edge_index, target, END_OF_PARTITION)


def decode_chunk(
    payload: bytes,
) -> tuple[list[Any], list[Any] | None, int | None, list[Any] | None]:
    """(values, timestamps or None, watermark after the values or None, the values' keys
    selected by the producer or None)."""
    if payload == END_OF_PARTITION:
        return [], None, None, None
    chunk = loads(payload)
    return chunk if len(chunk) == 4 else (*chunk, None)


def typed_chunk_keys(payload: bytes | None) -> list[Any] | None:
    """The keys a typed chunk's payload column carries (``emit_typed``), or None."""
    return None if payload is None else loads(payload[len(TYPED_KEYS) :])


def iter_rows(batches: Iterator[Any]) -> Iterator[tuple[Any, ...]]:
    """Rows of Arrow record batches in the stage schema, in batch order: the five base fields,
    then ``(ts, wm, flags, typed list scalar)`` for a typed chunk (else ``None``)."""
    for batch in batches:
        names = batch.schema.names
        cols = [batch.column(i).to_pylist() for i in range(len(FIELDS))]
        if "wm" not in names:
            for row in zip(*cols, strict=True):
                yield (*row, None)
            continue
        ts, wm, flags = (batch.column(names.index(f)) for f in TYPED_FIELDS)
        for i, row in enumerate(zip(*cols, strict=True)):
            if row[4] is not None and row[4][:1] != TYPED_KEYS:
                yield (*row, None)
            else:
                items = batch.column(names.index(column_of(row[0])))[i]
                yield (*row, (ts[i].as_py(), wm[i].as_py(), flags[i].as_py(), items))
