"""The operators that host a unified ``Sink`` (``sink_to``): its writer and its committer.

Flink 1.12's ``StatefulWriterOperator`` and ``StreamingCommitterOperator`` /
``BatchCommitterOperator``. A sink is any object with ``create_writer(subtask_index, clock,
states[, input_type])`` (→ ``write(element)``, ``prepare_commit(flush)``, ``snapshot_state()``, optional
``on_processing_time(now)``/``close()``) and ``create_committer()`` (→ ``commit(committables)``,
or None). The writer emits its committables downstream before each checkpoint barrier and at the
end of input; the committer commits them when the checkpoint completes, at the end of input, and
right after a restore (what a restored checkpoint held).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, ClassVar

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.base import CloseOnce, ProcessingTimeCallbackOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.registry import register_operator

WRITER_STATE = "writer_raw_states"
COMMITTER_STATE = "streaming_committer_raw_states"


def check_sink(sink: Any, where: str) -> Any:
    """A unified Sink (``create_writer``), or a clear error naming ``where``."""
    if sink is None or not callable(getattr(sink, "create_writer", None)):
        raise IllegalArgumentException(
            f"{where} needs a Sink with create_writer() (e.g. FileSink.for_row_format(...)"
            f".build()); got {sink!r}. Use add_sink() for a SinkFunction."
        )
    return sink


class SinkWriterOperator(ProcessingTimeCallbackOperator):
    """Flink's ``StatefulWriterOperator``: writes records with the sink's ``SinkWriter``."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, sink: Any) -> None:
        super().__init__()
        self.sink = check_sink(sink, "Sink Writer")
        self.writer: Any = None
        self._writer_closer = CloseOnce()
        self._state: Any = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        return cls(params.get("sink"))

    def initialize_operator_state(self, is_restored: bool) -> None:
        env = self._env
        self._state = self.operator_state_backend.get_list_state(WRITER_STATE)  # type: ignore[union-attr]
        states = list(self._state.get()) if is_restored else []
        clock = env.processing_time_service.get_current_processing_time
        in_type = self.config.input_types[0] if self.config.input_types else None
        create = self.sink.create_writer
        if len(inspect.signature(create).parameters) >= 4:
            self.writer = create(env.subtask_index, clock, states, in_type)
        else:  # a user Sink without the input type parameter
            self.writer = create(env.subtask_index, clock, states)

    def open(self) -> None:
        interval = getattr(self.sink, "processing_time_interval", None)
        if callable(interval) and callable(getattr(self.writer, "on_processing_time", None)):
            self._interval = interval()
            self._schedule(self.get_processing_time() + self._interval)

    def on_processing_time(self, timestamp: int) -> None:
        self.writer.on_processing_time(self.get_processing_time())
        self._schedule(self.get_processing_time() + self._interval)

    def process_element(self, value: Any, timestamp: int | None) -> None:
        self.writer.write(value)

    def _emit_committables(self, flush: bool) -> None:
        out = self.output
        for committable in self.writer.prepare_commit(flush):
            out.collect(committable, None)  # type: ignore[union-attr]

    def prepare_snapshot_pre_barrier(self, checkpoint_id: int) -> None:
        self._emit_committables(False)

    def snapshot_operator_state(self, checkpoint_id: int) -> None:
        self._state.update(self.writer.snapshot_state())

    def end_input(self) -> None:
        self._emit_committables(True)

    def close(self) -> None:
        """``close``: stop the processing-time ticks, close the ``SinkWriter``."""
        self._cancel()
        self._writer_closer.close(self.writer)

    def dispose(self) -> None:
        """After a failure or cancel: the writer is closed unless close() did it already."""
        self._cancel()
        self._writer_closer.close(self.writer)
        super().dispose()


class CommitterOperator(StreamOperator):
    """Flink's ``StreamingCommitterOperator`` (and ``BatchCommitterOperator``, which commits once
    at the end of input): commits committables per completed checkpoint."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, sink: Any) -> None:
        super().__init__()
        self.sink = check_sink(sink, "Sink Committer")
        self.committer: Any = None
        self._committer_closer = CloseOnce()
        self.pending: list[Any] = []  # received since the last snapshot
        self.per_checkpoint: dict[int, list[Any]] = {}
        self.committed: list[Any] = []
        self._recovered: list[Any] = []
        self._state: Any = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        return cls(params.get("sink"))

    def initialize_operator_state(self, is_restored: bool) -> None:
        self._state = self.operator_state_backend.get_list_state(COMMITTER_STATE)  # type: ignore[union-attr]
        self.committer = self.sink.create_committer()
        if self.committer is None:
            raise IllegalArgumentException(
                f"Operator '{self.config.operator_name}': the sink {self.sink!r} has no committer."
            )
        if is_restored:
            for _checkpoint_id, committables in self._state.get():
                self._recovered.extend(committables)

    def open(self) -> None:
        if self._recovered:
            recovered, self._recovered = self._recovered, []
            self._commit(recovered)

    def process_element(self, value: Any, timestamp: int | None) -> None:
        self.pending.append(value)

    def process_watermark(self, watermark: int) -> None:
        self.current_watermark = watermark
        self.output.emit_watermark(watermark)  # type: ignore[union-attr]

    def snapshot_operator_state(self, checkpoint_id: int) -> None:
        if self.pending:
            self.per_checkpoint.setdefault(checkpoint_id, []).extend(self.pending)
            self.pending = []
        self._state.update([[cid, list(c)] for cid, c in sorted(self.per_checkpoint.items())])

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        due = [cid for cid in sorted(self.per_checkpoint) if cid <= checkpoint_id]
        batch: list[Any] = []
        for cid in due:
            batch.extend(self.per_checkpoint.pop(cid))
        if batch:
            self._commit(batch)

    def end_input(self) -> None:
        batch: list[Any] = []
        for cid in sorted(self.per_checkpoint):
            batch.extend(self.per_checkpoint.pop(cid))
        batch.extend(self.pending)
        self.pending = []
        if batch:
            self._commit(batch)

    def _commit(self, committables: list[Any]) -> None:
        retry = self.committer.commit(committables)
        if retry:
            raise IllegalArgumentException(
                f"Operator '{self.config.operator_name}': {len(retry)} committables need a retry, "
                "which pyflowkit does not do."
            )
        self.committed.extend(committables)

    def close(self) -> None:
        """``close``: close the ``Committer``."""
        self._committer_closer.close(self.committer)

    def dispose(self) -> None:
        """After a failure or cancel: the committer is closed unless close() did it already."""
        self._committer_closer.close(self.committer)
        super().dispose()


register_operator("StatefulWriterOperator", SinkWriterOperator)
register_operator("StreamingCommitterOperator", CommitterOperator)
register_operator("BatchCommitterOperator", CommitterOperator)
