"""``sum``/``min``/``max``/``min_by``/``max_by`` shared by KeyedStream and the windowed streams.

Flink's ``KeyedStream`` and ``WindowedStream`` each offer these five position/field
aggregations (``SumAggregator``/``ComparableAggregator``); PyFlink keeps the argument names.
"""

from __future__ import annotations

from typing import Any


class PositionAggregations:
    """The five field aggregations; ``_aggregation(kind, field)`` builds the operator."""

    def _aggregation(self, kind: str, field: int | str) -> Any:
        raise NotImplementedError

    def sum(self, position_to_sum: int | str = 0) -> Any:
        return self._aggregation("sum", position_to_sum)

    def min(self, position_to_min: int | str = 0) -> Any:
        return self._aggregation("min", position_to_min)

    def max(self, position_to_max: int | str = 0) -> Any:
        return self._aggregation("max", position_to_max)

    def min_by(self, position_to_min_by: int | str = 0) -> Any:
        return self._aggregation("min_by", position_to_min_by)

    def max_by(self, position_to_max_by: int | str = 0) -> Any:
        return self._aggregation("max_by", position_to_max_by)
