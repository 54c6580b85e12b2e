"""PyFlink's ``pyflink.datastream.connectors.file_system``: ``FileSource`` and ``FileSink``.

The builders and names are PyFlink's; reading and writing happen in ``pyflowkit.operators``
(``file_source``, ``file_sink``), so the simulated cluster and Spark run the same code.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.serialization import BulkWriterFactory
from pyflowkit.common.time import Duration
from pyflowkit.datastream.connectors.base import (
    Sink,
    Source,
    StreamTransformer,
    SupportsPreprocessing,
)
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators import file_sink as _sink
from pyflowkit.operators import file_source as _source
from pyflowkit.operators.file_sink_config import (
    BasePathBucketAssigner,
    BucketAssigner,
    DateTimeBucketAssigner,
    DefaultRollingPolicy,
    OnCheckpointRollingPolicy,
    OutputFileConfig,
    OutputFileConfigBuilder,
    RollingPolicy,
)
from pyflowkit.operators.file_source import TextLineFormat
from pyflowkit.operators.streaming_file_sink import StreamingFileSinkFunction

__all__ = [
    "BaseBuilder",
    "BasePathBucketAssigner",
    "BucketAssigner",
    "BulkFormatBuilder",
    "DateTimeBucketAssigner",
    "DefaultRollingPolicy",
    "FileSink",
    "FileSource",
    "FileSourceBuilder",
    "OnCheckpointRollingPolicy",
    "OutputFileConfig",
    "OutputFileConfigBuilder",
    "RollingPolicy",
    "RowFormatBuilder",
    "StreamFormat",
    "StreamingFileSink",
]


class StreamFormat:
    """PyFlink's ``StreamFormat``: how a ``FileSource`` decodes a file into records."""

    @staticmethod
    def text_line_format(charset_name: str = "UTF-8") -> TextLineFormat:
        """Flink's ``TextLineFormat``: one string record per line."""
        return TextLineFormat(charset_name)


class FileSource(_source.FileSource, Source):
    """PyFlink's ``FileSource`` (Flink's ``FileSource``): files split across source subtasks."""

    @staticmethod
    def for_record_stream_format(stream_format: Any, *paths: str) -> FileSourceBuilder:
        return FileSourceBuilder(stream_format, paths)


class FileSourceBuilder:
    """PyFlink's ``FileSourceBuilder``: bounded (default) or monitoring the paths continuously."""

    def __init__(self, stream_format: Any, paths: tuple[str, ...]) -> None:
        FileSource(stream_format, paths)  # validate now, with the builder call in the traceback
        self._format = stream_format
        self._paths = paths
        self._discovery_interval_ms: int | None = None

    def monitor_continuously(self, discovery_interval: Duration) -> FileSourceBuilder:
        """Look for new files every ``discovery_interval``; the source becomes unbounded
        (``Boundedness.CONTINUOUS_UNBOUNDED``)."""
        if not isinstance(discovery_interval, Duration):
            raise IllegalArgumentException(
                "FileSourceBuilder.monitor_continuously() needs a Duration, e.g. "
                f"Duration.of_seconds(10); got {discovery_interval!r}."
            )
        millis = discovery_interval.to_milliseconds()
        if millis <= 0:
            raise IllegalArgumentException(
                "FileSourceBuilder.monitor_continuously(): the discovery interval must be "
                f"positive, got {discovery_interval!r}."
            )
        self._discovery_interval_ms = millis
        return self

    def process_static_file_set(self) -> FileSourceBuilder:
        """Read the files present now, then finish (``Boundedness.BOUNDED``)."""
        self._discovery_interval_ms = None
        return self

    def build(self) -> FileSource:
        return FileSource(self._format, self._paths, self._discovery_interval_ms)


class FileSink(_sink.FileSink, Sink, SupportsPreprocessing):
    """PyFlink's ``FileSink`` (Flink's ``FileSink``), row or bulk format."""

    def get_transformer(self) -> StreamTransformer | None:
        """``SupportsPreprocessing``: PyFlink's FileSink transforms its input only for Java bulk
        formats; pyflowkit's writers take the records as they are (None)."""
        return None

    @staticmethod
    def for_row_format(base_path: str, encoder: Any) -> RowFormatBuilder:
        return RowFormatBuilder(base_path, encoder)

    @staticmethod
    def for_bulk_format(base_path: str, writer_factory: BulkWriterFactory) -> BulkFormatBuilder:
        """A bulk-format sink (e.g. ``CsvBulkWriters.for_schema``); part files roll on every
        checkpoint (Flink's ``FileSink.forBulkFormat``)."""
        return BulkFormatBuilder(base_path, writer_factory)


class BaseBuilder:
    """PyFlink's ``FileSink.BaseBuilder``: what row- and bulk-format sinks are built with."""

    _what = "FileSink"

    def __init__(self, base_path: str, writer: Any, rolling_policy: RollingPolicy | None) -> None:
        FileSink(base_path, writer)  # validate now, with the builder call in the traceback
        self._base_path = base_path
        self._writer = writer
        self._bucket_assigner: BucketAssigner | None = None
        self._rolling_policy = rolling_policy
        self._output_file_config: OutputFileConfig | None = None
        self._bucket_check_interval = _sink.DEFAULT_BUCKET_CHECK_INTERVAL

    def with_bucket_check_interval(self, interval: int) -> BaseBuilder:
        FileSink(self._base_path, self._writer, bucket_check_interval=interval)  # validate
        self._bucket_check_interval = interval
        return self

    def with_bucket_assigner(self, bucket_assigner: BucketAssigner) -> BaseBuilder:
        if not isinstance(bucket_assigner, BucketAssigner):
            raise IllegalArgumentException(
                f"{self._what}.with_bucket_assigner() needs a BucketAssigner (e.g. "
                f"BucketAssigner.base_path_bucket_assigner()), got {bucket_assigner!r}."
            )
        self._bucket_assigner = bucket_assigner
        return self

    def with_rolling_policy(self, rolling_policy: RollingPolicy) -> BaseBuilder:
        if not isinstance(rolling_policy, RollingPolicy):
            raise IllegalArgumentException(
                f"{self._what}.with_rolling_policy() needs a RollingPolicy (e.g. "
                f"RollingPolicy.default_rolling_policy()), got {rolling_policy!r}."
            )
        self._rolling_policy = rolling_policy
        return self

    def with_output_file_config(self, output_file_config: OutputFileConfig) -> BaseBuilder:
        if not isinstance(output_file_config, OutputFileConfig):
            raise IllegalArgumentException(
                f"{self._what}.with_output_file_config() needs an OutputFileConfig (e.g. "
                f"OutputFileConfig.builder().build()), got {output_file_config!r}."
            )
        self._output_file_config = output_file_config
        return self

    def build(self) -> FileSink:
        return FileSink(
            self._base_path,
            self._writer,
            self._bucket_assigner,
            self._rolling_policy,
            self._output_file_config,
            self._bucket_check_interval,
        )


class RowFormatBuilder(BaseBuilder):
    """PyFlink's ``FileSink.RowFormatBuilder``: any rolling policy (default
    ``DefaultRollingPolicy``)."""

    _what = "RowFormatBuilder"

    def __init__(self, base_path: str, encoder: Any) -> None:
        super().__init__(base_path, encoder, None)


class BulkFormatBuilder(BaseBuilder):
    """PyFlink's ``FileSink.BulkFormatBuilder``: rolling only on checkpoints, as bulk writers
    cannot resume a part file."""

    _what = "BulkFormatBuilder"

    def __init__(self, base_path: str, writer_factory: BulkWriterFactory) -> None:
        if not isinstance(writer_factory, BulkWriterFactory):
            raise IllegalArgumentException(
                "FileSink.for_bulk_format() needs a BulkWriterFactory (e.g. "
                f"CsvBulkWriters.for_schema(schema)), got {writer_factory!r}."
            )
        super().__init__(base_path, writer_factory, OnCheckpointRollingPolicy())

    def with_rolling_policy(self, rolling_policy: OnCheckpointRollingPolicy) -> BulkFormatBuilder:
        if not isinstance(rolling_policy, OnCheckpointRollingPolicy):
            raise IllegalArgumentException(
                "BulkFormatBuilder.with_rolling_policy() needs a checkpoint rolling policy "
                "(RollingPolicy.on_checkpoint_rolling_policy()): bulk formats roll on every "
                f"checkpoint, got {rolling_policy!r}."
            )
        self._rolling_policy = rolling_policy
        return self


FileSink.RowFormatBuilder = RowFormatBuilder  # type: ignore[attr-defined]
FileSink.BulkFormatBuilder = BulkFormatBuilder  # type: ignore[attr-defined]
FileSink.BaseBuilder = BaseBuilder  # type: ignore[attr-defined]


class StreamingFileSink(StreamingFileSinkFunction):
    """PyFlink's ``StreamingFileSink`` (Flink's ``StreamingFileSink``): the file sink as a
    ``SinkFunction`` for ``add_sink``, with FileSink's buckets, rolling policies and commits."""

    @staticmethod
    def for_row_format(base_path: str, encoder: Any) -> DefaultRowFormatBuilder:
        return DefaultRowFormatBuilder(base_path, encoder)

    @staticmethod
    def for_bulk_format(
        base_path: str, writer_factory: BulkWriterFactory
    ) -> DefaultBulkFormatBuilder:
        """Bulk-encoded part files, rolled on every checkpoint (``forBulkFormat``)."""
        return DefaultBulkFormatBuilder(base_path, writer_factory)

    def __repr__(self) -> str:
        sink = self.sink
        return (
            f"StreamingFileSink({sink.base_path!r}, {sink.bucket_assigner!r}, "
            f"{sink.rolling_policy!r}, {sink.output_file_config!r})"
        )


class _StreamingBaseBuilder(BaseBuilder):
    """PyFlink's ``StreamingFileSink.BaseBuilder``: FileSink's settings, built into a
    ``StreamingFileSink``."""

    _what = "StreamingFileSink"

    def with_rolling_policy(self, policy: RollingPolicy) -> _StreamingBaseBuilder:  # type: ignore[override]
        BaseBuilder.with_rolling_policy(self, policy)
        return self

    def build(self) -> StreamingFileSink:  # type: ignore[override]
        return StreamingFileSink(BaseBuilder.build(self))


class DefaultRowFormatBuilder(_StreamingBaseBuilder):
    """PyFlink's ``StreamingFileSink.DefaultRowFormatBuilder`` (default ``DefaultRollingPolicy``)."""

    _what = "StreamingFileSink.DefaultRowFormatBuilder"

    def __init__(self, base_path: str, encoder: Any) -> None:
        super().__init__(base_path, encoder, None)

    def with_rolling_policy(self, policy: RollingPolicy) -> DefaultRowFormatBuilder:
        _StreamingBaseBuilder.with_rolling_policy(self, policy)
        return self


class DefaultBulkFormatBuilder(_StreamingBaseBuilder):
    """PyFlink's ``StreamingFileSink.DefaultBulkFormatBuilder``: part files roll on every
    checkpoint (a bulk writer cannot resume a part)."""

    _what = "StreamingFileSink.DefaultBulkFormatBuilder"

    def __init__(self, base_path: str, writer_factory: BulkWriterFactory) -> None:
        if not isinstance(writer_factory, BulkWriterFactory):
            raise IllegalArgumentException(
                "StreamingFileSink.for_bulk_format() needs a BulkWriterFactory (e.g. "
                f"CsvBulkWriters.for_schema(schema)), got {writer_factory!r}."
            )
        super().__init__(base_path, writer_factory, OnCheckpointRollingPolicy())

    def with_rolling_policy(self, policy: OnCheckpointRollingPolicy) -> DefaultBulkFormatBuilder:
        if not isinstance(policy, OnCheckpointRollingPolicy):
            raise IllegalArgumentException(
                "StreamingFileSink.DefaultBulkFormatBuilder.with_rolling_policy() needs a "
                "checkpoint rolling policy (RollingPolicy.on_checkpoint_rolling_policy()): bulk "
                f"formats roll on every checkpoint, got {policy!r}."
            )
        self._rolling_policy = policy
        return self


StreamingFileSink.BaseBuilder = _StreamingBaseBuilder  # type: ignore[attr-defined]
StreamingFileSink.DefaultRowFormatBuilder = DefaultRowFormatBuilder  # type: ignore[attr-defined]
StreamingFileSink.DefaultBulkFormatBuilder = DefaultBulkFormatBuilder  # type: ignore[attr-defined]
