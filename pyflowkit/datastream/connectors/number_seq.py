"""PyFlink's ``pyflink.datastream.connectors.number_seq.NumberSequenceSource``."""

from pyflowkit.datastream.connectors.base import Source
from pyflowkit.operators import sources as _sources

__all__ = ["NumberSequenceSource"]


class NumberSequenceSource(_sources.NumberSequenceSource, Source):
    """PyFlink's ``NumberSequenceSource`` (Flink's): the numbers ``start`` to ``end``, split
    evenly across the subtasks."""
