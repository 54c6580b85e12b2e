"""Connectors (PyFlink's ``pyflink.datastream.connectors``): sources and sinks."""

from pyflowkit.datastream.connectors.number_seq import NumberSequenceSource
from pyflowkit.operators.sources import (
    CollectionSource,
    DataGeneratorSource,
    Source,
    StatefulSequenceSource,
    TextFileSource,
)

__all__ = [
    "CollectionSource",
    "DataGeneratorSource",
    "NumberSequenceSource",
    "Source",
    "StatefulSequenceSource",
    "TextFileSource",
]
