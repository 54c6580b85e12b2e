"""Keyed reduce/aggregation in BATCH execution mode: one final value per key at end of input.

Stands for Flink 1.12's ``BatchGroupedReduceOperator``: the first record of a key registers an
event-time timer at ``Long.MAX_VALUE``; records are reduced into keyed state without output; the
timer (fired by the end-of-input ``MAX`` watermark) emits the key's value with that timestamp.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyflowkit.operators.grouped_reduce import StreamGroupedReduce
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.time import LONG_MAX_VALUE, VOID_NAMESPACE
from pyflowkit.state.timer_service import InternalTimer

TIMER_SERVICE_NAME = "end-of-key-timers"  # BatchGroupedReduceOperator's timer service


class BatchGroupedReduceOperator(StreamGroupedReduce):
    """Flink's ``BatchGroupedReduceOperator``: reduce per key, emit once when input ends."""

    def open(self) -> None:
        super().open()
        self._timer_service = self.get_internal_timer_service(TIMER_SERVICE_NAME, self)

    def process_element(self, value: Any, timestamp: int | None) -> None:
        state = self._state
        current = state.value()
        if current is None:  # the key's first record: emit its result at the end
            self._timer_service.register_event_time_timer(VOID_NAMESPACE, LONG_MAX_VALUE)
        else:
            value = self._reduce(current, value)
        state.update(value)

    def process_batch(self, values: Sequence[Any], timestamps: Any, keys: Any = None) -> None:
        """``StreamGroupedReduce.process_batch`` without output until end of input."""
        self._reduce_all(values, None, self._register_end_of_key, keys)

    def _register_end_of_key(self, key: Any) -> None:
        self.keyed_state_backend.set_current_key(key)  # type: ignore[union-attr]
        self._timer_service.register_event_time_timer(VOID_NAMESPACE, LONG_MAX_VALUE)

    def on_event_time(self, timer: InternalTimer) -> None:
        value = self._state.value()
        if value is not None:
            self.output.collect(value, LONG_MAX_VALUE)  # type: ignore[union-attr]

    def on_processing_time(self, timer: InternalTimer) -> None:
        """Never registered (Flink's operator ignores processing time)."""


register_operator("BatchGroupedReduceOperator", BatchGroupedReduceOperator)
