"""The row-format file sink: buckets, in-progress part files, committables and commits.

Stands for Flink's ``FileSink`` (unified Sink API) with ``FileWriter``, ``FileWriterBucket``, the
local file system's recoverable writer and ``FileCommitter``. Layout:
``<base_path>/<bucket id>/<prefix>-<subtask>-<counter><suffix>``; a part is written to the hidden
``.<name>.inprogress`` beside it and renamed on commit. (Flink 1.12's ``FileWriterBucket`` puts a
random 32-character id where pyflowkit puts the subtask index, as ``StreamingFileSink`` does, so
runs are reproducible.) Committables and writer states are plain lists (savepoint-safe).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO

from pyflowkit.common.serialization import Encoder
from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.operators.file_compaction import (
    CompactCoordinator,
    FileCompactor,
    FileCompactStrategy,
)
from pyflowkit.operators.file_sink_config import (
    BucketAssigner,
    DateTimeBucketAssigner,
    OutputFileConfig,
    PartFileInfo,
    RollingPolicy,
)
from pyflowkit.operators.print_format import format_value

DEFAULT_BUCKET_CHECK_INTERVAL = 60 * 1000  # FileSink.DefaultRowFormatBuilder: 1 minute


def in_progress_path(final_path: str) -> str:
    """The hidden staging file of a part (the local recoverable writer's temp file)."""
    head, name = os.path.split(final_path)
    return os.path.join(head, f".{name}.inprogress")


class _InProgressPart:
    """Flink's ``RowWisePartWriter`` over a local recoverable stream: append-only, persistable."""

    def __init__(self, bucket_id: str, final_path: str, creation_time: int, size: int = 0) -> None:
        self.final_path = final_path
        self.temp_path = in_progress_path(final_path)
        self.info = PartFileInfo(bucket_id, creation_time, creation_time, size)
        os.makedirs(os.path.dirname(final_path) or ".", exist_ok=True)
        if size:  # resuming: drop whatever was written after the persisted point
            with open(self.temp_path, "r+b") as f:
                f.truncate(size)
        self.stream: BinaryIO = open(self.temp_path, "ab" if size else "wb")  # noqa: SIM115

    def write(self, data: bytes, now: int) -> None:
        self.stream.write(data)
        self.info.size += len(data)
        self.info.last_update_time = now

    def persist(self) -> list[Any]:
        """``persist()``: flushed bytes survive a failure; the state to resume from."""
        self.stream.flush()
        return [self.info.bucket_id, self.final_path, self.info.size, self.info.creation_time]

    def close_for_commit(self) -> list[Any]:
        """``closeForCommit()``: the committable ``[temp path, final path]``."""
        self.stream.close()
        return [self.temp_path, self.final_path]

    def dispose(self) -> None:
        self.stream.close()


class FileWriterBucket:
    """Flink's ``FileWriterBucket``: one bucket directory with at most one in-progress part."""

    def __init__(self, writer: FileWriter, bucket_id: str, part_counter: int = 0) -> None:
        self.writer = writer
        self.bucket_id = bucket_id
        self.bucket_path = os.path.join(writer.sink.base_path, bucket_id)
        self.part_counter = part_counter
        self.in_progress: _InProgressPart | None = None
        self.pending: list[list[Any]] = []

    def write(self, element: Any, now: int) -> None:
        policy = self.writer.sink.rolling_policy
        if self.in_progress is None or policy.should_roll_on_event(self.in_progress.info, element):
            self._roll(now)
        self.in_progress.write(self.writer.encode(element), now)  # type: ignore[union-attr]

    def _roll(self, now: int) -> None:
        self._close_part()
        config = self.writer.sink.output_file_config
        name = (
            f"{config.part_prefix}-{self.writer.subtask_index}-{self.part_counter}"
            f"{config.part_suffix}"
        )
        self.part_counter += 1
        self.in_progress = _InProgressPart(
            self.bucket_id, os.path.join(self.bucket_path, name), now
        )

    def _close_part(self) -> None:
        if self.in_progress is not None:
            self.pending.append(self.in_progress.close_for_commit())
            self.in_progress = None

    def prepare_commit(self, flush: bool) -> list[list[Any]]:
        part = self.in_progress
        if part is not None and (
            flush or self.writer.sink.rolling_policy.should_roll_on_checkpoint(part.info)
        ):
            self._close_part()
        out, self.pending = self.pending, []
        return out

    def on_processing_time(self, now: int) -> None:
        part = self.in_progress
        if part is not None and self.writer.sink.rolling_policy.should_roll_on_processing_time(
            part.info, now
        ):
            self._close_part()

    @property
    def is_active(self) -> bool:
        return self.in_progress is not None or bool(self.pending)


class FileWriter:
    """Flink's ``FileWriter`` (a ``SinkWriter``): routes records to buckets, rolls parts on
    events, checkpoints and every ``bucket_check_interval`` ms of processing time."""

    def __init__(
        self,
        sink: FileSink,
        subtask_index: int,
        clock: Callable[[], int],
        states: Sequence[Sequence[Any]] = (),
        input_type: Any = None,
    ) -> None:
        self.sink = sink
        self.subtask_index = subtask_index
        self.clock = clock
        self.encode = _encoder_function(sink.encoder, input_type)
        self.buckets: dict[str, FileWriterBucket] = {}
        strategy = getattr(sink, "compact_strategy", None)
        self.compaction = (
            CompactCoordinator(strategy, sink.file_compactor) if strategy is not None else None
        )
        for state in states:
            self._restore(state)

    def _restore(self, state: Sequence[Any]) -> None:
        """``FileWriterBucketState``: ``[bucket id, part counter, in-progress or None]``, or a
        bucket's files held for compaction (a dict)."""
        if isinstance(state, dict):
            if self.compaction is None:
                raise IllegalStateException(
                    "FileSink: the restored state holds files waiting for compaction, but this "
                    "sink has compaction disabled; enable_compact() as before to restore it."
                )
            self.compaction.restore(state)
            return
        bucket_id, counter, part = state
        bucket = self.buckets.get(bucket_id)
        if bucket is None:
            bucket = self.buckets[bucket_id] = FileWriterBucket(self, bucket_id, int(counter))
        bucket.part_counter = max(bucket.part_counter, int(counter))
        if part is not None:
            _, final_path, size, created = part
            if not os.path.exists(in_progress_path(final_path)):
                raise IllegalStateException(
                    f"FileSink cannot resume the in-progress file of {final_path!r}: it is gone."
                )
            bucket._close_part()
            bucket.in_progress = _InProgressPart(bucket_id, final_path, int(created), int(size))

    def write(self, element: Any) -> None:
        now = self.clock()
        bucket_id = self.sink.bucket_assigner.get_bucket_id(element, now)
        bucket = self.buckets.get(bucket_id)
        if bucket is None:
            bucket = self.buckets[bucket_id] = FileWriterBucket(self, bucket_id)
        bucket.write(element, now)

    def prepare_commit(self, flush: bool) -> list[list[Any]]:
        committables: list[list[Any]] = []
        compaction = self.compaction
        for bucket_id, bucket in list(self.buckets.items()):
            pending = bucket.prepare_commit(flush)
            if compaction is None:
                committables.extend(pending)
            else:  # held back until the compaction strategy fires
                for committable in pending:
                    compaction.add(bucket_id, committable)
        if compaction is not None:
            committables.extend(compaction.on_checkpoint(flush))
        return committables

    def snapshot_state(self) -> list[Any]:
        states: list[Any] = []
        if self.compaction is not None:
            states.extend(self.compaction.snapshot())
        for bucket_id, bucket in self.buckets.items():
            part = bucket.in_progress.persist() if bucket.in_progress is not None else None
            states.append([bucket_id, bucket.part_counter, part])
        return states

    def on_processing_time(self, now: int) -> None:
        for bucket in self.buckets.values():
            bucket.on_processing_time(now)

    def close(self) -> None:
        for bucket in self.buckets.values():
            if bucket.in_progress is not None:
                bucket.in_progress.dispose()


def _encoder_function(encoder: Any, input_type: Any) -> Callable[[Any], bytes]:
    """Flink's ``SimpleStringEncoder`` writes Java's ``toString`` of the record: for a declared
    type that is the print sink's text (``(to,1)`` for a Tuple2); other encoders encode as is."""
    if type(encoder) is Encoder:
        charset = encoder.charset_name

        def simple_string(element: Any) -> bytes:
            return (format_value(element, input_type) + "\n").encode(charset)

        return simple_string
    return encoder.encode


class FileCommitter:
    """Flink's ``FileCommitter``: publishes a pending part by renaming it to its final name."""

    def commit(self, committables: Sequence[Sequence[Any]]) -> list[Any]:
        for committable in committables:
            temp_path, final_path = committable[0], committable[1]
            if os.path.exists(temp_path):
                os.replace(temp_path, final_path)
            elif not os.path.exists(final_path):  # neither: the part was lost
                raise IllegalStateException(
                    f"FileSink cannot commit {final_path!r}: its in-progress file {temp_path!r} "
                    "does not exist."
                )
            for compacted_input in committable[2] if len(committable) > 2 else ():
                if os.path.exists(compacted_input):  # a compaction's inputs, now published
                    os.remove(compacted_input)
        return []  # nothing to retry

    def close(self) -> None:
        pass


class FileSink:
    """Flink's ``FileSink`` for row formats (``FileSink.for_row_format(...).build()``)."""

    def __init__(
        self,
        base_path: str,
        encoder: Any,
        bucket_assigner: BucketAssigner | None = None,
        rolling_policy: RollingPolicy | None = None,
        output_file_config: OutputFileConfig | None = None,
        bucket_check_interval: int = DEFAULT_BUCKET_CHECK_INTERVAL,
        compact_strategy: FileCompactStrategy | None = None,
        file_compactor: FileCompactor | None = None,
    ) -> None:
        base_path = os.fspath(base_path) if base_path is not None else base_path
        if not isinstance(base_path, str) or not base_path:
            raise IllegalArgumentException(
                f"FileSink.for_row_format(): base_path must be a non-empty path, got {base_path!r}."
            )
        if not callable(getattr(encoder, "encode", None)):
            raise IllegalArgumentException(
                "FileSink.for_row_format(): encoder must be an Encoder (e.g. "
                f"Encoder.simple_string_encoder()), got {encoder!r}."
            )
        if isinstance(bucket_check_interval, bool) or not isinstance(bucket_check_interval, int):
            raise IllegalArgumentException(
                f"FileSink: bucket_check_interval must be an int (ms), got {bucket_check_interval!r}."
            )
        if bucket_check_interval <= 0:
            raise IllegalArgumentException(
                f"FileSink: bucket_check_interval must be positive, got {bucket_check_interval}."
            )
        self.base_path = base_path
        self.encoder = encoder
        self.bucket_assigner = bucket_assigner or DateTimeBucketAssigner()
        self.rolling_policy = rolling_policy or RollingPolicy.default_rolling_policy()
        self.output_file_config = output_file_config or OutputFileConfig()
        self.bucket_check_interval = bucket_check_interval
        if (compact_strategy is None) != (file_compactor is None):
            raise IllegalArgumentException(
                "FileSink: compaction needs both a FileCompactStrategy and a FileCompactor, got "
                f"{compact_strategy!r} and {file_compactor!r}."
            )
        self.compact_strategy = compact_strategy
        self.file_compactor = file_compactor

    # ---- Flink's Sink interface ----
    def create_writer(
        self,
        subtask_index: int,
        clock: Callable[[], int],
        states: Sequence[Any] = (),
        input_type: Any = None,
    ) -> FileWriter:
        return FileWriter(self, subtask_index, clock, states, input_type)

    def create_committer(self) -> FileCommitter:
        return FileCommitter()

    def processing_time_interval(self) -> int:
        """How often the writer's ``on_processing_time`` runs (``bucketCheckInterval``)."""
        return self.bucket_check_interval

    def __repr__(self) -> str:
        return (
            f"FileSink({self.base_path!r}, {self.bucket_assigner!r}, {self.rolling_policy!r}, "
            f"{self.output_file_config!r}"
            + (
                f", {self.compact_strategy!r}, {self.file_compactor!r})"
                if self.compact_strategy is not None
                else ")"
            )
        )
