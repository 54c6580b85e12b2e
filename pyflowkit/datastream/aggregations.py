"""``sum``/``min``/``max``/``min_by``/``max_by`` shared by KeyedStream and the windowed streams.

Flink's ``KeyedStream`` and ``WindowedStream`` each offer these five position/field
aggregations (``SumAggregator``/``ComparableAggregator``); PyFlink keeps the argument names.
"""

from __future__ import annotations

from enum import Enum
from typing import Any


class AccumulateType(Enum):
    """PyFlink's ``KeyedStream.AccumulateType``: which of the five aggregations a keyed
    (``StreamGroupedReduce``) or windowed aggregation runs; ``kind`` is the operator's name for it."""

    MIN = 1
    MAX = 2
    MIN_BY = 3
    MAX_BY = 4
    SUM = 5

    @property
    def kind(self) -> str:
        return self.name.lower()


_JAVA_INT_TYPES = ("Byte", "Short", "Integer", "Long")


def aggregation_spec(kind: str, field: int | str, type_info: Any) -> dict[str, Any]:
    """The operator's description of one aggregation on a resolved ``field`` of ``type_info``.

    A ``sum`` on a declared Byte/Short/Integer/Long tuple/Row field carries that type
    (``field_type``): Flink's ``SumFunction`` adds in Java arithmetic, so the sum wraps on
    overflow, in a ``KeyedStream`` and in a window alike.
    """
    spec: dict[str, Any] = {"kind": kind, "field": field, "first": True}
    if kind == AccumulateType.SUM.kind:
        java_type = _java_int_field(type_info, field)
        if java_type is not None:
            spec["field_type"] = java_type
    return spec


def _java_int_field(type_info: Any, field: int | str) -> str | None:
    """The declared Byte/Short/Integer/Long type of a tuple/Row position, else None."""
    from pyflowkit.common.typeinfo import RowTypeInfo, TupleTypeInfo

    if not isinstance(type_info, (TupleTypeInfo, RowTypeInfo)) or not isinstance(field, int):
        return None
    name = getattr(getattr(type_info.get_field_types()[field], "basic_type", None), "value", None)
    return name if name in _JAVA_INT_TYPES else None


class PositionAggregations:
    """The five field aggregations; ``_aggregation(kind, field)`` builds the operator."""

    def _aggregation(self, kind: str, field: int | str) -> Any:
        raise NotImplementedError

    def sum(self, position_to_sum: int | str = 0) -> Any:
        return self._aggregation(AccumulateType.SUM.kind, position_to_sum)

    def min(self, position_to_min: int | str = 0) -> Any:
        return self._aggregation(AccumulateType.MIN.kind, position_to_min)

    def max(self, position_to_max: int | str = 0) -> Any:
        return self._aggregation(AccumulateType.MAX.kind, position_to_max)

    def min_by(self, position_to_min_by: int | str = 0) -> Any:
        return self._aggregation(AccumulateType.MIN_BY.kind, position_to_min_by)

    def max_by(self, position_to_max_by: int | str = 0) -> Any:
        return self._aggregation(AccumulateType.MAX_BY.kind, position_to_max_by)
