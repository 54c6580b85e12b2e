"""The invokable of a task: StreamTask and its source / one-input / two-input kinds.

Stands for Flink's ``StreamTask`` (``SourceStreamTask``, ``OneInputStreamTask``,
``TwoInputStreamTask``): ``beforeInvoke`` builds the OperatorChain and opens it tail to head; each
default action of the mailbox processes one input buffer (or lets the source emit one batch);
``afterInvoke`` closes head to tail, flushes and finishes the result partitions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyflowkit.graph.job_graph import JobVertex
from pyflowkit.java_semantics import LONG_MIN_VALUE
from pyflowkit.runtime.checkpoint.task_state import is_task_deployed_as_finished
from pyflowkit.runtime.network import (
    Buffer,
    EndOfData,
    EndOfPartitionEvent,
    SingleInputGate,
    Watermark,
)
from pyflowkit.runtime.record_writer import RecordWriter
from pyflowkit.task.finished_chain import FinishedOperatorChain
from pyflowkit.task.input_processor import StreamInputProcessor, input_channels
from pyflowkit.task.record_writer_output import RecordWriterOutput as TaskRecordWriterOutput

if TYPE_CHECKING:
    from pyflowkit.runtime.checkpoint.task_checkpoint_driver import TaskCheckpointDriver
    from pyflowkit.runtime.task import Task


ChainFactory = Callable[[JobVertex, Any, dict[Any, Any], Any], Any]


def default_chain_factory(
    job_vertex: JobVertex, task_env: Any, outputs: dict[Any, Any], settings: Any
) -> Any:
    """Build ``pyflowkit.task.chain.OperatorChain`` for one subtask.

    Each operator gets its own copy of the user code from ``OperatorFactory.create()``.
    """
    from pyflowkit.task.chain import OperatorChain

    return OperatorChain(job_vertex, task_env, outputs, settings)


def is_end_of_input(status: Any) -> bool:
    """``InputStatus.END_OF_INPUT`` (an enum member, its name, or False for "no more")."""
    if status is False:
        return True
    return getattr(status, "name", status) == "END_OF_INPUT"


class RecordWriterOutput(TaskRecordWriterOutput):
    """The task core's ``RecordWriterOutput`` over a ``RecordWriter`` (buffers of a
    ``ResultPartition`` with credits): the writer routes with the same ``ChannelSelector``, a
    record at a time or a batch in one routing pass."""

    def __init__(self, writer: RecordWriter) -> None:
        super().__init__(writer.selector)
        self.writer = writer
        self.collect = writer.emit  # type: ignore[method-assign]
        self.collect_batch = writer.emit_batch  # type: ignore[method-assign]

    def write(self, channel: int, value: Any, timestamp: int | None) -> None:
        self.writer.records_out += 1
        self.writer._append(channel, (value, timestamp))

    def write_keyed(self, channel: int, value: Any, timestamp: int | None, key: Any) -> None:
        self.writer.records_out += 1
        self.writer._append(channel, (value, timestamp), key, True)  # Buffer.keys

    def emit_watermark(self, watermark: int) -> None:
        self.writer.emit_watermark(watermark)

    def close(self) -> None:
        self.writer.flush_all()


class StreamTask:
    """Flink's ``StreamTask``: runs an OperatorChain inside the task's mailbox loop.

    Abstract base: ``SourceStreamTask``/``OneInputStreamTask``/``TwoInputStreamTask`` implement
    ``is_default_action_available`` and ``process_input``.
    """

    kind = "StreamTask"

    def __init__(self, task: Task) -> None:
        self.task = task
        self.chain: Any = None
        self.record_writers: list[RecordWriter] = []
        self.records_in = 0
        self.current_watermark = LONG_MIN_VALUE
        self.end_of_input = False
        # DataInputStatus.END_OF_DATA (1.14+, FLIP-147): every input read EndOfData(DRAIN); the
        # task ends its data (StreamTask.endData) but still reads barriers and EndOfPartition
        self.end_of_data = False

    @property
    def ended_data(self) -> bool:
        """``StreamTask.endOfDataReceived``: the input ended its data (EndOfData on every
        channel) or ended altogether (a source's end of input, EndOfPartition everywhere)."""
        return self.end_of_data or self.end_of_input

    # -- lifecycle ------------------------------------------------------------------------------
    def before_invoke(self) -> None:
        outputs: dict[Any, Any] = {}
        for writer, rpdd in zip(
            self.task.record_writers, self.task.tdd.produced_partitions, strict=True
        ):
            outputs[rpdd.edge.stream_edge] = RecordWriterOutput(writer)
        self.record_writers = list(self.task.record_writers)
        tdd = self.task.tdd
        jm = self.task.task_executor.job_master
        settings = tdd.settings
        if settings is not None and jm is not None:  # the job-wide mode (AUTOMATIC resolved)
            settings = jm.task_settings(settings)
        self.chain = self.task.chain_factory(tdd.job_vertex, self.task.task_env, outputs, settings)
        restore = tdd.extra.get("restore")
        if is_task_deployed_as_finished(restore):
            self.chain = FinishedOperatorChain(self.chain)
            self.task.emit(
                "StreamTask.restoreInternal",
                f"{self.task.name} is deployed as finished (TaskStateSnapshot.FINISHED_ON_RESTORE "
                f"of checkpoint {tdd.extra.get('restore_checkpoint_id')}): a "
                "FinishedOperatorChain, its operators are not opened"
                + (
                    "; the source skips its execution since the task is finished on restore."
                    if self.chain.is_source
                    else "."
                ),
            )
            restore = None
        self._build_inputs()
        checkpointing = self.checkpointing
        checkpointing.restore(self.chain, restore, tdd.extra.get("restore_checkpoint_id"))
        settings = None if jm is None else jm.job_graph.checkpointing_settings
        checkpointing.setup(self.chain, self.record_writers, list(self.input_gates()), settings)
        self.chain.open()
        checkpointing.recover_channel_state(tdd.extra.get("channel_state"))

    @property
    def checkpointing(self) -> TaskCheckpointDriver:
        """The task's checkpoint side (``SubtaskCheckpointCoordinator``, barrier handler)."""
        return self.task.checkpointing

    def input_gates(self) -> list[SingleInputGate]:
        return []

    def _build_inputs(self) -> None:
        """Input tasks wire their gates to the chain (a source task has none)."""

    def suspended_by_savepoint(self) -> bool:
        """A synchronous savepoint (stop-with-savepoint) holds the task until it completes."""
        return self.task.checkpointing.sync_savepoint_id is not None

    def advance_to_end_of_event_time(self) -> bool:
        """``advanceToEndOfEventTime`` (stop-with-savepoint --drain): only sources act; True if a
        MAX_WATERMARK was emitted."""
        return False

    def finish_task(self, checkpoint_id: int) -> None:
        """``finishTask`` after a stop-with-savepoint completed: only sources act; the others go
        on until their inputs end."""
        self.task.emit(
            "StreamTask.notifyCheckpointComplete",
            f"{self.task.name} leaves the synchronous savepoint loop of savepoint {checkpoint_id} "
            "and processes its input until every upstream partition has ended.",
            checkpoint=checkpoint_id,
        )

    def after_invoke(self) -> None:
        self.chain.close()
        for w in self.record_writers:
            w.flush_all()
        for p in self.task.partitions:
            p.finish()

    def clean_up_invoke(self) -> None:
        if self.chain is not None:
            dispose = getattr(self.chain, "dispose", None)
            if dispose is not None:
                dispose()

    # -- mailbox default action ----------------------------------------------------------------
    def outputs_available(self) -> bool:
        for w in self.record_writers:
            pool = w.partition.pool
            if pool.in_use >= pool.capacity:  # LocalBufferPool.is_available, inlined
                return False
        return True

    def is_default_action_available(self) -> bool:
        raise NotImplementedError

    def process_input(self, fast: bool) -> str:
        """One default action; returns a sentence for the trace."""
        raise NotImplementedError

    def flush(self) -> None:
        for w in self.record_writers:
            w.flush_all()

    @property
    def records_out(self) -> int:
        return sum(w.records_out for w in self.record_writers)

    def queued_output_buffers(self) -> int:
        return sum(p.queued_buffers() for p in self.task.partitions)

    def queued_input_buffers(self) -> int:
        return 0


class SourceStreamTask(StreamTask):
    """Flink's ``SourceStreamTask``: the source emits a batch of records per default action."""

    kind = "SourceStreamTask"
    paused_until = 0  # simulated time until which the source sleeps (SourceContext.sleep)

    def is_default_action_available(self) -> bool:
        return (
            not self.end_of_input
            and self.outputs_available()
            and not self.suspended_by_savepoint()
            and self.task.bus.now >= self.paused_until
        )

    def process_input(self, fast: bool) -> str:
        cfg = self.task.bus.config
        n = cfg.fast_source_batch if fast else cfg.source_batch
        before = self.records_out
        status = self.chain.emit_next(n)
        self.flush()
        emitted = self.records_out - before
        if is_end_of_input(status):
            self.end_of_input = True
            return (
                f"{self.task.name} emitted {emitted} records; its source reached the end of input."
            )
        pause = self._take_pause()
        if pause:
            return (
                f"{self.task.name} emitted {emitted} records; its source sleeps {pause} ms "
                "(simulated processing time)."
            )
        return f"{self.task.name} emitted {emitted} records."

    def _take_pause(self) -> int:
        """The head's requested pause: the source's default action waits that long on the
        simulated clock (the mailbox still runs mail: checkpoints, cancellation)."""
        head = getattr(self.chain, "head", None)
        pause = getattr(head, "pending_pause", 0)
        if pause:
            head.pending_pause = 0
            task = self.task
            self.paused_until = task.bus.now + pause
            task.bus.call_later(
                pause, task.lane, "SourceContext.sleep", task._guard(task.schedule_mailbox)
            )
        return pause

    def advance_to_end_of_event_time(self) -> bool:
        """``StreamSource.advanceToEndOfEventTime``: MAX_WATERMARK, once, into the chain."""
        advance = getattr(self.chain.head, "advance_to_end_of_event_time", None)
        if advance is None or not advance():
            return False
        self.flush()
        return True

    def finish_task(self, checkpoint_id: int) -> None:
        """``SourceStreamTask.finishTask``: cancel the source; it ends without MAX_WATERMARK."""
        self.end_of_input = True
        self.task.emit(
            "SourceStreamTask.finishTask",
            f"{self.task.name} stops its source after savepoint {checkpoint_id} "
            "(stop-with-savepoint); a stopped source emits no MAX_WATERMARK "
            "(StreamSource.run only advances to the end of event time when not canceled).",
            checkpoint=checkpoint_id,
        )


class SourceOperatorStreamTask(SourceStreamTask):
    """Flink's ``SourceOperatorStreamTask`` (a FLIP-27 ``Source``'s task).

    In 1.11 it does not override ``advanceToEndOfEventTime``: ``--drain`` emits no MAX_WATERMARK.
    """

    kind = "SourceOperatorStreamTask"

    def advance_to_end_of_event_time(self) -> bool:
        self.task.emit(
            "StreamTask.advanceToEndOfEventTime",
            f"{self.task.name} does not advance to the end of event time: in Flink 1.11 a "
            "SourceOperatorStreamTask (FLIP-27 source) ignores --drain.",
        )
        return False


class _InputTask(StreamTask):
    """Shared input handling of one- and two-input tasks: gates, valves, end of input."""

    def __init__(self, task: Task) -> None:
        super().__init__(task)
        self.gates: list[SingleInputGate] = []
        self.inputs: StreamInputProcessor | None = None  # the task core's input side
        self._selective = False
        self._next_gate = 0

    def before_invoke(self) -> None:
        self.gates = list(self.task.gates)
        super().before_invoke()

    def _build_inputs(self) -> None:
        """The chain's inputs: a channel is (gate number, channel index on the gate)."""
        in_edges = [
            (g.input_index, number, [c.index for c in g.channels])
            for number, g in enumerate(self.gates)
        ]
        self._gate_number = {id(g): number for number, g in enumerate(self.gates)}
        self.inputs = StreamInputProcessor(self.chain, input_channels(in_edges))
        self._selective = self.inputs.selective  # an InputSelectable head (BATCH broadcast)

    def input_gates(self) -> list[SingleInputGate]:
        return self.gates

    def is_default_action_available(self) -> bool:
        if self.end_of_input:
            return False
        for g in self.gates:
            if g.channels_with_data:  # SingleInputGate.has_data, inlined
                if self._selective and not self.inputs.is_selected(g.input_index):
                    continue  # InputSelectable head: this input is not read now
                return (
                    self.outputs_available()
                    and self.task.checkpointing.sync_savepoint_id is None  # not suspended
                )
        return False

    def queued_input_buffers(self) -> int:
        return sum(g.queued_buffers() for g in self.gates)

    def _poll(self) -> tuple[SingleInputGate, Any, Buffer] | None:
        """The next buffer, round robin over the gates of the inputs the head selects."""
        n = len(self.gates)
        selective = self._selective
        for k in range(n):
            g = self.gates[(self._next_gate + k) % n]
            if selective and not self.inputs.is_selected(g.input_index):
                continue
            got = g.poll_next()
            if got is not None:
                self._next_gate = (self._next_gate + k + 1) % n
                return g, got[0], got[1]
        return None

    def process_input(self, fast: bool) -> str:
        parts: list[str] = []
        rounds = 0
        describe = not fast  # fast mode leaves the sentence out of the trace: not written
        while True:
            got = self._poll()
            if got is None:
                break
            gate, channel, buffer = got
            text = self._process_buffer(gate, channel, buffer, describe)
            if describe:
                parts.append(text)
            rounds += 1
            if not fast or not self.outputs_available() or self.end_of_input or rounds >= 64:
                break
        self.flush()
        return " ".join(parts)

    def _process_buffer(
        self, gate: SingleInputGate, channel: Any, buffer: Buffer, describe: bool = True
    ) -> str:
        """One buffer through the chain; the trace sentence ("" unless ``describe``)."""
        idx = gate.input_index
        checkpointing = self.task.checkpointing
        if buffer.is_event:
            channel.recycle()
            if isinstance(buffer.event, EndOfPartitionEvent):
                checkpointing.on_end_of_partition(gate, channel)
                channel.finished = True
                msg = f"{self.task.name} received EndOfPartitionEvent on channel {channel.index}"
                inputs = self.inputs
                if inputs.end_of_channel(self._channel_id(gate, channel)) is not None:
                    msg += f"; input {idx} ended"
                    if checkpointing.stopped_by_savepoint:
                        msg += (
                            " (after stop-with-savepoint 1.11.1 still calls endInput; 1.11.4 "
                            "skips it without --drain, FLINK-21132)"
                        )
                if inputs.is_finished and all(c.finished for g in self.gates for c in g.channels):
                    self.end_of_input = True  # END_OF_INPUT: EndOfPartition on every channel
                    msg += "; all input ended"
                return msg + "."
            if type(buffer.event) is EndOfData:
                # CheckpointedInputGate.handleEvent: acknowledgeAllRecordsProcessed upstream
                channel.acknowledge_all_records_processed()
                if buffer.event.stop_mode == "DRAIN":
                    return self._end_of_data(gate, channel, buffer.event)
            handled = checkpointing.on_event(gate, channel, buffer.event, describe)
            if not describe:
                return ""
            return handled or f"{self.task.name} received {buffer.event!r}."
        checkpointing.record_in_flight(gate, channel, buffer)  # iterates its elements
        n_records = 0
        watermarks = 0
        values: Any = buffer.values
        if values is not None:  # fast path: records only, held as columns by the RecordWriter
            stamps: Any = buffer.timestamps
        else:
            elements = buffer.elements
            try:  # records only, in element form ((value, timestamp) pairs)
                values, stamps = zip(*elements, strict=True)
            except (TypeError, ValueError):
                values = None
            if values is not None and stamps.count(None) == len(values):
                stamps = None
        inputs = self.inputs
        keys = buffer.keys  # the keys selected upstream (a HASH edge), or None
        if values is not None:
            n_records = len(values)
            inputs.process_batch(idx, values, stamps, keys)
        else:
            batch: list[Any] = []
            for el in elements:
                if type(el) is tuple:
                    batch.append(el)
                    continue
                if batch:
                    inputs.process_batch(
                        idx,
                        [v for v, _ in batch],
                        [t for _, t in batch],
                        None if keys is None else keys[n_records : n_records + len(batch)],
                    )
                    n_records += len(batch)
                    batch = []
                if isinstance(el, Watermark):
                    watermarks += 1
                    inputs.process_watermark(self._channel_id(gate, channel), el.timestamp)
            if batch:
                inputs.process_batch(
                    idx,
                    [v for v, _ in batch],
                    [t for _, t in batch],
                    None if keys is None else keys[n_records:],
                )
                n_records += len(batch)
        self.records_in += n_records
        channel.recycle()
        if not describe:
            return ""
        wm = f" and {watermarks} watermark(s)" if watermarks else ""
        return (
            f"{self.task.name} processed a buffer of {n_records} records{wm} from channel "
            f"{channel.index} (input {idx})."
        )

    def _end_of_data(self, gate: SingleInputGate, channel: Any, event: EndOfData) -> str:
        """``AbstractStreamTaskNetworkInput.processEvent(EndOfData)``: once every channel of an
        input read EndOfData(DRAIN) (``CheckpointedInputGate.hasReceivedEndOfData`` DRAINED) the
        input returns END_OF_DATA and ``StreamOneInputProcessor`` calls ``endInput`` on the head;
        once every input did, the task's ``processInput`` runs ``endData`` (Task._end_data). The
        channel stays open: barriers and EndOfPartitionEvent follow."""
        msg = f"{self.task.name} received {event!r} on channel {channel.index}"
        inputs = self.inputs
        if inputs.end_of_channel(self._channel_id(gate, channel)) is not None:
            msg += f"; input {gate.input_index} ended its data (END_OF_DATA, endInput)"
        if inputs.is_finished and not self.end_of_data:
            self.end_of_data = True
            msg += "; all inputs ended their data"
        return msg + "."

    def _channel_id(self, gate: SingleInputGate, channel: Any) -> tuple[int, int]:
        return (self._gate_number[id(gate)], channel.index)

    @property
    def current_watermark(self) -> int:  # type: ignore[override]
        """The task's input watermark (minimum over its inputs' valves)."""
        return LONG_MIN_VALUE if self.inputs is None else self.inputs.current_watermark

    @current_watermark.setter
    def current_watermark(self, value: int) -> None:
        pass  # derived from the inputs


class OneInputStreamTask(_InputTask):
    """Flink's ``OneInputStreamTask``."""

    kind = "OneInputStreamTask"


class TwoInputStreamTask(_InputTask):
    """Flink's ``TwoInputStreamTask``: two inputs (type numbers 1 and 2), one valve each."""

    kind = "TwoInputStreamTask"


STREAM_TASK_CLASSES: dict[str, type[StreamTask]] = {
    "SourceStreamTask": SourceStreamTask,
    "SourceOperatorStreamTask": SourceOperatorStreamTask,
    "OneInputStreamTask": OneInputStreamTask,
    "TwoInputStreamTask": TwoInputStreamTask,
}
