"""Dewey numbers: versions of partial matches (Flink's ``org.apache.flink.cep.nfa.DeweyNumber``).

A version is a tuple of ints (immutable, plain data); ``1.0.2`` is ``(1, 0, 2)``.
"""

from __future__ import annotations

DeweyNumber = tuple[int, ...]

START: DeweyNumber = (1,)


def increase(version: DeweyNumber, times: int = 1) -> DeweyNumber:
    """``DeweyNumber.increase(times)``: the last digit plus ``times``."""
    if times == 0:
        return version
    return (*version[:-1], version[-1] + times)


def add_stage(version: DeweyNumber) -> DeweyNumber:
    """``DeweyNumber.addStage``: a new trailing digit 0."""
    return (*version, 0)


def is_compatible_with(version: DeweyNumber, other: DeweyNumber) -> bool:
    """``DeweyNumber.isCompatibleWith``: ``other`` is a prefix of ``version``, or they differ only in
    a last digit of ``version`` that is greater or equal."""
    n, m = len(version), len(other)
    if n > m:
        return version[:m] == other
    if n == m:
        return version[:-1] == other[:-1] and version[-1] >= other[-1]
    return False


def to_string(version: DeweyNumber) -> str:
    """``DeweyNumber.toString``: digits joined by dots."""
    return ".".join(str(d) for d in version)
