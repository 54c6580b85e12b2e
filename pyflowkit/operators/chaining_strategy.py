"""Flink 1.11's ``ChainingStrategy`` (``org.apache.flink.streaming.api.operators``)."""

from __future__ import annotations

from enum import Enum


class ChainingStrategy(Enum):
    """Whether an operator may be chained to its predecessor and successors (``ChainingStrategy``).

    Mirrors ``org.apache.flink.streaming.api.operators.ChainingStrategy`` of Flink 1.11.
    """

    ALWAYS = "ALWAYS"
    NEVER = "NEVER"
    HEAD = "HEAD"
