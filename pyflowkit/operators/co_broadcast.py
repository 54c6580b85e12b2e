"""The broadcast state pattern's operators: Flink's ``CoBroadcastWithNonKeyedOperator`` and
``CoBroadcastWithKeyedOperator`` (input 1: the non-broadcast stream, input 2: the broadcast one).

Input 2's records go to every subtask (BROADCAST partitioning) and may change the broadcast
states, a map per ``MapStateDescriptor`` held by each subtask (operator state, mode BROADCAST);
input 1 sees them read-only. The keyed variant adds keyed state, timers and
``apply_to_keyed_state``.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.datastream.functions import TimeDomain, resolve_method
from pyflowkit.errors import IllegalArgumentException, IllegalStateException
from pyflowkit.operators.base import split_process_output
from pyflowkit.operators.co_operators import _TwoInputUdf
from pyflowkit.operators.process import USER_TIMERS, OnTimerTriggerable
from pyflowkit.operators.process_contexts import SimpleTimerService, is_output_tag
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.broadcast_state import HeapBroadcastState, ReadOnlyView


class _BroadcastContext:
    """``ReadOnlyContext`` / ``Context`` of both operators (one object per side, reused)."""

    def __init__(self, operator: Any, read_only: bool) -> None:
        self.operator = operator
        self.read_only = read_only
        self.current_timestamp: int | None = None
        self.current_time_domain: TimeDomain | None = None

    def timestamp(self) -> int | None:
        return self.current_timestamp

    def current_processing_time(self) -> int:
        return self.operator.get_processing_time()

    def current_watermark(self) -> int:
        return self.operator.current_watermark

    def get_broadcast_state(self, state_descriptor: Any) -> Any:
        state = self.operator.broadcast_state(state_descriptor)
        return ReadOnlyView(state, self.operator.name) if self.read_only else state

    # keyed operator only
    def timer_service(self) -> Any:
        return self.operator.user_timer_service()

    def get_current_key(self) -> Any:
        return self.operator.get_current_key()

    def time_domain(self) -> TimeDomain:
        if self.current_time_domain is None:
            from pyflowkit.errors import UnsupportedOperationException

            raise UnsupportedOperationException(
                "time_domain() is only available in on_timer (OnTimerContext)."
            )
        return self.current_time_domain

    def apply_to_keyed_state(self, state_descriptor: Any, function: Any) -> None:
        """``Context.applyToKeyedState``: ``function(key, state)`` for every key with state."""
        self.operator.apply_to_keyed_state(state_descriptor, function)


class CoBroadcastWithNonKeyedOperator(_TwoInputUdf):
    """Flink's ``CoBroadcastWithNonKeyedOperator``: a ``BroadcastProcessFunction``."""

    function_kind = "BroadcastProcessFunction"
    operator_label = "Co-Process-Broadcast"

    def __init__(self, function: Any, broadcast_state_descriptors: list[Any]) -> None:
        super().__init__(function)
        kind = self.function_kind
        self.descriptors = list(broadcast_state_descriptors)
        self._p1 = resolve_method(function, "process_element", kind, self.operator_label)
        self._p2 = resolve_method(function, "process_broadcast_element", kind, self.operator_label)
        self._broadcast: dict[str, HeapBroadcastState] = {}

    @classmethod
    def from_params(cls, params: Any) -> Any:
        return cls(params.get("function"), params.get("broadcast_state_descriptors", []))

    @property
    def name(self) -> str:
        return self.config.operator_name if self.config is not None else self.operator_label

    def open(self) -> None:
        super().open()
        for d in self.descriptors:  # registered up front, so every snapshot holds them
            self.broadcast_state(d)
        self._read_only = _BroadcastContext(self, read_only=True)
        self._read_write = _BroadcastContext(self, read_only=False)

    def broadcast_state(self, descriptor: Any) -> HeapBroadcastState:
        if not any(d.name == getattr(descriptor, "name", None) for d in self.descriptors):
            raise IllegalArgumentException(
                f"{self.name}: broadcast state {getattr(descriptor, 'name', descriptor)!r} was not "
                f"declared in broadcast(...); declared: {[d.name for d in self.descriptors]}."
            )
        state = self._broadcast.get(descriptor.name)
        if state is None:
            backend = self.operator_state_backend
            state = backend.get_broadcast_state(descriptor, self.name)  # type: ignore[union-attr]
            self._broadcast[descriptor.name] = state
        return state

    def _run(self, fn: Any, ctx: _BroadcastContext, value: Any, timestamp: int | None) -> None:
        ctx.current_timestamp = timestamp
        split_process_output(fn(value, ctx), self.output, timestamp, is_output_tag)  # type: ignore[arg-type]

    def process_element1(self, value: Any, timestamp: int | None) -> None:
        self._run(self._p1, self._read_only, value, timestamp)

    def process_element2(self, value: Any, timestamp: int | None) -> None:
        self._run(self._p2, self._read_write, value, timestamp)


class CoBroadcastWithKeyedOperator(OnTimerTriggerable, CoBroadcastWithNonKeyedOperator):
    """Flink's ``CoBroadcastWithKeyedOperator``: a ``KeyedBroadcastProcessFunction``."""

    function_kind = "KeyedBroadcastProcessFunction"
    operator_label = "Co-Process-Broadcast-Keyed"

    def __init__(self, function: Any, broadcast_state_descriptors: list[Any]) -> None:
        super().__init__(function, broadcast_state_descriptors)
        self._on_timer = getattr(function, "on_timer", None)

    def open(self) -> None:
        super().open()
        internal = self.get_internal_timer_service(USER_TIMERS, self)
        self._timers = SimpleTimerService(internal)
        self._ctx = self._read_only  # on_timer sees the read-only context with a time domain

    def user_timer_service(self) -> Any:
        return self._timers

    def process_element2(self, value: Any, timestamp: int | None) -> None:
        # broadcast records carry no key: keyed state only through apply_to_keyed_state
        self._run(self._p2, self._read_write, value, timestamp)

    def apply_to_keyed_state(self, descriptor: Any, function: Any) -> None:
        backend = self.keyed_state_backend
        saved = backend.current_key  # type: ignore[union-attr]
        state = self.runtime_context._keyed_state(descriptor, descriptor.kind)
        for key in list(backend.get_keys(descriptor.name)):  # type: ignore[union-attr]
            backend.set_current_key(key)  # type: ignore[union-attr]
            function(key, state)
        if saved is not None:
            backend.set_current_key(saved)  # type: ignore[union-attr]


class _BroadcastSideFirst:
    """``BoundedMultiInput`` + ``InputSelectable`` of Flink's BATCH broadcast operators
    (FLINK-20491): ``nextSelection`` is SECOND (the broadcast side, input 2) until
    ``endInput(2)``, then FIRST; the task's input processor reads only the selected input."""

    is_broadcast_side_done = False

    def end_input(self, input_index: int = 1) -> None:
        if input_index == 2:  # finished with the broadcast side
            self.is_broadcast_side_done = True

    def next_selection(self) -> int:
        """``InputSelection.SECOND`` (2) or ``InputSelection.FIRST`` (1)."""
        return 1 if self.is_broadcast_side_done else 2

    def process_element1(self, value: Any, timestamp: int | None) -> None:
        if not self.is_broadcast_side_done:
            raise IllegalStateException(
                "Should not process regular input before broadcast side is done."
            )
        super().process_element1(value, timestamp)  # type: ignore[misc]


class BatchCoBroadcastWithNonKeyedOperator(_BroadcastSideFirst, CoBroadcastWithNonKeyedOperator):
    """Flink's ``BatchCoBroadcastWithNonKeyedOperator`` (PyFlink 1.20:
    ``ExternalPythonBatchCoBroadcastProcessOperator``): a ``BroadcastProcessFunction`` in BATCH
    execution mode, its broadcast side read first."""


class BatchCoBroadcastWithKeyedOperator(_BroadcastSideFirst, CoBroadcastWithKeyedOperator):
    """Flink's ``BatchCoBroadcastWithKeyedOperator`` (PyFlink 1.20:
    ``ExternalPythonBatchKeyedCoBroadcastProcessOperator``): a ``KeyedBroadcastProcessFunction``
    in BATCH execution mode, its broadcast side read first (so ``apply_to_keyed_state`` on the
    broadcast side finds no keyed state yet)."""


for _cls in (
    CoBroadcastWithNonKeyedOperator,
    CoBroadcastWithKeyedOperator,
    BatchCoBroadcastWithNonKeyedOperator,
    BatchCoBroadcastWithKeyedOperator,
):
    register_operator(_cls.__name__, _cls)
