"""``sum/min/max/min_by/max_by`` on a windowed stream as reduce functions.

Stand for Flink's ``SumAggregator`` and ``ComparableAggregator`` (``WindowedStream.sum(1)`` is
``reduce(new SumAggregator(1, …))`` + ``PassThroughWindowFunction``): the result keeps the *first*
element's other fields; ``min_by``/``max_by`` return a whole element (the first on ties when
``first`` is true).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from pyflowkit.datastream.functions import ReduceFunction
from pyflowkit.errors import IllegalArgumentException

_KINDS = ("sum", "min", "max", "min_by", "max_by")


def _get(value: Any, field: int | str) -> Any:
    if isinstance(value, tuple | list) or hasattr(value, "_flink_row_fields"):
        return value[field]
    if field in (0, "*"):
        return value  # a basic type: position 0 is the value itself (Flink's SimpleFieldAccessor)
    raise IllegalArgumentException(
        f"Aggregation field {field!r} is not valid for the value {value!r}: only tuples, lists "
        "and Rows have fields; a basic value can only be aggregated at position 0."
    )


def _set(value: Any, field: int | str, new: Any) -> Any:
    """A copy of ``value`` with ``field`` replaced (Flink copies value1, then sets the field)."""
    if isinstance(value, tuple):
        items = list(value)
        items[field] = new  # type: ignore[index]
        return tuple(items)
    if isinstance(value, list) or hasattr(value, "_flink_row_fields"):
        result = copy.copy(value)
        result[field] = new
        return result
    return new


# Java's integer widths: a declared Byte/Short/Integer/Long field sums with two's-complement wrap
JAVA_INT_BITS = {"Byte": 8, "Short": 16, "Integer": 32, "Long": 64}


class SumAggregator(ReduceFunction):
    """Flink's ``SumAggregator``: value1 with ``field`` = value1.field + value2.field.

    With ``java_type`` (the field's declared Byte/Short/Integer/Long) the sum wraps on overflow as
    Flink's ``SumFunction`` (``IntSum``: ``value1 + value2`` in Java ``int``) does.
    """

    def __init__(self, field: int | str, java_type: str | None = None) -> None:
        self.field = field
        self.java_type = java_type
        bits = JAVA_INT_BITS.get(java_type or "")
        self._half = 1 << (bits - 1) if bits else 0
        self._mask = (1 << bits) - 1 if bits else 0

    def reduce(self, value1: Any, value2: Any) -> Any:
        total = _get(value1, self.field) + _get(value2, self.field)
        half = self._half
        if half and not -half <= total < half and type(total) is int:
            total = ((total + half) & self._mask) - half
        return _set(value1, self.field, total)


class ComparableAggregator(ReduceFunction):
    """Flink's ``ComparableAggregator``: min/max (one field) and min_by/max_by (whole element)."""

    def __init__(self, field: int | str, kind: str, first: bool = True) -> None:
        self.field = field
        self.kind = kind
        self.first = first
        self._max = kind in ("max", "max_by")
        self._by = kind.endswith("_by")

    def _extremal(self, o1: Any, o2: Any) -> int:
        """``Comparator.isExtremal``: 1 if o1 wins, 0 on equality, -1 if o2 wins."""
        if o1 == o2:
            return 0
        wins = o1 > o2 if self._max else o1 < o2
        return 1 if wins else -1

    def reduce(self, value1: Any, value2: Any) -> Any:
        o1, o2 = _get(value1, self.field), _get(value2, self.field)
        c = self._extremal(o1, o2)
        if self._by:
            if c == 1 or (c == 0 and self.first):
                return value1
            return value2
        if c == 0 or c == 1:
            return value1
        return _set(value1, self.field, o2)


def aggregator_for(aggregation: Mapping[str, Any], operator: str) -> ReduceFunction:
    """The reduce function for an ``aggregation`` param ``dict(kind, field, first)``."""
    kind = aggregation.get("kind")
    field = aggregation.get("field", 0)
    if kind not in _KINDS:
        raise IllegalArgumentException(
            f"{operator}: unknown aggregation {kind!r}; expected one of {', '.join(_KINDS)}."
        )
    if kind == "sum":
        return SumAggregator(field, aggregation.get("field_type"))
    return ComparableAggregator(field, kind, aggregation.get("first", True))
