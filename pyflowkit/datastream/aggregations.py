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
