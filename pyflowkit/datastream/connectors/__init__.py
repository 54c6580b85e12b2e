"""Connectors (PyFlink's ``pyflink.datastream.connectors``): sources and sinks."""

from pyflowkit.datastream.connectors.file_system import (
    BucketAssigner,
    FileSink,
    FileSource,
    OutputFileConfig,
    RollingPolicy,
    StreamFormat,
)
from pyflowkit.datastream.connectors.number_seq import NumberSequenceSource
from pyflowkit.operators.sources import (
    CollectionSource,
    DataGeneratorSource,
    Source,
    StatefulSequenceSource,
    TextFileSource,
)

__all__ = [
    "BucketAssigner",
    "CollectionSource",
    "DataGeneratorSource",
    "FileSink",
    "FileSource",
    "OutputFileConfig",
    "RollingPolicy",
    "StreamFormat",
    "NumberSequenceSource",
    "Source",
    "StatefulSequenceSource",
    "TextFileSource",
]
