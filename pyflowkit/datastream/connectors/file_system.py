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
from pyflowkit.operators.file_compaction import FileCompactor, FileCompactStrategy
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
    "BulkFormat",
    "BulkFormatBuilder",
    "DateTimeBucketAssigner",
    "DefaultRollingPolicy",
    "FileCompactStrategy",
    "FileCompactor",
    "FileEnumeratorProvider",
    "FileSink",
    "FileSource",
    "FileSourceBuilder",
    "FileSplitAssignerProvider",
    "OnCheckpointRollingPolicy",
    "OutputFileConfig",
    "OutputFileConfigBuilder",
    "RollingPolicy",
    "RowFormatBuilder",
    "StreamFormat",
    "StreamingFileSink",
]


class FileEnumeratorProvider:
    """PyFlink's ``FileEnumeratorProvider``: how a ``FileSource`` finds its files and splits.

    Both of Flink's enumerators walk the paths recursively and skip hidden files (names starting
    with ``.`` or ``_``). The splittable one cuts a file at its storage blocks; the local file
    system reports one block per file (Flink's ``LocalFileSystem``), so on it both give one split
    per file."""

    def __init__(self, splittable: bool) -> None:
        self.splittable = bool(splittable)

    @staticmethod
    def default_splittable_file_enumerator() -> FileEnumeratorProvider:
        """Flink's ``BlockSplittingRecursiveEnumerator``."""
        return FileEnumeratorProvider(True)

    @staticmethod
    def default_non_splittable_file_enumerator() -> FileEnumeratorProvider:
        """Flink's ``NonSplittingRecursiveEnumerator`` (the default of stream formats)."""
        return FileEnumeratorProvider(False)

    def __repr__(self) -> str:
        kind = "BlockSplitting" if self.splittable else "NonSplitting"
        return f"{kind}RecursiveEnumerator"


class FileSplitAssignerProvider:
    """PyFlink's ``FileSplitAssignerProvider``: which reader gets which split.

    Flink's ``LocalityAwareSplitAssigner`` prefers splits stored on the reader's host; every
    split of a local file system is on this host, so splits go out in enumeration order, split
    ``i`` to subtask ``i % parallelism`` (the order readers asking in turn get them)."""

    @staticmethod
    def locality_aware_split_assigner() -> FileSplitAssignerProvider:
        return FileSplitAssignerProvider()

    def __repr__(self) -> str:
        return "LocalityAwareSplitAssigner"


class BulkFormat:
    """PyFlink's ``BulkFormat`` (Flink's): reads a file in batches of records.

    PyFlink's come from Java (ORC, Parquet, Avro); a pyflowkit bulk format is a Python subclass
    implementing ``read_batches(path)`` (an iterator of record sequences) and, optionally,
    ``get_produced_type()``. A restored source skips the records it had read, as Flink's
    ``CheckpointedPosition`` does."""

    is_splittable = False

    def read_batches(self, path: str) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement read_batches(path)")

    def get_produced_type(self) -> Any:
        return None

    # the reader interface of FileSource (what a StreamFormat offers)
    def open(self, path: str) -> Any:
        return _Batches(iter(self.read_batches(path)))

    def read_records(self, file: Any) -> Any:
        for batch in file.batches:
            yield from batch


class _Batches:
    """An open bulk-format file: its batch iterator, closed with the split."""

    def __init__(self, batches: Any) -> None:
        self.batches = batches

    def close(self) -> None:
        closer = getattr(self.batches, "close", None)
        if callable(closer):
            closer()


class StreamFormat:
    """PyFlink's ``StreamFormat``: how a ``FileSource`` decodes a file into records."""

    @staticmethod
    def text_line_format(charset_name: str = "UTF-8") -> TextLineFormat:
        """Flink's ``TextLineFormat``: one string record per line."""
        return TextLineFormat(charset_name)


class FileSource(_source.FileSource, Source):
    """PyFlink's ``FileSource`` (Flink's ``FileSource``): files split across source subtasks."""

    file_enumerator = FileEnumeratorProvider(False)
    split_assigner = FileSplitAssignerProvider()

    @staticmethod
    def for_record_stream_format(stream_format: Any, *paths: str) -> FileSourceBuilder:
        return FileSourceBuilder(stream_format, paths)

    @staticmethod
    def for_bulk_file_format(bulk_format: BulkFormat, *paths: str) -> FileSourceBuilder:
        """A source reading ``paths`` with a ``BulkFormat`` (batches of records per read)."""
        if not isinstance(bulk_format, BulkFormat):
            raise IllegalArgumentException(
                "FileSource.for_bulk_file_format() needs a BulkFormat (a subclass implementing "
                f"read_batches(path)), got {bulk_format!r}."
            )
        return FileSourceBuilder(bulk_format, paths)

    def __repr__(self) -> str:
        return (
            f"{_source.FileSource.__repr__(self)[:-1]}, {self.file_enumerator!r}, "
            f"{self.split_assigner!r})"
        )


class FileSourceBuilder:
    """PyFlink's ``FileSourceBuilder``: bounded (default) or monitoring the paths continuously."""

    def __init__(self, stream_format: Any, paths: tuple[str, ...]) -> None:
        FileSource(stream_format, paths)  # validate now, with the builder call in the traceback
        self._format = stream_format
        self._paths = paths
        self._discovery_interval_ms: int | None = None
        self._enumerator = FileEnumeratorProvider(False)
        self._assigner = FileSplitAssignerProvider()

    def set_file_enumerator(self, file_enumerator: FileEnumeratorProvider) -> FileSourceBuilder:
        """How files are found and split (``setFileEnumerator``)."""
        if not isinstance(file_enumerator, FileEnumeratorProvider):
            raise IllegalArgumentException(
                "FileSourceBuilder.set_file_enumerator() needs a FileEnumeratorProvider (e.g. "
                "FileEnumeratorProvider.default_non_splittable_file_enumerator()), got "
                f"{file_enumerator!r}."
            )
        self._enumerator = file_enumerator
        return self

    def set_split_assigner(self, split_assigner: FileSplitAssignerProvider) -> FileSourceBuilder:
        """Which reader gets which split (``setSplitAssigner``)."""
        if not isinstance(split_assigner, FileSplitAssignerProvider):
            raise IllegalArgumentException(
                "FileSourceBuilder.set_split_assigner() needs a FileSplitAssignerProvider (e.g. "
                f"FileSplitAssignerProvider.locality_aware_split_assigner()), got {split_assigner!r}."
            )
        self._assigner = split_assigner
        return self

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
        source = FileSource(self._format, self._paths, self._discovery_interval_ms)
        source.file_enumerator = self._enumerator
        source.split_assigner = self._assigner
        return source


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
        self._compact: tuple[FileCompactStrategy, FileCompactor] | None = None

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

    def enable_compact(
        self, strategy: FileCompactStrategy, compactor: FileCompactor
    ) -> BaseBuilder:
        """Hold pending part files back and compact them before they are published
        (Flink 1.16's ``enableCompact``)."""
        if not isinstance(strategy, FileCompactStrategy):
            raise IllegalArgumentException(
                f"{self._what}.enable_compact() needs a FileCompactStrategy (e.g. "
                f"FileCompactStrategy.builder().set_size_threshold(1024).build()), got {strategy!r}."
            )
        if not isinstance(compactor, FileCompactor):
            raise IllegalArgumentException(
                f"{self._what}.enable_compact() needs a FileCompactor (e.g. "
                f"FileCompactor.concat_file_compactor()), got {compactor!r}."
            )
        self._compact = (strategy, compactor)
        return self

    def disable_compact(self) -> BaseBuilder:
        """Publish part files as they are (the default)."""
        self._compact = None
        return self

    def build(self) -> FileSink:
        strategy, compactor = self._compact or (None, None)
        return FileSink(
            self._base_path,
            self._writer,
            self._bucket_assigner,
            self._rolling_policy,
            self._output_file_config,
            self._bucket_check_interval,
            strategy,
            compactor,
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
