"""``TimeCharacteristic`` (PyFlink's ``pyflink.datastream.TimeCharacteristic``)."""

from __future__ import annotations

from enum import Enum


class TimeCharacteristic(Enum):
    """Flink's ``TimeCharacteristic`` (1.11 default: ``ProcessingTime``)."""

    ProcessingTime = 0
    IngestionTime = 1
    EventTime = 2
