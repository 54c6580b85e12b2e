"""One JobVertex as a Spark stage: the function ``mapInArrow`` runs for each partition (= subtask).

Stands for Flink's ``StreamTask`` (``SourceStreamTask`` / ``OneInputStreamTask`` /
``TwoInputStreamTask``): it builds the vertex's ``OperatorChain`` for one subtask, feeds it the
input chunks in a deterministic order, keeps a ``StatusWatermarkValve`` per input, ends input,
and writes non-chained outputs and sink output as rows of ``records.SCHEMA_DDL``.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.routing import ChannelSelector, pointwise_sources, record_writer_rng
from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.operators.gc_tuning import raised_gc_thresholds
from pyflowkit.operators.user_failure import (
    JOB_EXCEPTION,
    chained_failure_text,
    failed_in,
    failing_operator,
    suppressed_message,
    user_traceback,
)
from pyflowkit.spark import records
from pyflowkit.task.input_processor import StreamInputProcessor, input_channels

ERROR_BEGIN = "<<<pyflowkit-user-error>>>"
ERROR_END = "<<<end-pyflowkit-user-error>>>"
_BATCH_ROWS = 512
CHUNK_MILLIS = 1  # processing time per chunk of records without an auto-watermark interval
# A subtask keeps its keyed state (every open window pane, timer, accumulator) alive for the whole
# stage; CPython's default thresholds (700, 10, 10) would re-scan it ever more often (a third of a
# keyed window stage's time with 600,000 live panes). Raised while a stage runs, then restored.
GC_THRESHOLD = (100_000, 50, 100)


@dataclass
class InputSpec:
    """One in-edge of the vertex: which rows (edge index) feed which input (type number)."""

    edge_index: int
    type_number: int
    producer_parallelism: int
    pointwise: bool
    # a result written into subpartitions (AdaptiveBatchScheduler): per subtask, the subpartitions
    # it reads; its channels are then (producer, subpartition), ``producer * subpartitions + s``
    subpartitions: int = 0
    ranges: list[range] | None = None

    def channels(self, parallelism: int, subtask: int) -> Any:
        """The channel ids of this input at ``subtask`` (its input gate's channels)."""
        if self.ranges is not None:
            n = self.subpartitions
            return [
                q * n + s for q in range(self.producer_parallelism) for s in self.ranges[subtask]
            ]
        if self.pointwise:
            return pointwise_sources(self.producer_parallelism, parallelism, subtask)
        return range(self.producer_parallelism)


@dataclass
class OutputSpec:
    """One non-chained out-edge: the StreamEdge the chain writes to and its consumer's shape."""

    edge_index: int
    stream_edge: Any
    consumer_parallelism: int
    consumer_max_parallelism: int
    consumer_name: str = ""
    # the consumer's parallelism is decided from the bytes written (AdaptiveBatchScheduler):
    # consumer_parallelism is then the result's subpartition count, and the bytes are reported
    count_bytes: bool = False


@dataclass
class StageSpec:
    """Everything a subtask of one vertex needs on the Spark worker (shipped with cloudpickle)."""

    vertex: Any  # JobVertex
    job_name: str
    runtime_mode: str  # STREAMING or BATCH
    settings: Any
    seed: int
    inputs: list[InputSpec] = field(default_factory=list)
    outputs: list[OutputSpec] = field(default_factory=list)
    operator_classes: dict[str, type] = field(default_factory=dict)  # registered on the worker
    typed: dict[int, Any] = field(default_factory=dict)  # edge index → TypedLayout (in and out)
    combine: dict[int, Any] = field(default_factory=dict)  # out-edge index → its Pushdown

    def out_layouts(self) -> list[Any]:
        """The typed layouts of this stage's out-edges (its extra output columns), in order."""
        return [self.typed[o.edge_index] for o in self.outputs if o.edge_index in self.typed]

    def output_ddl(self) -> str:
        from pyflowkit.spark.typed_columns import layouts_ddl

        return records.SCHEMA_DDL + records.TYPED_DDL + layouts_ddl(self.out_layouts())

    def output_struct(self) -> Any:
        """``output_ddl`` as a pyspark ``StructType``: ``mapInArrow`` then parses no DDL through
        the JVM (a round trip per stage and job)."""
        from pyspark.sql.types import StructField, StructType

        fields = records.spark_fields()
        fields += [StructField(x.column, x.spark_type()) for x in self.out_layouts()]
        return StructType(fields)

    def output_arrow_schema(self) -> Any:
        import pyarrow as pa

        fields = records.arrow_fields()
        fields += [(layout.column, layout.arrow_type()) for layout in self.out_layouts()]
        return pa.schema(fields)

    @property
    def parallelism(self) -> int:
        return self.vertex.parallelism


def output_selector(spec: StageSpec, subtask: int, position: int) -> ChannelSelector:
    """The ``ChannelSelector`` of subtask ``subtask`` on out-edge ``spec.outputs[position]``:
    Spark's partition assignment (``routing``'s wiring and the writer RNG every host uses)."""
    out = spec.outputs[position]
    vertex = spec.vertex
    rng = record_writer_rng(spec.seed, vertex.name, subtask, position, out.consumer_name)
    return ChannelSelector.for_subtask(
        out.stream_edge.partitioner,
        subtask,
        vertex.parallelism,
        out.consumer_parallelism,
        out.consumer_max_parallelism,
        rng,
    )


def failure_text(exc: BaseException, where: str) -> str:
    """The failure of subtask ``where`` as the MiniCluster reports it: the user's traceback, the
    operator and attempt, then ``Recovery is suppressed by NoRestartBackoffTimeStrategy`` (the
    Spark executor runs no Flink restarts)."""
    attempt = 0
    try:
        from pyspark import TaskContext

        context = TaskContext.get()
        attempt = context.attemptNumber() if context is not None else 0
    except Exception:  # noqa: BLE001 - outside a Spark task (tests driving the runner)
        pass
    outer = f"{JOB_EXCEPTION}: {suppressed_message('NoRestartBackoffTimeStrategy')}"
    failed = failed_in(where, failing_operator(exc), attempt)
    return chained_failure_text(user_traceback(exc), failed, outer)


class SubtaskRunner:
    """Runs one subtask of a stage over its sorted input rows and yields output row columns."""

    def __init__(self, spec: StageSpec, subtask: int) -> None:
        from pyflowkit.operators.context import TaskEnvironment, default_max_parallelism
        from pyflowkit.operators.processing_time import ManualProcessingTimeService
        from pyflowkit.operators.registry import register_operator
        from pyflowkit.spark.python_dependencies import spark_file
        from pyflowkit.task.chain import OperatorChain

        for name, cls in spec.operator_classes.items():  # operators registered on the driver
            register_operator(name, cls)

        self.spec = spec
        self.subtask = subtask
        vertex = spec.vertex
        from pyflowkit.spark.typed_columns import decoder, encoder

        self.sink = records.RowSink(subtask, tuple(x.column for x in spec.out_layouts()))
        self.decoders = {e: decoder(layout) for e, layout in spec.typed.items()}
        self.clock = ManualProcessingTimeService(0)
        self.prints_out: list[str] = []  # print-sink lines since the last flush
        self.prints_err: list[str] = []
        self.collected: dict[int, list[Any]] = {}
        self.env = TaskEnvironment(
            job_name=spec.job_name,
            task_name=vertex.name,
            subtask_index=subtask,
            parallelism=vertex.parallelism,
            max_parallelism=default_max_parallelism(vertex.max_parallelism, vertex.parallelism),
            processing_time_service=self.clock,
            print_writer=self._print,
            print_lines_writer=self._print_lines,
            collect_writer=self._collect,
            job_parameters={"execution.runtime-mode": spec.runtime_mode},
            cached_file_resolver=spark_file,
        )
        self.writers: dict[Any, records.RecordWriterOutput] = {}
        for position, out in enumerate(spec.outputs):
            selector = output_selector(spec, subtask, position)
            encode = encoder(spec.typed[out.edge_index]) if out.edge_index in spec.typed else None
            pushdown = spec.combine.get(out.edge_index)
            if pushdown is not None:  # a pushed-down aggregation's input: combined per key first
                from pyflowkit.spark.combining_output import CombiningRecordWriterOutput

                self.writers[out.stream_edge] = CombiningRecordWriterOutput(
                    out.edge_index,
                    selector,
                    self.sink,
                    pushdown,
                    out.stream_edge.output_tag,
                    encode,
                )
                continue
            self.writers[out.stream_edge] = records.RecordWriterOutput(
                out.edge_index,
                selector,
                self.sink,
                out.stream_edge.output_tag,
                only_max_watermark=spec.runtime_mode == "BATCH",
                encode=encode,
            )
        for out in spec.outputs:
            self.writers[out.stream_edge].count_bytes = out.count_bytes
        self.chain = OperatorChain(vertex, self.env, self.writers, spec.settings)
        self.batch_outputs = []
        if spec.runtime_mode == "BATCH":
            from pyflowkit.spark.batch import apply_batch_semantics

            self.batch_outputs = apply_batch_semantics(self.chain.operators)
        interval = getattr(spec.settings, "auto_watermark_interval", 0) or 0
        # STREAMING: processing time advances one watermark interval per chunk (deterministic),
        # or one millisecond when periodic watermarks are off (time never stands still: state
        # TTL and processing-time timers depend on it); BATCH: it stands still, then jumps to
        # the end.
        self.tick = (interval or CHUNK_MILLIS) if spec.runtime_mode != "BATCH" else 0
        # the task core's input side; a channel is (edge, producer) in in-edge order
        self.input_of_edge = {inp.edge_index: inp.type_number for inp in spec.inputs}
        in_edges = [
            (inp.type_number, inp.edge_index, inp.channels(vertex.parallelism, subtask))
            for inp in spec.inputs
        ]
        self.inputs = StreamInputProcessor(self.chain, input_channels(in_edges))

    # --- host hooks ----------------------------------------------------------------------------
    def _print(self, line: str, to_err: bool) -> None:
        (self.prints_err if to_err else self.prints_out).append(line)

    def _print_lines(self, lines: list[str], to_err: bool) -> None:
        (self.prints_err if to_err else self.prints_out).extend(lines)

    def _collect(self, sink_node_id: int, value: Any) -> None:
        self.collected.setdefault(sink_node_id, []).append(value)

    def _flush_sinks(self) -> None:
        if self.prints_out:
            self.sink.emit(records.PRINT_OUT, 0, records.dumps(self.prints_out))
            self.prints_out = []
        if self.prints_err:
            self.sink.emit(records.PRINT_ERR, 0, records.dumps(self.prints_err))
            self.prints_err = []
        for node_id, values in self.collected.items():
            if values:
                self.sink.emit(records.COLLECT, node_id, records.dumps(values))
        self.collected = {}

    # --- the task ------------------------------------------------------------------------------
    def run_capturing_stdout(self, rows: Iterator[Any]) -> Iterator[dict[str, list]]:
        """``run`` with the user's ``print()`` output sent to the driver's stdout (in order)."""
        from pyflowkit.spark.user_stdout import SubtaskStdout

        captured = SubtaskStdout(self._print)
        steps = self.run(rows)
        while True:
            with contextlib.redirect_stdout(captured):
                columns = next(steps, None)
            if columns is None:
                break
            yield columns
        if captured.pending():  # a last line without "\n"
            captured.close()
            self._flush_sinks()
            yield self.sink.drain()

    def run(self, rows: Iterator[tuple[int, int, int, int, bytes]]) -> Iterator[dict[str, list]]:
        """Open the chain, process every input row (or run the source), end input, close; then
        dispose, also after a failure (``StreamTask.invoke`` → ``disposeAllOperators``: a failed
        subtask's user functions are closed there, a source's thread is cancelled)."""
        try:
            yield from self._invoke(rows)
        except BaseException:
            self.chain.dispose_after_failure()
            raise
        self.chain.dispose()

    def _invoke(
        self, rows: Iterator[tuple[int, int, int, int, bytes]]
    ) -> Iterator[dict[str, list]]:
        chain = self.chain
        chain.initialize_state()  # operators' state, then their functions' (e.g. 2PC sinks)
        chain.open()
        if not self.spec.inputs:
            yield from self._run_source()
        else:
            inputs = self.inputs
            last_seq = last_tick = None
            for edge, _target, producer, seq, payload, typed in rows:
                if seq != last_seq:
                    self.sink.advance()
                    last_seq = seq
                input_index = self.input_of_edge[edge]
                if typed is None:
                    values, stamps, watermark, keys = records.decode_chunk(payload)
                else:
                    stamps, watermark, flags, items = typed
                    values = self.decoders[edge](items, flags)
                    keys = records.typed_chunk_keys(payload)
                if values:  # with the keys a HASH edge selected for them, if it carried them
                    inputs.process_batch(input_index, values, stamps, keys)
                if watermark is not None:
                    inputs.process_watermark((edge, producer), watermark)
                if self.tick and seq != last_tick:
                    last_tick = seq
                    self.clock.advance(self.tick)
                if len(self.sink) >= _BATCH_ROWS:
                    self._flush_sinks()
                    yield self.sink.drain()
            inputs.end_all_inputs()  # the rows ran out: every channel has ended
        for batch_output in self.batch_outputs:
            batch_output.flush()
        if self.spec.runtime_mode == "BATCH":
            self.clock.set_current_time(LONG_MAX_VALUE)  # BATCH: processing time jumps to the end
        chain.close()  # closes the RecordWriterOutputs too (flushes their buffers)
        self._flush_sinks()
        for out in self.spec.outputs:  # what the consumer's adaptive parallelism is decided from
            if out.count_bytes:
                written = self.writers[out.stream_edge].bytes_written
                self.sink.emit(records.RESULT_BYTES, out.edge_index, records.dumps(written))
        metrics = self.env.metric_registry.values()
        if metrics:  # reported to the driver once, when the subtask finishes
            payload = records.dumps([self.env.task_name_with_subtasks, metrics])
            self.sink.emit(records.METRICS, self.subtask, payload)
        yield self.sink.drain()

    def _run_source(self) -> Iterator[dict[str, list]]:
        chain = self.chain
        while True:
            status = chain.emit_next(records.CHUNK_RECORDS)
            self.sink.advance()
            if self.tick:
                self.clock.advance(self.tick)
            if getattr(status, "name", str(status)) == "END_OF_INPUT":
                break
            if len(self.sink) >= _BATCH_ROWS:
                self._flush_sinks()
                yield self.sink.drain()
        chain.end_input(0)


def stage_function(spec: StageSpec):
    """The ``mapInArrow`` function of a stage. The subtask index comes from the data (the
    ``target`` column, or the ``id`` of ``range(p)`` for sources), never from Spark's partition id,
    which a union in the same Spark stage would offset."""

    def run_partition(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        schema = spec.output_arrow_schema()
        subtask = -1
        with raised_gc_thresholds(*GC_THRESHOLD):
            try:
                if spec.inputs:
                    rows = records.iter_rows(batches)
                    first = next(rows, None)
                    if first is None:
                        return
                    subtask = first[1]
                    rows = _checked_rows(itertools.chain([first], rows), subtask)
                    runners = [SubtaskRunner(spec, subtask)]
                else:
                    ids = [i for b in batches for i in b.column(0).to_pylist()]
                    runners = [SubtaskRunner(spec, i) for i in ids]
                    rows = iter(())
                for runner in runners:
                    subtask = runner.subtask
                    for columns in runner.run_capturing_stdout(rows):
                        if columns["edge"]:
                            yield pa.RecordBatch.from_pydict(columns, schema=schema)
            except Exception as exc:
                where = f"{spec.vertex.name} ({subtask + 1}/{spec.parallelism})"
                raise RuntimeError(
                    f"{ERROR_BEGIN}{failure_text(exc, where)}{ERROR_END}{where}{ERROR_END}"
                ) from None

    return run_partition


def _checked_rows(rows: Iterator[tuple], subtask: int) -> Iterator[tuple]:
    for row in rows:
        if row[1] != subtask:
            raise AssertionError(
                f"Spark partition of subtask {subtask} received a record for subtask {row[1]}; "
                f"the routing partition i == subtask i was changed (is AQE coalescing?)."
            )
        yield row
