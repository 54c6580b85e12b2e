"""A small single-threaded executor of a JobGraph: the plain reference both runtimes compare to.

Builds one ``OperatorChain`` per subtask, wires non-chained edges with Flink's routing (a
``graph.routing.ChannelSelector`` per writer, channels from ``ExecutionGraph`` in Flink's
subpartition order, the writer RNG every host uses), aligns
watermarks and ends inputs with the task core's ``StreamInputProcessor``, and runs everything from one FIFO event
queue: sources emit a batch each round, then every queued record/watermark/end-of-partition is
delivered in order. Stands for no Flink class (Flink's ``MiniCluster`` does this concurrently).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.routing import (
    ChannelSelector,
    consumed_subpartition_index,
    record_writer_rng,
)
from pyflowkit.operators.context import TaskEnvironment
from pyflowkit.operators.output import Output
from pyflowkit.operators.processing_time import ManualProcessingTimeService
from pyflowkit.operators.stream_source import InputStatus
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.task.chain import OperatorChain, non_chained_out_edges
from pyflowkit.task.input_processor import StreamInputProcessor, input_channels
from pyflowkit.task.record_writer_output import RecordWriterOutput

_RECORD, _WATERMARK, _END, _KEYED_RECORD = 0, 1, 2, 3


@dataclass
class LocalJobResult:
    """What a local run produced: collect-sink values per sink node id, printed lines in order."""

    results: dict[int, list[Any]] = field(default_factory=dict)
    printed: list[str] = field(default_factory=list)
    printed_err: list[str] = field(default_factory=list)
    accumulators: dict[str, Any] = field(default_factory=dict)
    keyed_state: dict[str, dict[int, Any]] = field(default_factory=dict)


class _Subtask:
    """One running subtask: its chain and its inputs (``StreamInputProcessor``)."""

    def __init__(self, vertex: Any, index: int, chain: OperatorChain) -> None:
        self.vertex = vertex
        self.index = index
        self.chain = chain
        self.inputs: StreamInputProcessor | None = None
        self.finished = False
        self.source_done = False

    @property
    def name(self) -> str:
        return f"{self.vertex.name} ({self.index + 1}/{self.vertex.parallelism})"


class _RecordWriterOutput(RecordWriterOutput):
    """The task core's ``RecordWriterOutput`` over the driver's FIFO queue."""

    def __init__(
        self,
        driver: LocalDriver,
        selector: ChannelSelector,
        targets: list[tuple[_Subtask, Any]],
    ) -> None:
        super().__init__(selector)
        self.driver = driver
        self.targets = targets  # per subpartition: (consumer, its channel id)

    def write(self, channel: int, value: Any, timestamp: int | None) -> None:
        self.driver.queue.append((_RECORD, self.targets[channel], value, timestamp))

    def write_keyed(self, channel: int, value: Any, timestamp: int | None, key: Any) -> None:
        self.driver.queue.append((_KEYED_RECORD, self.targets[channel], (value, key), timestamp))

    def emit_watermark(self, watermark: int) -> None:
        for target in self.targets:
            self.driver.queue.append((_WATERMARK, target, watermark, None))

    def end_of_partition(self) -> None:
        for target in self.targets:
            self.driver.queue.append((_END, target, None, None))


class LocalDriver:
    """Runs a JobGraph's chains single-threaded with exact Flink routing (a reference executor).

    ``restored``: operator id → list of old subtask snapshots (any parallelism), redistributed by
    key-group range. ``processing_time_step`` advances the shared processing clock after each
    source round (0 keeps it still).
    """

    def __init__(
        self,
        job_graph: Any,
        seed: int = 0,
        batch_size: int = 256,
        processing_time_step: int = 0,
        start_time: int = 0,
    ) -> None:
        self.job_graph = job_graph
        self.seed = seed
        self.batch_size = batch_size
        self.processing_time_step = processing_time_step
        self.clock = ManualProcessingTimeService(start_time)
        self.queue: deque[tuple[int, Any, Any, Any]] = deque()
        self.result = LocalJobResult()
        self.execution_graph = ExecutionGraph.from_job_graph(job_graph)
        self.subtasks: dict[str, list[_Subtask]] = {}
        self.writers: dict[tuple[str, int], list[_RecordWriterOutput]] = {}
        self._build()

    # ---- wiring ----
    def _environment(self, ejv: Any, index: int) -> TaskEnvironment:
        result = self.result

        def print_line(line: str, to_err: bool) -> None:
            (result.printed_err if to_err else result.printed).append(line)

        def collect(node_id: int, value: Any) -> None:
            result.results.setdefault(node_id, []).append(value)

        return TaskEnvironment(
            job_name=self.job_graph.job_name,
            task_name=ejv.name,
            subtask_index=index,
            parallelism=ejv.parallelism,
            max_parallelism=ejv.max_parallelism,
            processing_time_service=self.clock,
            print_writer=print_line,
            collect_writer=collect,
            accumulators=result.accumulators,
        )

    def _build(self) -> None:
        eg = self.execution_graph
        settings = getattr(self.job_graph.stream_graph, "execution_config", None)
        ejvs = {v.id: eg.get_job_vertex(v.id) for v in self.job_graph.vertices}
        shells: dict[str, list[_Subtask]] = {}
        for vertex in self.job_graph.vertices:
            shells[vertex.id] = []
        # consumers first need to exist as targets: create subtasks lazily with placeholder chain
        pending: dict[tuple[str, int], dict[int, Output]] = {}
        for vertex in self.job_graph.vertices:
            ejv = ejvs[vertex.id]
            shells[vertex.id] = [_Subtask(vertex, i, None) for i in range(ejv.parallelism)]  # type: ignore[arg-type]
        for vertex in self.job_graph.vertices:
            ejv = ejvs[vertex.id]
            edges = non_chained_out_edges(vertex)
            for ev in ejv.task_vertices:
                outs: dict[int, Output] = {}
                for stream_edge in edges:
                    output_index, job_edge = next(
                        (i, e) for i, e in enumerate(vertex.outputs) if e.stream_edge is stream_edge
                    )
                    partition = ev.produced_partitions[job_edge.data_set.id]
                    consumer_edges = partition.consumers[0] if partition.consumers else []
                    # subpartition k is read by the consumer that requests k (routing's order)
                    targets: list[Any] = [None] * len(consumer_edges)
                    for exe_edge in consumer_edges:
                        consumer = exe_edge.target
                        c_sub = shells[consumer.job_vertex.id][consumer.subtask_index]
                        channel = (exe_edge.input_number, ev.subtask_index)
                        k = consumed_subpartition_index(consumer.subtask_index, len(targets))
                        targets[k] = (c_sub, channel)
                    rng = record_writer_rng(
                        self.seed, vertex.name, ev.subtask_index, output_index, job_edge.target.name
                    )
                    max_p = ejvs[job_edge.target.id].max_parallelism
                    selector = ChannelSelector(stream_edge.partitioner, len(targets), max_p, rng)
                    outs[id(stream_edge)] = _RecordWriterOutput(self, selector, targets)
                pending[(vertex.id, ev.subtask_index)] = outs
        for vertex in self.job_graph.vertices:
            ejv = ejvs[vertex.id]
            edges = non_chained_out_edges(vertex)
            for sub in shells[vertex.id]:
                outs = pending[(vertex.id, sub.index)]
                writers = [outs[id(e)] for e in edges]
                sub.chain = OperatorChain(
                    vertex, self._environment(ejv, sub.index), writers, settings
                )
                self.writers[(vertex.id, sub.index)] = writers  # type: ignore[assignment]
                ev = ejv.task_vertices[sub.index]
                in_edges = [
                    (job_edge.type_number, num, [e.source.producer.subtask_index for e in group])
                    for num, (job_edge, group) in enumerate(
                        zip(vertex.inputs, ev.input_edges, strict=False)
                    )
                ]
                sub.inputs = StreamInputProcessor(sub.chain, input_channels(in_edges))
        self.subtasks = shells

    # ---- running ----
    def run(
        self, restored: dict[str, list[OperatorSnapshot | None]] | None = None
    ) -> LocalJobResult:
        """Run to the end; returns collected results, printed lines and final keyed state."""
        from pyflowkit.state.key_groups import KeyGroupRange
        from pyflowkit.state.snapshot import assign_snapshot

        all_subs = [s for v in self.job_graph.vertices for s in self.subtasks[v.id]]
        for sub in all_subs:
            per_op: dict[str, OperatorSnapshot | None] = {}
            if restored:
                env = sub.chain.environment
                kgr: KeyGroupRange = env.key_group_range
                for op_id in sub.chain.operator_ids:
                    if op_id in restored:
                        per_op[op_id] = assign_snapshot(
                            restored[op_id], sub.index, env.parallelism, kgr
                        )
            sub.chain.initialize_state(per_op)
            sub.chain.open()
        sources = [s for s in all_subs if s.chain.is_source]
        while True:
            active = [s for s in sources if not s.source_done]
            if not active:
                break
            for sub in active:
                status = sub.chain.emit_next(self.batch_size)
                self._drain()
                if status is InputStatus.END_OF_INPUT:
                    sub.source_done = True
                    sub.chain.end_input(0)
                    self._finish(sub)
                    self._drain()
            if self.processing_time_step > 0:
                self.clock.advance(self.processing_time_step)
                self._drain()
        self._drain()
        for sub in all_subs:
            state = sub.chain.keyed_state()
            for op_name, st in state.items():
                self.result.keyed_state.setdefault(op_name, {})[sub.index] = st
        return self.result

    def snapshot(self, checkpoint_id: int = 1) -> dict[str, list[OperatorSnapshot]]:
        """Operator id → per-subtask snapshots of the current state (for restore tests)."""
        out: dict[str, list[OperatorSnapshot]] = {}
        for vertex in self.job_graph.vertices:
            for sub in self.subtasks[vertex.id]:
                for op_id, snap in sub.chain.snapshot_state(checkpoint_id, 0).items():
                    out.setdefault(op_id, []).append(snap)
        return out

    def _finish(self, sub: _Subtask) -> None:
        if sub.finished:
            return
        sub.finished = True
        sub.chain.close()
        for writer in self.writers[(sub.vertex.id, sub.index)]:
            writer.end_of_partition()
        sub.chain.dispose()

    def _drain(self) -> None:
        queue = self.queue
        popleft = queue.popleft
        while queue:
            kind, (sub, channel), payload, ts = popleft()
            inputs = sub.inputs
            if kind == _RECORD:
                inputs.process_record(channel, payload, ts)
            elif kind == _KEYED_RECORD:  # with the key its HASH edge selected
                inputs.process_record(channel, payload[0], ts, (payload[1],))
            elif kind == _WATERMARK:
                inputs.process_watermark(channel, payload)
            elif inputs.end_of_channel(channel) is not None and inputs.is_finished:
                self._finish(sub)


def run_local(env_or_job_graph: Any, **kwargs: Any) -> LocalJobResult:
    """Compile (if given an environment) and run with ``LocalDriver``."""
    job_graph = env_or_job_graph
    if hasattr(env_or_job_graph, "get_job_graph"):
        job_graph = env_or_job_graph.get_job_graph()
    return LocalDriver(job_graph, **kwargs).run()
