"""PyFlink's ``pyflink.datastream.time_domain``: ``TimeDomain`` (defined with the functions)."""

from __future__ import annotations

from pyflowkit.datastream.functions import TimeDomain

__all__ = ["TimeDomain"]
