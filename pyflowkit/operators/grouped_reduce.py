"""Rolling keyed reduce/aggregation: Flink's ``StreamGroupedReduce`` (``Keyed Reduce``/``Keyed
Aggregation``). Emits the updated value for every input, with the input's timestamp.

``sum/min/max/min_by/max_by`` are reduce functions (``SumAggregator``/``ComparableAggregator``,
shared with the window operators in ``window_aggregators``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pyflowkit.datastream.functions import resolve_method
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.transformations import ChainingStrategy
from pyflowkit.operators.base import AbstractUdfStreamOperator, StreamOperator
from pyflowkit.operators.registry import register_operator

STATE_NAME = "_op_state"  # StreamGroupedReduce.STATE_NAME


class StreamGroupedReduce(AbstractUdfStreamOperator):
    """Flink's ``StreamGroupedReduce``: state = reduce(state, value) per key; emit the new state."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._reduce = resolve_method(function, "reduce", "ReduceFunction", "Keyed Reduce")
        self._state: Any = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        aggregation = params.get("aggregation")
        if aggregation is not None:
            from pyflowkit.operators.window_aggregators import aggregator_for

            return cls(aggregator_for(aggregation, "Keyed Aggregation"))
        if params.get("function") is None:
            raise IllegalArgumentException(
                "Keyed Reduce needs a 'function' (ReduceFunction) or an 'aggregation' parameter."
            )
        return cls(params["function"])

    def open(self) -> None:
        super().open()
        self._state = self._require_keyed("StreamGroupedReduce").get_partitioned_state(
            ValueStateDescriptor(STATE_NAME)
        )

    def process_element(self, value: Any, timestamp: int | None) -> None:
        state = self._state
        current = state.value()
        if current is not None:
            value = self._reduce(current, value)
        state.update(value)
        self.output.collect(value, timestamp)  # type: ignore[union-attr]

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        backend = self.keyed_state_backend
        set_key = backend.set_current_key  # type: ignore[union-attr]
        select = self._key_selector1
        table = self._state.table
        get, put = table.get, table.put
        reduce = self._reduce
        out: list[Any] = []
        append = out.append
        for v in values:
            set_key(select(v))  # type: ignore[misc]
            kg, key = backend.current_key_group, backend.current_key  # type: ignore[union-attr]
            current = get(kg, None, key)
            if current is not None:
                v = reduce(current, v)
            put(kg, None, key, v)
            append(v)
        self.output.collect_batch(out, timestamps)  # type: ignore[union-attr]


register_operator("StreamGroupedReduce", StreamGroupedReduce)
