"""Connectors (PyFlink's ``pyflink.datastream.connectors``): sources and sinks."""

from pyflowkit.datastream.connectors.base import DeliveryGuarantee, Sink, Source
from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    FileEnumeratorProvider,
    FileSink,
    FileSource,
    FileSourceBuilder,
    FileSplitAssignerProvider,
    OutputFileConfig,
    RollingPolicy,
    StreamFormat,
    StreamingFileSink,
)
from pyflowkit.datastream.connectors.hybrid_source import HybridSource, HybridSourceBuilder
from pyflowkit.datastream.connectors.number_seq import NumberSequenceSource
from pyflowkit.operators.sources import (
    CollectionSource,
    DataGeneratorSource,
    StatefulSequenceSource,
    TextFileSource,
)

__all__ = [
    "BucketAssigner",
    "CollectionSource",
    "DataGeneratorSource",
    "DeliveryGuarantee",
    "FileEnumeratorProvider",
    "FileSink",
    "FileSource",
    "FileSourceBuilder",
    "FileSplitAssignerProvider",
    "HybridSource",
    "HybridSourceBuilder",
    "NumberSequenceSource",
    "OutputFileConfig",
    "RollingPolicy",
    "Sink",
    "Source",
    "StatefulSequenceSource",
    "StreamFormat",
    "StreamingFileSink",
    "TextFileSource",
]
