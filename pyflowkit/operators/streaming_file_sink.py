"""``StreamingFileSink``: the file sink as a ``SinkFunction`` (``add_sink``), on FileSink's buckets.

Flink's ``StreamingFileSink`` (a ``RichSinkFunction`` that is a ``CheckpointedFunction`` and a
``CheckpointListener``) with its ``Buckets`` / ``StreamingFileSinkHelper``: records go to buckets
and in-progress part files (``file_sink.FileWriter``, the same rolling policies and bucket
assigners as ``FileSink``); on a snapshot the parts the rolling policy closes become pending for
that checkpoint and the in-progress ones are persisted; ``notify_checkpoint_complete`` publishes
the pending parts of every checkpoint up to it; a restore publishes what the checkpoint had
pending and resumes the in-progress parts at their persisted length. The exactly-once contract
is FileSink's. At the end of a bounded input every part is published, as Flink 1.15+ does with
its final checkpoint (FLIP-147). Every ``bucket_check_interval`` ms of processing time the
rolling policy's time conditions are checked (``onProcessingTime``).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.functions import CheckpointedFunction, CheckpointListener, SinkFunction
from pyflowkit.operators.file_sink import FileCommitter, FileSink, FileWriter

STATE_NAME = "bucket-states"  # StreamingFileSinkHelper's operator list state


class StreamingFileSinkFunction(SinkFunction, CheckpointedFunction, CheckpointListener):
    """Flink's ``StreamingFileSink`` over a ``FileSink`` configuration (buckets, rolling policy,
    part-file names, bucket check interval)."""

    def __init__(self, sink: FileSink) -> None:
        self.sink = sink
        self._state: Any = None
        self._restored: list[Any] = []
        self._pending: dict[int, list[Any]] = {}
        self._writer: FileWriter | None = None
        self._committer = FileCommitter()
        self._timer: Any = None
        self._closed = False

    # ---- CheckpointedFunction ----
    def initialize_state(self, context: Any) -> None:
        """Publish what the restored checkpoint had pending; keep its in-progress parts to
        resume in ``open`` (``Buckets.initializeState``)."""
        self._state = context.get_operator_state_store().get_list_state(STATE_NAME)
        self._restored, self._pending = [], {}
        self._writer, self._timer, self._closed = None, None, False
        if not context.is_restored():
            return
        recovered: list[Any] = []
        for entry in self._state.get():
            if entry[0] == "bucket":
                self._restored.append(entry[1])
            else:  # ["pending", checkpoint id, committables]
                recovered.extend(entry[2])
        if recovered:
            self._committer.commit(recovered)

    def snapshot_state(self, context: Any) -> None:
        """Parts the policy rolls on checkpoints become pending for this checkpoint; the
        in-progress ones are persisted."""
        writer = self._writer
        if writer is None or self._state is None:
            return
        committables = writer.prepare_commit(False)
        if committables:
            self._pending.setdefault(context.get_checkpoint_id(), []).extend(committables)
        entries: list[Any] = [["bucket", state] for state in writer.snapshot_state()]
        entries.extend(["pending", cid, c] for cid, c in sorted(self._pending.items()))
        self._state.update(entries)

    # ---- CheckpointListener ----
    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        due = [cid for cid in sorted(self._pending) if cid <= checkpoint_id]
        batch: list[Any] = []
        for cid in due:
            batch.extend(self._pending.pop(cid))
        if batch:
            self._committer.commit(batch)

    # ---- SinkFunction ----
    def open(self, runtime_context: Any) -> None:
        operator = runtime_context.operator
        env = operator._env
        self._time = env.processing_time_service
        in_types = operator.config.input_types
        self._writer = self.sink.create_writer(
            runtime_context.get_index_of_this_subtask(),
            self._time.get_current_processing_time,
            self._restored,
            in_types[0] if in_types else None,
        )
        self._restored = []
        self._closed = False
        self._arm(self._time.get_current_processing_time())

    def _arm(self, now: int) -> None:
        self._timer = self._time.register_timer(now + self.sink.bucket_check_interval, self._tick)

    def _tick(self, timestamp: int) -> None:
        self._timer = None
        if self._closed or self._writer is None:
            return
        now = self._time.get_current_processing_time()
        self._writer.on_processing_time(now)
        self._arm(now)

    def invoke(self, value: Any, context: Any) -> None:
        self._writer.write(value)  # type: ignore[union-attr]

    def finish(self) -> None:
        """End of input: every pending and in-progress part is published (the final
        checkpoint of Flink 1.15+)."""
        batch: list[Any] = []
        for cid in sorted(self._pending):
            batch.extend(self._pending.pop(cid))
        if self._writer is not None:
            batch.extend(self._writer.prepare_commit(True))
        if batch:
            self._committer.commit(batch)

    def close(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._writer is not None:
            self._writer.close()
