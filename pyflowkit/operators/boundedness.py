"""Flink's ``Boundedness`` of a source (``org.apache.flink.api.connector.source``)."""

from __future__ import annotations

from enum import Enum


class Boundedness(Enum):
    """Whether a source's input ends (``BOUNDED``) or not (``CONTINUOUS_UNBOUNDED``).

    Mirrors ``org.apache.flink.api.connector.source.Boundedness`` (FLIP-27).
    """

    BOUNDED = "BOUNDED"
    CONTINUOUS_UNBOUNDED = "CONTINUOUS_UNBOUNDED"
