"""Operators of connected streams: Flink's ``CoStreamMap``, ``CoStreamFlatMap``,
``CoProcessOperator`` and ``KeyedCoProcessOperator`` (HEAD chaining; never chained to inputs).

Outputs keep the input record's timestamp; the watermark is the minimum of both inputs'.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pyflowkit.datastream.functions import resolve_method
from pyflowkit.operators.base import (
    AbstractUdfStreamOperator,
    TwoInputStreamOperator,
    split_process_output,
)
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.process import USER_TIMERS, OnTimerTriggerable
from pyflowkit.operators.process_contexts import (
    KeyedProcessContext,
    NonKeyedTimerService,
    ProcessContext,
    SimpleTimerService,
    is_output_tag,
)
from pyflowkit.operators.registry import register_operator


class _TwoInputUdf(AbstractUdfStreamOperator, TwoInputStreamOperator):
    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD

    def __init__(self, function: Any) -> None:
        # MRO: AbstractUdfStreamOperator -> TwoInputStreamOperator -> StreamOperator
        super().__init__(function)


class CoStreamMap(_TwoInputUdf):
    """Flink's ``CoStreamMap``: ``map1`` for input 1, ``map2`` for input 2."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._map1 = resolve_method(function, "map1", "CoMapFunction", "Co-Map")
        self._map2 = resolve_method(function, "map2", "CoMapFunction", "Co-Map")

    def process_element1(self, value: Any, timestamp: int | None) -> None:
        self.output.collect(self._map1(value), timestamp)  # type: ignore[union-attr]

    def process_element2(self, value: Any, timestamp: int | None) -> None:
        self.output.collect(self._map2(value), timestamp)  # type: ignore[union-attr]


class CoStreamFlatMap(_TwoInputUdf):
    """Flink's ``CoStreamFlatMap``: ``flat_map1``/``flat_map2`` yield outputs."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._fm1 = resolve_method(function, "flat_map1", "CoFlatMapFunction", "Co-Flat Map")
        self._fm2 = resolve_method(function, "flat_map2", "CoFlatMapFunction", "Co-Flat Map")

    def _emit(self, result: Any, timestamp: int | None) -> None:
        if result is not None:
            collect = self.output.collect  # type: ignore[union-attr]
            for out in result:
                collect(out, timestamp)

    def process_element1(self, value: Any, timestamp: int | None) -> None:
        self._emit(self._fm1(value), timestamp)

    def process_element2(self, value: Any, timestamp: int | None) -> None:
        self._emit(self._fm2(value), timestamp)


class CoProcessOperator(_TwoInputUdf):
    """Flink's ``CoProcessOperator``: ``process_element1/2(value, ctx)``; no timers (not keyed)."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._p1 = resolve_method(function, "process_element1", "CoProcessFunction", "Co-Process")
        self._p2 = resolve_method(function, "process_element2", "CoProcessFunction", "Co-Process")
        self._ctx: ProcessContext | None = None

    def open(self) -> None:
        super().open()
        self._ctx = ProcessContext(NonKeyedTimerService(self))

    def _run(self, fn: Any, value: Any, timestamp: int | None) -> None:
        ctx = self._ctx
        ctx.current_timestamp = timestamp  # type: ignore[union-attr]
        split_process_output(fn(value, ctx), self.output, timestamp, is_output_tag)  # type: ignore[arg-type]

    def process_element1(self, value: Any, timestamp: int | None) -> None:
        self._run(self._p1, value, timestamp)

    def process_element2(self, value: Any, timestamp: int | None) -> None:
        self._run(self._p2, value, timestamp)


class KeyedCoProcessOperator(OnTimerTriggerable, CoProcessOperator):
    """Flink's ``KeyedCoProcessOperator``: keyed state and timers for both inputs, ``on_timer``."""

    def __init__(self, function: Any) -> None:
        _TwoInputUdf.__init__(self, function)
        name = "Co-Keyed-Process"
        self._p1 = resolve_method(function, "process_element1", "KeyedCoProcessFunction", name)
        self._p2 = resolve_method(function, "process_element2", "KeyedCoProcessFunction", name)
        self._on_timer = getattr(function, "on_timer", None)
        self._ctx: KeyedProcessContext | None = None  # type: ignore[assignment]

    def open(self) -> None:
        AbstractUdfStreamOperator.open(self)
        internal = self.get_internal_timer_service(USER_TIMERS, self)
        self._ctx = KeyedProcessContext(SimpleTimerService(internal), self.keyed_state_backend)

    def _run(self, fn: Any, value: Any, timestamp: int | None) -> None:
        self._ctx.current_time_domain = None  # type: ignore[union-attr]
        super()._run(fn, value, timestamp)


for _cls in (CoStreamMap, CoStreamFlatMap, CoProcessOperator, KeyedCoProcessOperator):
    register_operator(_cls.__name__, _cls)
