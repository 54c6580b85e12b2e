"""One Flink subtask carried across Structured Streaming micro-batches.

Stands for Flink's ``StreamTask`` restored from a checkpoint: every micro-batch builds the vertex's
``OperatorChain`` for one subtask (the same operator objects as the batch stage and the simulated
cluster), restores it from the subtask's last snapshot (keyed state and timers per key group,
operator state, and the watermarks a running task keeps in memory: each operator's current
watermark and the input valves), processes the batch's input chunks in order, flushes its record
writers (Flink's buffer timeout) and snapshots again. A subtask whose inputs have all ended closes
its chain, as a finishing Flink task does, and stays finished. A micro-batch's task is disposed
when the host is done with it (``disposeAllOperators``: the functions it opened are closed),
also after a failure.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.spark import records
from pyflowkit.spark.stage import StageSpec, SubtaskRunner
from pyflowkit.spark.state_files import decode_state, encode_state
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.state.user_types import NO_CLASSES, StateClasses
from pyflowkit.task.processing_clock import ProcessingClock

STREAM_FIELDS = records.FIELDS  # edge, target, producer, seq, payload
_WATERMARK_FIELDS = ("current_watermark", "input1_watermark", "input2_watermark")
TASK_STATE_NAME = "flink_task"  # the state variables a vertex's transformWithState keeps
KEYED_STATE_NAME = "flink_keyed_state"
TIME_MARKER = b"T"  # payload prefix of a producer's in-band processing time (then its ms)


def time_marker(millis: int) -> bytes:
    """The payload of a row carrying a producer's processing time to one consumer channel."""
    return TIME_MARKER + str(millis).encode("ascii")


def marker_time(payload: bytes) -> int | None:
    """The time a marker row carries, else None (a chunk or an end-of-partition row)."""
    if payload[:1] == TIME_MARKER:
        return int(payload[1:])
    return None


def now_ms() -> int:
    """Wall-clock processing time in milliseconds (Flink's ``SystemProcessingTimeService``)."""
    return int(time.time() * 1000)


@dataclass
class SubtaskSnapshot:
    """A subtask's state between micro-batches: Flink's ``TaskStateSnapshot`` plus what a running
    task keeps in memory (watermarks, valves, ended channels)."""

    operators: dict[str, OperatorSnapshot] = field(default_factory=dict)
    watermarks: list[dict[str, int]] = field(default_factory=list)  # per chained operator
    # input → (channel watermarks, channel active flags, last output watermark)
    valves: dict[int, tuple[list, list, int]] = field(default_factory=dict)
    ended: set[tuple[int, int]] = field(default_factory=set)  # (edge, producer) channels ended
    finished: bool = False
    clock: int = 0  # the subtask's processing time (pyflowkit.task.processing_clock)
    wall: int = 0  # the host's wall-clock ms when that time was taken (0: unknown)
    checkpoint: int = 0  # id of the last snapshot (the micro-batches this subtask took part in)
    metrics: dict[str, Any] = field(default_factory=dict)  # the user metrics, carried over

    def split(self, trust_pickled: bool = False) -> tuple[bytes, dict[int, bytes]]:
        """(task part, key group → that key group's keyed state and timers), each in the schema
        codec (no pickle unless ``trust_pickled``: the job trusts its state files)."""
        by_kg: dict[int, dict[str, Any]] = {}
        for op_id, snap in self.operators.items():
            for kg, states in snap.keyed_state.items():
                by_kg.setdefault(kg, {}).setdefault(op_id, [{}, []])[0] = states
            for kg, timers in snap.timers.items():
                by_kg.setdefault(kg, {}).setdefault(op_id, [{}, []])[1] = timers
        task = {
            "operator_state": {k: s.operator_state for k, s in self.operators.items()},
            "watermarks": self.watermarks,
            "valves": self.valves,
            "ended": sorted(self.ended),
            "finished": self.finished,
            "clock": self.clock,
            "wall": self.wall,
            "checkpoint": self.checkpoint,
            "metrics": self.metrics,
        }
        t = trust_pickled
        return (
            encode_state(task, "the task state of a subtask", t),
            {
                kg: encode_state(v, f"the keyed state of key group {kg}", t)
                for kg, v in by_kg.items()
            },
        )

    @classmethod
    def join(
        cls,
        task: bytes | None,
        key_groups: Iterable[tuple[int, bytes]],
        classes: StateClasses = NO_CLASSES,
        where: str = "the Spark state store",
    ) -> SubtaskSnapshot:
        """The inverse of ``split``: user objects are rebuilt only from ``classes`` (the
        restoring vertex's); a blob that is not schema JSON is refused naming ``where``."""
        snap = cls()
        what = f"the task state ({TASK_STATE_NAME}) in {where}"
        data = decode_state(task, classes, what) if task is not None else {}
        if not isinstance(data, dict):
            raise IllegalArgumentException(f"Cannot restore {what}: expected a JSON object.")
        for op_id, op_state in data.get("operator_state", {}).items():
            snap.operators[op_id] = OperatorSnapshot(operator_state=op_state)
        for kg, blob in key_groups:
            kg_what = f"key group {kg} ({KEYED_STATE_NAME}) in {where}"
            for op_id, (states, timers) in decode_state(blob, classes, kg_what).items():
                op = snap.operators.setdefault(op_id, OperatorSnapshot())
                if states:
                    op.keyed_state[int(kg)] = states
                if timers:
                    op.timers[int(kg)] = timers
        snap.watermarks = data.get("watermarks", [])
        snap.valves = data.get("valves", {})
        snap.ended = {tuple(c) for c in data.get("ended", [])}
        snap.finished = data.get("finished", False)
        snap.clock = data.get("clock", 0)
        snap.wall = data.get("wall", 0)
        snap.checkpoint = data.get("checkpoint", 0)
        snap.metrics = data.get("metrics", {})
        return snap

    def to_bytes(self, trust_pickled: bool = False) -> bytes:
        task, kgs = self.split(trust_pickled)
        return json.dumps(
            {
                "task": task.decode("utf-8"),
                "key_groups": {str(k): v.decode() for k, v in kgs.items()},
            }
        ).encode("utf-8")

    @classmethod
    def from_bytes(
        cls, data: bytes, classes: StateClasses = NO_CLASSES, where: str = "the Spark state store"
    ) -> SubtaskSnapshot:
        what = f"a subtask snapshot in {where}"
        try:  # plain JSON: the task part and each key group's part, schema JSON text each
            doc = json.loads(data)
        except ValueError as exc:
            raise IllegalArgumentException(
                f"Cannot restore {what}: it is not pyflowkit's schema-encoded state: {exc}"
            ) from None
        if (
            not isinstance(doc, dict)
            or not isinstance(doc.get("task"), str)
            or not isinstance(doc.get("key_groups"), dict)
            or not all(isinstance(v, str) for v in doc["key_groups"].values())
        ):
            raise IllegalArgumentException(f"Cannot restore {what}: expected task and key groups.")
        kgs = [(int(k), v.encode("utf-8")) for k, v in doc["key_groups"].items()]
        return cls.join(doc["task"].encode("utf-8"), kgs, classes, where)


class StreamingSubtask:
    """Subtask ``subtask`` of a vertex for one micro-batch: restore → process → snapshot."""

    def __init__(
        self, spec: StageSpec, subtask: int, restored: SubtaskSnapshot | None, now: int
    ) -> None:
        self.spec = spec
        self.subtask = subtask
        self.runner = runner = SubtaskRunner(spec, subtask)
        runner.tick = 0  # processing time is the wall clock here, not one interval per chunk
        self.inputs = runner.inputs  # the task core's input side: channels are (edge, producer)
        self.ended: set[tuple[int, int]] = set()
        self.finished = False
        self.opened = False  # its chain was opened (a task restored finished never is)
        self.disposed = False
        self.base_position = 0  # the offset's position where the reader's own count starts
        self.time = ProcessingClock(0)  # processing time: steps, real waits, in-band markers
        self.waiting_since: float | None = None  # monotonic s its last step read nothing
        try:
            self._restore_and_open(restored, now)
        except BaseException:
            self.dispose(after_failure=True)
            raise

    def _restore_and_open(self, restored: SubtaskSnapshot | None, now: int) -> None:
        runner = self.runner
        clock = max(now, restored.clock if restored is not None else 0)
        self.time = ProcessingClock(clock)
        runner.clock.set_current_time(clock)
        if restored is not None and restored.metrics:  # metrics go on across micro-batches
            runner.env.metric_registry.restore(restored.metrics)
        chain = runner.chain
        # operators' state, then their functions' (e.g. a TwoPhaseCommitSinkFunction's)
        chain.initialize_state(restored.operators if restored is not None else None)
        if restored is not None:
            self._restore_memory(restored)
        if not self.finished:
            self.opened = True
            chain.open()
            if restored is not None and restored.checkpoint:
                # the micro-batch of that snapshot has committed (batches run one after the
                # other): Flink's notifyCheckpointComplete, e.g. sinks commit what it pre-committed
                chain.notify_checkpoint_complete(restored.checkpoint)
            runner.clock.set_current_time(clock)  # restored processing-time timers now due fire

    def dispose(self, after_failure: bool = False) -> None:
        """``StreamTask.disposeAllOperators``: the host is done with this task (its functions
        are closed, a source's thread is cancelled); once. ``after_failure``: a dispose error
        is not raised, the failure is what gets reported."""
        if self.opened and not self.disposed:
            self.disposed = True
            if after_failure:
                self.runner.chain.dispose_after_failure()
            else:
                self.runner.chain.dispose()

    # ---- restore / snapshot ----------------------------------------------------------------
    def _restore_memory(self, snap: SubtaskSnapshot) -> None:
        for op, marks in zip(self.runner.chain.operators, snap.watermarks, strict=False):
            for name, value in marks.items():
                if name == "timers":
                    if op.time_service_manager is not None:
                        op.time_service_manager.current_watermark = value
                else:
                    setattr(op, name, value)
        self.inputs.restore_memory(snap.valves)
        self.ended = set(snap.ended)
        self.inputs.restore_ended(self.ended)
        self.finished = snap.finished

    def snapshot(self, checkpoint_id: int) -> SubtaskSnapshot:
        """Flink's checkpoint of this subtask plus its in-memory watermarks (after ``flush``)."""
        chain = self.runner.chain
        snap = SubtaskSnapshot(
            clock=self.runner.clock.get_current_processing_time(), checkpoint=checkpoint_id
        )
        snap.operators = chain.snapshot_state(checkpoint_id, snap.clock)
        for op in chain.operators:
            marks = {n: getattr(op, n) for n in _WATERMARK_FIELDS if hasattr(op, n)}
            if op.time_service_manager is not None:
                marks["timers"] = op.time_service_manager.current_watermark
            snap.watermarks.append(marks)
        snap.valves = {t: memory[:3] for t, memory in self.inputs.memory().items()}
        snap.ended = set(self.ended)
        snap.finished = self.finished
        snap.metrics = self.runner.env.metric_registry.snapshot()
        return snap

    def input_watermark(self) -> int:
        """The subtask's combined input watermark (min over its inputs' valves)."""
        return self.inputs.current_watermark

    def next_timer(self) -> int | None:
        """When the earliest processing-time callback of this subtask is due (None: none)."""
        if self.finished:
            return None
        return self.runner.clock.next_timer_time()

    # ---- processing --------------------------------------------------------------------------
    @property
    def now(self) -> int:
        """The subtask's processing time."""
        return self.time.now

    def advance_time(self, now: int) -> None:
        """Processing time moves to ``now``: due timers and periodic callbacks fire."""
        self._tick(self.time.advance_to(now))

    def wait(self, millis: float) -> None:
        """The subtask waited ``millis`` of real time with nothing to do: that time passes."""
        self._tick(self.time.waited(millis))

    def _tick(self, now: int) -> None:
        if not self.finished and now > self.runner.clock.get_current_processing_time():
            self.runner.clock.set_current_time(now)

    def process(self, rows: Iterable[tuple[int, int, bytes]]) -> None:
        """Input chunks ``(edge, producer, payload)`` in order: records, watermarks, ends."""
        inputs, input_of_edge = self.inputs, self.runner.input_of_edge
        for edge, producer, payload in rows:
            if self.finished:
                break
            if payload[:1] == TIME_MARKER:  # the producer's processing time, in-band
                self.advance_time(int(payload[1:]))
                continue
            if payload == records.END_OF_PARTITION:
                self.ended.add((edge, producer))
                inputs.end_of_channel((edge, producer))
                if inputs.is_finished:
                    self.finish()
                continue
            values, stamps, watermark, keys = records.decode_chunk(payload)
            if values:  # with the keys a HASH edge selected for them, if it carried them
                inputs.process_batch(input_of_edge[edge], values, stamps, keys)
            if watermark is not None:
                inputs.process_watermark((edge, producer), watermark)

    def position(self) -> int:
        """The source subtask's position for offsets: ``base_position`` plus what its reader
        counts since it was built (see ``reader_position``)."""
        return self.base_position + self.reader_position()

    def reader_position(self) -> int:
        """The reader's own position (records and watermarks read): absolute after a
        positional restore, from 0 after a restore of splits (which carry no count); readers
        whose position is not a count (a FileSource's splits) count emitted records."""
        head = self.runner.chain.head
        snapshot_position = getattr(getattr(head, "reader", None), "snapshot_position", None)
        if callable(snapshot_position):
            position = snapshot_position()
            if isinstance(position, int):
                return position
        return int(getattr(head, "records_emitted", 0))

    def emit_source(self, limit: int | None, deadline: float | None, measure: bool = True) -> bool:
        """Source subtasks: read until position ``limit``, ``deadline`` or the end (True).
        Processing time passes by the shared rule (``pyflowkit.task.processing_clock``): each
        read step by its records' cost or the wall time it really took, plus the pauses the
        source asked for (``ctx.sleep``: not waited for here); the real time since a step that
        read nothing; never the time Spark held the source back between micro-batches."""
        chain = self.runner.chain
        head = chain.head
        if self.waiting_since is not None:  # it had nothing to read until now
            self.wait((time.monotonic() - self.waiting_since) * 1000)
            self.waiting_since = None
        while not self.finished:
            position = self.position()
            if limit is not None and position >= limit:
                break
            wanted = records.CHUNK_RECORDS if limit is None else limit - position
            started = time.monotonic()
            status = getattr(chain.emit_next(min(records.CHUNK_RECORDS, wanted)), "name", "")
            ended = time.monotonic()
            pause = getattr(head, "pending_pause", 0)
            if pause:
                head.pending_pause = 0
            read = self.position() - position
            self._tick(self.time.step(read, (ended - started) * 1000 if measure else 0, pause))
            if measure and not read and status != "END_OF_INPUT":
                self.waiting_since = ended
            if status == "END_OF_INPUT":
                chain.end_input(0)
                self.finish()
            elif status == "NOTHING_AVAILABLE" and deadline is not None:  # not in a replay
                break
            elif deadline is not None and time.monotonic() >= deadline:
                break
        return self.finished

    def finish(self) -> None:
        """All inputs ended: close the chain (its writers send end-of-partition downstream)."""
        if self.finished:
            return
        self.finished = True
        self.runner.chain.close()
        self.runner.clock = _Quiesced(self.runner.clock)

    def drain(self, checkpoint_id: int) -> dict[str, list[Any]]:
        """The batch ends with checkpoint ``checkpoint_id``: Flink's ``prepareSnapshotPreBarrier``
        (e.g. a sink writer hands its committables on), then flush buffered records and sink
        output; the batch's output rows as columns."""
        if not self.finished:
            self.runner.chain.prepare_snapshot_pre_barrier(checkpoint_id)
            for writer in self.runner.writers.values():
                writer.flush()
        self.runner._flush_sinks()
        metrics = self.runner.env.metric_registry.values()
        if metrics:  # the driver keeps each subtask's latest values (as the batch result)
            payload = records.dumps([self.runner.env.task_name_with_subtasks, metrics])
            self.runner.sink.emit(records.METRICS, self.subtask, payload)
        columns = self.runner.sink.drain()
        out = {f: columns[f] for f in STREAM_FIELDS}
        if out["edge"] and not self.finished:  # ahead of the slice: this subtask's time
            self._prepend_time_markers(out)
        out["seq"] = list(range(len(out["edge"])))  # emission order of this subtask's rows
        return out

    def _prepend_time_markers(self, out: dict[str, list[Any]]) -> None:
        """One row per consumer channel carrying this subtask's processing time, ahead of the
        slice (in-band, as the watermark is): the consumer's time follows its producers'."""
        rows = [
            (writer.edge_index, target)
            for writer in self.runner.writers.values()
            for target in writer.selector.targets
        ]
        if not rows:
            return
        payload = time_marker(self.now)
        out["edge"][:0] = [e for e, _ in rows]
        out["target"][:0] = [t for _, t in rows]
        out["producer"][:0] = [self.subtask] * len(rows)
        out["seq"][:0] = [0] * len(rows)
        out["payload"][:0] = [payload] * len(rows)


class _Quiesced:
    """A finished task's timer service: quiesced, nothing fires any more (1.11)."""

    def __init__(self, clock: Any) -> None:
        self.clock = clock

    def get_current_processing_time(self) -> int:
        return self.clock.get_current_processing_time()

    def next_timer_time(self) -> None:
        return None

    def set_current_time(self, timestamp: int) -> None:
        pass


def sorted_input(frames: Iterable[Any]) -> Iterator[tuple[int, int, bytes]]:
    """Rows of pandas frames as ``(edge, producer, payload)`` in (seq, edge, producer) order."""
    rows: list[tuple[int, int, int, bytes]] = []
    for pdf in frames:
        rows.extend(
            zip(
                pdf["seq"].tolist(),
                pdf["edge"].tolist(),
                pdf["producer"].tolist(),
                pdf["payload"].tolist(),
                strict=True,
            )
        )
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return ((int(e), int(p), bytes(b)) for _, e, p, b in rows)
