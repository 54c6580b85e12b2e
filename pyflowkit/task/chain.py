"""One subtask's operator chain (Flink's ``OperatorChain``), built from a ``JobVertex``.

Chained edges are direct calls (``ChainingOutput``: set the key context, then ``process_element``,
per ``task.key_context``);
non-chained edges go to host-provided ``RecordWriterOutput``s (one per non-chained out edge, see
``non_chained_out_edges``) which apply the edge's partitioner. Side-output edges receive only the
records tagged with their ``OutputTag``; main edges only untagged ones; watermarks go everywhere.
Operators open tail → head and close head → tail (1.11: each non-head operator's ``end_input``
runs right before its ``close``). In BATCH execution mode nodes get their BATCH operator classes
(``execution_mode.factory_for_mode``) and every config says BATCH.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from pyflowkit.common.flink_version import default_version, profile_for
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.base import StreamOperator
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.declared_types import (
    DeclaredTypeOutput,
    serialized_edges,
    value_check,
)
from pyflowkit.operators.function_state import (
    initialize_function_states,
    snapshot_function_states,
)
from pyflowkit.operators.output import Output
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.task.execution_mode import (
    factory_for_mode,
    resolve_runtime_mode,
    upstream_nodes,
)
from pyflowkit.task.key_context import (
    BatchPush,
    KeyedBatchPush,
    batch_input,
    carried_keys_input,
    carries_keys_for,
    record_input,
)


def non_chained_out_edges(vertex: Any) -> list[Any]:
    """The vertex's outgoing StreamEdges in Flink's order (chain order, then node out edges)."""
    chained = {id(e) for e in vertex.chained_edges}
    return [e for n in vertex.stream_nodes for e in n.out_edges if id(e) not in chained]


def operator_ids(vertex: Any) -> list[str]:
    """Each chained node's operator id (``generated_operator_id``, else the node id)."""
    ids = [p.generated_operator_id for p in getattr(vertex, "operator_ids", []) or []]
    if len(ids) != len(vertex.stream_nodes) or not all(ids):
        return [str(n.id) for n in vertex.stream_nodes]
    return ids


class ChainingOutput(Output):
    """Flink's ``ChainingOutput``: hands a main-output record to the next chained operator, its
    key context set first (``key_context``)."""

    def __init__(self, operator: StreamOperator) -> None:
        self.operator = operator
        self.collect = record_input(operator)  # type: ignore[method-assign]
        self._batch: BatchPush | None = None

    def collect(self, value: Any, timestamp: int | None) -> None:  # replaced per instance
        raise AssertionError("ChainingOutput.collect is bound in __init__")

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        push = self._batch
        if push is None:  # bound on first use: the operator is open by then
            push = self._batch = batch_input(self.operator)
        push(values, timestamps)

    def emit_watermark(self, watermark: int) -> None:
        self.operator.process_watermark(watermark)


class SideChainingOutput(ChainingOutput):
    """A chained side-output edge: only records tagged with ``output_tag`` pass."""

    def __init__(self, operator: StreamOperator, output_tag: Any) -> None:
        super().__init__(operator)
        self.output_tag = output_tag
        self._push = self.collect
        self.collect = self._ignore  # type: ignore[method-assign]

    def _ignore(self, value: Any, timestamp: int | None) -> None:
        pass

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        pass

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        if output_tag == self.output_tag:
            self._push(value, timestamp)


class SideRecordWriterOutput(Output):
    """Wraps a host RecordWriterOutput of a side-output edge: passes only its tag's records."""

    def __init__(self, inner: Output, output_tag: Any) -> None:
        self.inner = inner
        self.output_tag = output_tag

    def collect(self, value: Any, timestamp: int | None) -> None:
        pass

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        pass

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        if output_tag == self.output_tag:
            self.inner.collect(value, timestamp)

    def emit_watermark(self, watermark: int) -> None:
        self.inner.emit_watermark(watermark)

    def close(self) -> None:
        self.inner.close()


class BroadcastingOutputCollector(Output):
    """Flink's ``BroadcastingOutputCollector``: one operator feeding several edges."""

    def __init__(self, outputs: Sequence[Output]) -> None:
        self.outputs = list(outputs)

    def collect(self, value: Any, timestamp: int | None) -> None:
        for out in self.outputs:
            out.collect(value, timestamp)

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        for out in self.outputs:
            out.collect_batch(values, timestamps)

    def collect_side(self, output_tag: Any, value: Any, timestamp: int | None) -> None:
        for out in self.outputs:
            out.collect_side(output_tag, value, timestamp)

    def emit_watermark(self, watermark: int) -> None:
        for out in self.outputs:
            out.emit_watermark(watermark)


class _DiscardingOutput(Output):
    """The output of an operator with no out edges (a sink)."""

    def collect(self, value: Any, timestamp: int | None) -> None:
        pass

    def collect_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        pass

    def emit_watermark(self, watermark: int) -> None:
        pass


def _declared_type_output(node: Any, out: Output, chained: set[int]) -> Output:
    """``out``, checking records against the node's declared output / side output types where
    they are serialised (``declared_types.serialized_edges``)."""
    if not serialized_edges(node, chained):
        return out
    check = value_check(node.output_type)
    tags = [e.output_tag for e in node.out_edges if e.output_tag is not None]
    if check is None and not any(value_check(getattr(t, "type_info", None)) for t in tags):
        return out
    return DeclaredTypeOutput(out, node.operator_name, node.output_type, check)


class OperatorChain:
    """Flink's ``OperatorChain``: the operators of one JobVertex for one subtask, wired together.

    ``record_writer_outputs`` maps each non-chained out StreamEdge (``non_chained_out_edges``) to
    the host's output for it; a sequence is taken in that order. ``settings`` (the graph's
    ``EnvironmentSettings``) supplies the time characteristic, auto-watermark interval and runtime
    mode; a host that resolved the mode job-wide passes ``runtime_mode`` (STREAMING/BATCH).
    """

    takes_carried_keys = True  # process_batch takes the keys a transport carried (HASH edges)

    def __init__(
        self,
        vertex: Any,
        environment: TaskEnvironment,
        record_writer_outputs: Mapping[Any, Output] | Sequence[Output] = (),
        settings: Any = None,
        runtime_mode: str | None = None,
    ) -> None:
        self.vertex = vertex
        self.environment = environment
        edges = non_chained_out_edges(vertex)
        if isinstance(record_writer_outputs, Mapping):
            missing = [str(e) for e in edges if e not in record_writer_outputs]
            if missing:
                raise IllegalArgumentException(
                    f"OperatorChain '{vertex.name}': no RecordWriterOutput for edge(s) "
                    f"{', '.join(missing)}."
                )
            writers = {id(e): record_writer_outputs[e] for e in edges}
        else:
            outs = list(record_writer_outputs)
            if len(outs) != len(edges):
                raise IllegalArgumentException(
                    f"OperatorChain '{vertex.name}' has {len(edges)} non-chained output edge(s) "
                    f"but {len(outs)} RecordWriterOutput(s) were given."
                )
            writers = {id(e): o for e, o in zip(edges, outs, strict=False)}
        self.record_writer_outputs = [writers[id(e)] for e in edges]
        chained = {id(e) for e in vertex.chained_edges}
        self.operator_ids = operator_ids(vertex)
        nodes = list(vertex.stream_nodes)
        if runtime_mode is None:
            mode = getattr(settings, "runtime_mode", "STREAMING")
            runtime_mode = resolve_runtime_mode(mode, lambda: upstream_nodes(vertex))
        self.runtime_mode = runtime_mode
        batch_broadcast = profile_for(
            getattr(settings, "flink_version", None) or default_version()
        ).batch_broadcast
        self.operators: list[StreamOperator] = [
            factory_for_mode(n.operator_factory, runtime_mode, batch_broadcast).create()
            for n in nodes
        ]
        by_node = {n.id: op for n, op in zip(nodes, self.operators, strict=False)}
        configs = [
            StreamConfig.from_stream_node(n, i, self.operator_ids[i], settings)
            for i, n in enumerate(nodes)
        ]
        for i, config in enumerate(configs):
            config.is_chain_start = i == 0
            config.is_chain_end = i == len(nodes) - 1
            config.runtime_mode = runtime_mode
        # set up tail first, so a ChainingOutput sees its operator's keyed config
        for i in reversed(range(len(nodes))):
            node, op = nodes[i], self.operators[i]
            op.setup(environment, configs[i], _DiscardingOutput())
            outputs: list[Output] = []
            for edge in node.out_edges:
                tag = edge.output_tag
                if id(edge) in chained:
                    target = by_node[edge.target.id]
                    outputs.append(
                        ChainingOutput(target) if tag is None else SideChainingOutput(target, tag)
                    )
                else:
                    writer = writers[id(edge)]
                    outputs.append(writer if tag is None else SideRecordWriterOutput(writer, tag))
            if not outputs:
                out: Output = _DiscardingOutput()
            elif len(outputs) == 1:
                out = outputs[0]
            else:
                out = BroadcastingOutputCollector(outputs)
            op.output = _declared_type_output(node, out, chained)
        self.head = self.operators[0]
        self._inputs = self._build_inputs()
        self._batch_inputs: dict[int, BatchPush] = {}  # bound on first use (after open)
        # input → push of records with keys carried from upstream (None: not used), on first use
        self._keyed_inputs: dict[int, KeyedBatchPush | None] = {}

    def _build_inputs(self) -> dict[int, Any]:
        head = self.head
        if head.is_two_input:
            return {1: record_input(head, 1), 2: record_input(head, 2)}
        return {0: record_input(head, 1)}

    # ---- properties ----
    @property
    def is_source(self) -> bool:
        return self.head.is_source

    @property
    def operator_names(self) -> list[str]:
        return [op.config.operator_name for op in self.operators]

    def operator(self, name_or_index: str | int) -> StreamOperator:
        if isinstance(name_or_index, int):
            return self.operators[name_or_index]
        for op in self.operators:
            if op.config.operator_name == name_or_index:
                return op
        raise KeyError(f"No operator named {name_or_index!r} in chain '{self.vertex.name}'.")

    # ---- lifecycle ----
    def initialize_state(
        self, restored: Mapping[str, OperatorSnapshot | None] | None = None
    ) -> None:
        """``initializeState``: every operator's state backends (``restored`` maps operator id →
        that operator's snapshot), then the user functions' own state (``CheckpointedFunction``'s
        ``restoreFunctionState``) — the lifecycle's restore step, the same on every host."""
        restored = restored or {}
        for op_id, op in zip(self.operator_ids, self.operators, strict=False):
            op.initialize_state(restored.get(op_id))
        initialize_function_states(self.operators)

    def open(self) -> None:
        """``initializeStateAndOpenOperators``' open part: tail → head."""
        for op in reversed(self.operators):
            op.open()

    def close(self) -> None:
        """``closeOperators``: head → tail; non-head operators get ``end_input`` first (1.11)."""
        for i, op in enumerate(self.operators):
            if i > 0:
                op.end_input()
            op.close()
        for writer in self.record_writer_outputs:
            writer.close()

    def dispose(self) -> None:
        """``disposeAllOperators``: head → tail, every operator even if one fails."""
        first: BaseException | None = None
        for op in self.operators:
            try:
                op.dispose()
            except Exception as exc:  # keep disposing the rest
                first = first or exc
        if first is not None:
            raise first

    def dispose_after_failure(self) -> None:
        """``dispose`` after the task failed: the failure, not a dispose error, is reported."""
        with contextlib.suppress(Exception):
            self.dispose()

    # ---- inputs ----
    def _input(self, input_index: int) -> Any:
        push = self._inputs.get(input_index)
        if push is None:
            raise IllegalArgumentException(
                f"Chain '{self.vertex.name}': its head has no input {input_index} (inputs: "
                f"{sorted(self._inputs)})."
            )
        return push

    def process_element(self, value: Any, timestamp: int | None, input_index: int = 0) -> None:
        """A record for the head: input 0 for one-input heads, 1/2 (type numbers) for two-input."""
        self._input(input_index)(value, timestamp)

    def process_batch(
        self,
        values: Sequence[Any],
        timestamps: Sequence[int | None] | None = None,
        input_index: int = 0,
        keys: Sequence[Any] | None = None,
    ) -> None:
        """Many records for the head, each under its own key (``key_context.batch_input``);
        ``keys``: the keys selected for them upstream, used where they are the head's own
        (``key_context.carried_keys_input``)."""
        if keys is not None:
            inputs = self._keyed_inputs
            if input_index in inputs:
                keyed = inputs[input_index]
            else:
                self._input(input_index)
                head_node = self.vertex.stream_nodes[0]
                keyed = inputs[input_index] = (
                    carried_keys_input(self.head, input_index or 1)
                    if carries_keys_for(head_node, input_index)
                    else None
                )
            if keyed is not None:
                keyed(values, timestamps, keys)
                return
        push = self._batch_inputs.get(input_index)
        if push is None:
            self._input(input_index)
            push = self._batch_inputs[input_index] = batch_input(self.head, input_index or 1)
        push(values, timestamps)

    def process_watermark(self, watermark: int, input_index: int = 0) -> None:
        """A watermark for the head (already aligned over the gate's channels by the valve)."""
        head = self.head
        if head.is_two_input:
            self._input(input_index)
            if input_index == 1:
                head.process_watermark1(watermark)  # type: ignore[attr-defined]
            else:
                head.process_watermark2(watermark)  # type: ignore[attr-defined]
        else:
            self._input(input_index)
            head.process_watermark(watermark)

    def end_input(self, input_index: int = 0) -> None:
        """``endHeadOperatorInput``: an input of the head has ended."""
        self._input(input_index)
        if self.head.is_two_input:
            self.head.end_input(input_index)  # type: ignore[call-arg]
        else:
            self.head.end_input()

    def emit_next(self, max_records: int) -> Any:
        """Source chains: read up to ``max_records`` and push them; returns an ``InputStatus``."""
        if not self.is_source:
            raise IllegalArgumentException(
                f"Chain '{self.vertex.name}' does not start at a source."
            )
        return self.head.emit_next(max_records)  # type: ignore[attr-defined]

    # ---- checkpoints ----
    def prepare_snapshot_pre_barrier(self, checkpoint_id: int) -> None:
        for op in self.operators:
            op.prepare_snapshot_pre_barrier(checkpoint_id)

    def snapshot_state(self, checkpoint_id: int, timestamp: int) -> dict[str, OperatorSnapshot]:
        """Operator id → snapshot, for every chained operator; user functions with their own
        state snapshot it first (``snapshotFunctionState``)."""
        snapshot_function_states(self.operators, checkpoint_id, timestamp)
        return {
            op_id: op.snapshot_state(checkpoint_id, timestamp)
            for op_id, op in zip(self.operator_ids, self.operators, strict=False)
        }

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        for op in self.operators:
            op.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        for op in self.operators:
            op.notify_checkpoint_aborted(checkpoint_id)

    def keyed_state(self) -> dict[str, dict[str, dict[Any, Any]]]:
        """Operator name → state name → {key: value} (void namespace), for inspection."""
        return {
            op.config.operator_name: op.keyed_state_backend.dump()
            for op in self.operators
            if op.keyed_state_backend is not None
        }
