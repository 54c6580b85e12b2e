"""``sink_to(sink)``: a unified Sink becomes a writer node and, if it commits, a committer node.

``sinkTo`` appeared in Flink 1.12, after the 1.11 model; pyflowkit follows 1.12's
``SinkTransformationTranslator``: the sink transformation is named ``Sink`` and expands into
``Sink Writer: Sink`` (``StatefulWriterOperator``, the writer's parallelism) and
``Sink Committer: Sink`` (``StreamingCommitterOperator`` at the same parallelism in STREAMING,
``BatchCommitterOperator`` at parallelism 1 in BATCH). Both are plain operator nodes, as in 1.12
(not ``StreamGraph`` sinks). The BATCH/STREAMING choice is made when ``sink_to`` is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyflowkit.datastream.connectors.base import SupportsPreprocessing
from pyflowkit.datastream.data_stream import DataStreamSink
from pyflowkit.graph.runtime_mode import BATCH, resolve_runtime_mode
from pyflowkit.graph.transformations import (
    ChainingStrategy,
    OneInputTransformation,
    OperatorFactory,
    PhysicalTransformation,
)
from pyflowkit.operators.sink_operators import check_sink

if TYPE_CHECKING:
    from pyflowkit.datastream.data_stream import DataStream
    from pyflowkit.datastream.stream_execution_environment import StreamExecutionEnvironment

SINK_NAME = "Sink"  # DataStreamSink's name for a unified Sink (Flink 1.12)
WRITER_PREFIX = "Sink Writer:"
COMMITTER_PREFIX = "Sink Committer:"


def _is_batch(env: StreamExecutionEnvironment) -> bool:
    """BATCH, or AUTOMATIC with only bounded sources (Flink's ``RuntimeExecutionMode``)."""
    boundedness = (t.boundedness for t in env._all_transformations if hasattr(t, "boundedness"))
    return resolve_runtime_mode(env.get_runtime_mode(), boundedness) == BATCH


class UnifiedSinkStreamSink(DataStreamSink):
    """``DataStreamSink`` of ``sink_to``: settings apply to the writer and the committer as
    Flink's translator applies the ``SinkTransformation``'s settings."""

    def __init__(
        self,
        env: StreamExecutionEnvironment,
        writer: PhysicalTransformation,
        committer: PhysicalTransformation | None,
        batch: bool,
    ) -> None:
        super().__init__(env, writer)  # type: ignore[arg-type]
        self._writer = writer
        self._committer = committer
        self._batch = batch
        self._sink_name = SINK_NAME

    def _each(self, apply: Callable[[], Any], committer_too: bool = True) -> UnifiedSinkStreamSink:
        parts = [self._writer]
        if committer_too and self._committer is not None:
            parts.append(self._committer)
        try:
            for part in parts:
                self._transformation = part
                apply()
        finally:
            self._transformation = self._writer
        return self

    def name(self, name: str) -> UnifiedSinkStreamSink:
        DataStreamSink.name(self, name)  # validates (on the writer)
        self._sink_name = name
        self._writer.name = f"{WRITER_PREFIX} {name}"
        if self._committer is not None:
            self._committer.name = f"{COMMITTER_PREFIX} {name}"
        return self

    def get_name(self) -> str:
        return self._sink_name

    def uid(self, uid: str) -> UnifiedSinkStreamSink:
        prefixed = [(self._writer, f"{WRITER_PREFIX} {uid}")]
        if self._committer is not None:
            prefixed.append((self._committer, f"{COMMITTER_PREFIX} {uid}"))
        for part, value in prefixed:
            self._transformation = part
            try:
                DataStreamSink.uid(self, value)
            finally:
                self._transformation = self._writer
        return self

    def set_parallelism(self, parallelism: int) -> UnifiedSinkStreamSink:
        return self._each(
            lambda: DataStreamSink.set_parallelism(self, parallelism), not self._batch
        )

    def set_max_parallelism(self, max_parallelism: int) -> UnifiedSinkStreamSink:
        return self._each(lambda: DataStreamSink.set_max_parallelism(self, max_parallelism))

    def slot_sharing_group(self, slot_sharing_group: str) -> UnifiedSinkStreamSink:
        return self._each(lambda: DataStreamSink.slot_sharing_group(self, slot_sharing_group))

    def set_buffer_timeout(self, timeout_millis: int) -> UnifiedSinkStreamSink:
        return self._each(lambda: DataStreamSink.set_buffer_timeout(self, timeout_millis))


def sink_to(stream: DataStream, sink: Any) -> UnifiedSinkStreamSink:
    """Add the writer (and committer) of ``sink`` after ``stream``; validated before anything
    is added."""
    check_sink(sink, "sink_to()")
    transformer = sink.get_transformer() if isinstance(sink, SupportsPreprocessing) else None
    if transformer is not None:  # PyFlink's sink_to: the sink's preprocessing comes first
        stream = transformer.apply(stream)
    env = stream._env
    batch = _is_batch(env)
    has_committer = callable(getattr(sink, "create_committer", None))
    params = {"sink": sink}
    writer = OneInputTransformation(
        stream._transformation,
        f"{WRITER_PREFIX} {SINK_NAME}",
        OperatorFactory("StatefulWriterOperator", ChainingStrategy.ALWAYS, params),
        None,
        env.get_parallelism(),
    )
    committer = None
    if has_committer:
        committer = OneInputTransformation(
            writer,
            f"{COMMITTER_PREFIX} {SINK_NAME}",
            OperatorFactory(
                "BatchCommitterOperator" if batch else "StreamingCommitterOperator",
                ChainingStrategy.ALWAYS,
                params,
            ),
            None,
            1 if batch else env.get_parallelism(),
        )
    env._add_operator(writer)
    if committer is not None:
        committer.parallelism_configured = batch  # the BATCH committer's setParallelism(1)
        env._add_operator(committer)
    return UnifiedSinkStreamSink(env, writer, committer, batch)
