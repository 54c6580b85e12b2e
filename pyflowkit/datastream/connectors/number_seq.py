"""PyFlink's ``pyflink.datastream.connectors.number_seq.NumberSequenceSource``."""

from pyflowkit.operators.sources import NumberSequenceSource

__all__ = ["NumberSequenceSource"]
