"""Record-at-a-time operators: Flink's ``StreamMap``, ``StreamFlatMap`` and ``StreamFilter``.

Each keeps the input record's timestamp on its outputs (Flink's ``element.replace``); the batch
paths call the user function in a tight loop and hand whole lists downstream.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pyflowkit.datastream.functions import resolve_method
from pyflowkit.operators.base import AbstractUdfStreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.registry import register_operator
from pyflowkit.operators.user_failure import not_iterable


class _RecordAtATimeOperator(AbstractUdfStreamOperator):
    """A UDF operator that reads no key itself: on a keyed stream only its function might."""

    def batch_keys_itself(self) -> bool:
        return not self.function_reaches_keyed_state


class StreamMap(_RecordAtATimeOperator):
    """Flink's ``StreamMap``: ``MapFunction.map`` (or a callable) per record."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._map = resolve_method(function, "map", "MapFunction", "Map")

    def process_element(self, value: Any, timestamp: int | None) -> None:
        self.output.collect(self._map(value), timestamp)  # type: ignore[union-attr]

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        self.output.collect_batch(list(map(self._map, values)), timestamps)  # type: ignore[union-attr]


class StreamFlatMap(_RecordAtATimeOperator):
    """Flink's ``StreamFlatMap``: ``FlatMapFunction.flat_map`` yields zero or more outputs."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._flat_map = resolve_method(function, "flat_map", "FlatMapFunction", "Flat Map")

    def process_element(self, value: Any, timestamp: int | None) -> None:
        result = self._flat_map(value)
        if result is not None:
            collect = self.output.collect  # type: ignore[union-attr]
            for out in self._iterable(result):
                collect(out, timestamp)

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        fn = self._flat_map
        out: list[Any] = []
        extend = out.extend
        result: Any = None
        try:
            if timestamps is None:
                for v in values:
                    result = fn(v)
                    if result is not None:
                        extend(result)
                self.output.collect_batch(out, None)  # type: ignore[union-attr]
                return
            out_ts: list[int | None] = []
            for v, ts in zip(values, timestamps, strict=False):
                result = fn(v)
                if result is not None:
                    n = len(out)
                    extend(result)
                    out_ts.extend([ts] * (len(out) - n))
        except TypeError:
            self._iterable(result)  # names the function if it returned a non-iterable
            raise
        self.output.collect_batch(out, out_ts)  # type: ignore[union-attr]

    def _iterable(self, result: Any) -> Any:
        """``result``, or the error naming the user's function if it is not iterable."""
        if result is not None and not hasattr(type(result), "__iter__"):
            operator = self.config.operator_name if self.config is not None else "Flat Map"
            raise not_iterable(operator, self._flat_map, result, "flat_map") from None
        return result


class StreamFilter(_RecordAtATimeOperator):
    """Flink's ``StreamFilter``: keeps records whose ``FilterFunction.filter`` is true."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._filter = resolve_method(function, "filter", "FilterFunction", "Filter")

    def process_element(self, value: Any, timestamp: int | None) -> None:
        if self._filter(value):
            self.output.collect(value, timestamp)  # type: ignore[union-attr]

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        fn = self._filter
        if timestamps is None:
            self.output.collect_batch([v for v in values if fn(v)], None)  # type: ignore[union-attr]
            return
        kept = [(v, ts) for v, ts in zip(values, timestamps, strict=False) if fn(v)]
        self.output.collect_batch(  # type: ignore[union-attr]
            [v for v, _ in kept], [ts for _, ts in kept]
        )


for _cls in (StreamMap, StreamFlatMap, StreamFilter):
    register_operator(_cls.__name__, _cls)
