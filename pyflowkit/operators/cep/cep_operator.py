"""The CEP operator: one NFA per key (Flink 1.11's ``org.apache.flink.cep.operator.CepOperator``).

Event time: elements wait in ``eventQueuesStateName`` (timestamp → events) until the watermark
passes them (a timer at ``watermark + 1``), then go through the NFA in timestamp order (then by the
comparator); elements at or below the watermark are late (dropped, ``numLateRecordsDropped``, or
sent to the late-data side output). Processing time: each element goes through the NFA on arrival
(with a comparator: buffered and sorted at the next millisecond). ``nfaStateName`` and the shared
buffer's maps are keyed state, so checkpoints, savepoints and rescaling carry partial matches.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pyflowkit.datastream.state import MapStateDescriptor, ValueStateDescriptor
from pyflowkit.errors import FlinkRuntimeException
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES
from pyflowkit.operators.base import AbstractUdfStreamOperator, StreamOperator, split_process_output
from pyflowkit.operators.cep.after_match_skip_strategy import AfterMatchSkipStrategy
from pyflowkit.operators.cep.cep_runtime_context import CepRuntimeContext
from pyflowkit.operators.cep.functions import PatternSelectAdapter, TimedOutPartialMatchHandler
from pyflowkit.operators.cep.nfa import NFA, NFAState
from pyflowkit.operators.cep.nfa_compiler import compile_states
from pyflowkit.operators.cep.shared_buffer import SharedBufferAccessor
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.process_contexts import is_output_tag
from pyflowkit.operators.registry import register_operator
from pyflowkit.state.time import LONG_MIN_VALUE, VOID_NAMESPACE
from pyflowkit.state.timer_service import InternalTimer

NFA_STATE_NAME = "nfaStateName"
EVENT_QUEUE_STATE_NAME = "eventQueuesStateName"
ENTRIES_STATE_NAME = "sharedBuffer-entries"
EVENTS_STATE_NAME = "sharedBuffer-events"
EVENTS_COUNT_STATE_NAME = "sharedBuffer-events-count"
WATERMARK_CALLBACKS = "watermark-callbacks"
LATE_ELEMENTS_DROPPED_METRIC_NAME = "numLateRecordsDropped"
_LONG_MAX = (1 << 63) - 1
_KEY_MAPS_LIMIT = 1 << 16  # keys whose key group's maps process_batch remembers
_TAKEN = (True,)  # the start state's decision when its one TAKE edge accepts the event
_NOT_TAKEN = (False,)


class PatternContext:
    """Flink's ``CepOperator.ContextFunctionImpl``: the match's timestamp, the clock, side outputs."""

    __slots__ = ("_operator", "_timestamp")

    def __init__(self, operator: CepOperator) -> None:
        self._operator = operator
        self._timestamp = 0

    def timestamp(self) -> int:
        return self._timestamp

    def current_processing_time(self) -> int:
        return self._operator.get_processing_time()

    def output(self, output_tag: Any, value: Any) -> None:
        op = self._operator
        ts = None if op.is_processing_time else self._timestamp
        op.output.collect_side(output_tag, value, ts)  # type: ignore[union-attr]


class _TimerServiceImpl:
    """Flink's ``CepOperator.TimerServiceImpl``: the clock conditions see."""

    __slots__ = ("_operator",)

    def __init__(self, operator: CepOperator) -> None:
        self._operator = operator

    def current_processing_time(self) -> int:
        return self._operator.get_processing_time()


class CepOperator(AbstractUdfStreamOperator):
    """Flink's ``CepOperator`` around a ``PatternProcessFunction`` (keyed; one NFA per key)."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD

    def __init__(
        self,
        function: Any,
        pattern: Any,
        is_processing_time: bool,
        comparator: Any = None,
        late_data_output_tag: Any = None,
        timeout_handling: bool | None = None,
    ) -> None:
        super().__init__(function)
        self.pattern = pattern
        self.is_processing_time = bool(is_processing_time)
        self.comparator = comparator
        self.late_data_output_tag = late_data_output_tag
        strategy = getattr(pattern, "after_match_skip_strategy", None)
        self.after_match_skip_strategy = strategy or AfterMatchSkipStrategy.no_skip()
        if timeout_handling is None:
            timeout_handling = isinstance(function, TimedOutPartialMatchHandler)
        self.states, self.window_time = compile_states(pattern)
        self.nfa = NFA(self.states, self.window_time, timeout_handling)
        self._sort_key = None if comparator is None else functools.cmp_to_key(_compare(comparator))
        self._timer_service: Any = None
        self.cep_runtime_context: CepRuntimeContext | None = None  # made in open()
        self._ctx = PatternContext(self)
        self._cep_timer_service = _TimerServiceImpl(self)
        self._tables: tuple[Any, ...] = ()
        self._maps: dict[int, tuple[dict[Any, Any], ...]] = {}  # key group → its state maps
        self._key_maps: dict[Any, tuple[dict[Any, Any], ...]] = {}  # key → its key group's maps
        self._accessor_buffer = SharedBufferAccessor({}, {}, {})  # reused by process_batch
        self._maps_version = -1  # the backend's snapshot_version ``_maps`` belong to
        self.metrics[LATE_ELEMENTS_DROPPED_METRIC_NAME] = 0

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        return cls(
            params["function"],
            params["pattern"],
            params.get("is_processing_time", False),
            params.get("comparator"),
            params.get("late_data_output_tag"),
            params.get("timeout_handling"),
        )

    # ---- lifecycle ----
    def initialize_operator_state(self, is_restored: bool) -> None:
        backend = self.keyed_state_backend
        if backend is None:
            return
        descriptors = (
            ValueStateDescriptor(NFA_STATE_NAME),
            MapStateDescriptor(EVENTS_STATE_NAME),
            MapStateDescriptor(ENTRIES_STATE_NAME),
            MapStateDescriptor(EVENTS_COUNT_STATE_NAME),
            MapStateDescriptor(EVENT_QUEUE_STATE_NAME),
        )
        self._tables = tuple(backend.get_or_create_keyed_state(d).table for d in descriptors)
        self._maps = {}
        self._key_maps = {}
        self._maps_version = -1

    def open(self) -> None:
        """``CepOperator.setup``/``open``: the user function and the NFA's conditions get a
        ``CepRuntimeContext`` (no keyed state, accumulators or broadcast variables)."""
        StreamOperator.open(self)
        self.cep_runtime_context = CepRuntimeContext(
            self.runtime_context, self.config.operator_name
        )
        function = self.user_function
        opener = getattr(function, "open", None)
        if callable(opener) and not isinstance(function, type):
            opener(self.cep_runtime_context)  # AbstractUdfStreamOperator.open, CEP's context
        self._timer_service = self.get_internal_timer_service(WATERMARK_CALLBACKS, self)
        self.nfa.open(self.cep_runtime_context)

    def close(self) -> None:
        super().close()
        self.nfa.close()

    # ---- per-key state ----
    def _get(self, index: int) -> Any:
        b = self.keyed_state_backend
        return self._tables[index].get(b.current_key_group, VOID_NAMESPACE, b.current_state_key)  # type: ignore[union-attr]

    def _set(self, index: int, value: Any) -> None:
        """Store ``value`` for the current key, or remove the entry when it is empty."""
        b = self.keyed_state_backend
        table = self._tables[index]
        if value:
            table.put(b.current_key_group, VOID_NAMESPACE, b.current_state_key, value)  # type: ignore[union-attr]
        else:
            table.remove(b.current_key_group, VOID_NAMESPACE, b.current_state_key)  # type: ignore[union-attr]

    def _accessor(self) -> SharedBufferAccessor:
        """``SharedBuffer.getAccessor`` for the current key."""
        return SharedBufferAccessor(self._get(1) or {}, self._get(2) or {}, self._get(3) or {})

    def _flush(self, accessor: SharedBufferAccessor) -> None:
        """``SharedBufferAccessor.close``: write the key's maps back (empty ones are removed)."""
        self._set(1, accessor.events)
        self._set(2, accessor.entries)
        self._set(3, accessor.events_count)

    def _get_nfa_state(self) -> NFAState:
        state = self._get(0)
        return state if state is not None else self.nfa.create_initial_nfa_state()

    def _update_nfa(self, nfa_state: NFAState) -> None:
        if nfa_state[2]:
            nfa_state[2] = False
            self._set(0, nfa_state)

    # ---- elements ----
    def process_element(self, value: Any, timestamp: int | None) -> None:
        if self.is_processing_time:
            if self.comparator is None:
                self._process_now(value, self._timer_service.current_processing_time(), None)
            else:
                now = self._timer_service.current_processing_time()
                self._buffer_event(value, now)
                self._timer_service.register_processing_time_timer(VOID_NAMESPACE, now + 1)
            return
        ts = LONG_MIN_VALUE if timestamp is None else timestamp
        if ts > self._timer_service.current_watermark():
            self._save_register_watermark_timer()
            self._buffer_event(value, ts)
        elif self.late_data_output_tag is not None:
            self.output.collect_side(self.late_data_output_tag, value, timestamp)  # type: ignore[union-attr]
        else:
            self.metrics[LATE_ELEMENTS_DROPPED_METRIC_NAME] += 1

    def batch_keys_itself(self) -> bool:
        """``process_batch`` keys each record itself (its processing-time path or the loop)."""
        return True

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        """Many records at once; processing time without a comparator skips, per key, an event
        that no start-state edge accepts while only start states wait (it changes nothing).

        The key groups' state maps are fetched once per snapshot version (a snapshot makes the
        table copy a key group on its next write) and a key's NFA state and shared buffer are
        read and written in place there: a store only when an entry appears or empties.
        """
        if not self.is_processing_time or self.comparator is not None:
            self.process_keyed_batch(values, timestamps)
            return
        backend = self.keyed_state_backend
        cached_key_group = backend.key_group_lookup()  # type: ignore[union-attr]
        checked_key_group = backend.checked_key_group  # type: ignore[union-attr]
        held = backend.state_key  # type: ignore[union-attr]
        select = self._key_selector1
        nfa = self.nfa
        if backend.snapshot_version != self._maps_version:  # type: ignore[union-attr]
            self._maps_version = backend.snapshot_version  # type: ignore[union-attr]
            self._maps = {}
            self._key_maps = {}
        maps_of = self._maps
        key_maps = self._key_maps
        if len(key_maps) > _KEY_MAPS_LIMIT:
            key_maps.clear()
        now = self._timer_service.current_processing_time()  # fixed while a batch is processed
        timer_service = self._cep_timer_service
        start_take = nfa.start_take  # the start state's one simple TAKE edge, if so compiled
        start_test = None if start_take is None else start_take[0]
        start_decide = nfa.start_decide  # (event, ctx) when no condition needs a context
        decide = nfa.start_decision_graph
        quiescent = nfa.is_quiescent
        start = nfa.start_state_names
        window = nfa.window_time
        horizon = now - window  # a partial match that started at or before it ran out
        advance_time = nfa.advance_time
        nfa_process = nfa.process
        skip_strategy = self.after_match_skip_strategy
        accessor = self._accessor_buffer  # each key's maps in turn, in one accessor
        collected: list[Any] = []  # main outputs of select(), emitted once per batch
        try:
            for value in values:
                key = select(value)  # type: ignore[misc]
                # no key context is set: the NFA reads and writes this key's entries in its key
                # group's maps, no timer is registered here, and CEP user functions get a
                # CepRuntimeContext, which refuses keyed state
                try:  # a miss is once per key (the map is kept across batches)
                    maps = key_maps[key] if type(key) in SELF_IDENTIFYING_KEY_TYPES else None
                except KeyError:
                    maps = None
                if maps is None:
                    self_identifying = type(key) in SELF_IDENTIFYING_KEY_TYPES
                    kg = cached_key_group(key) if self_identifying else None
                    if kg is None:
                        kg = checked_key_group(key)
                    maps = maps_of.get(kg)
                    if maps is None:
                        maps = maps_of[kg] = self._key_group_maps(kg)
                    if self_identifying:
                        key_maps[key] = maps
                    else:  # 1, True and 1.0 are three keys (java_semantics.state_key)
                        key = held(key)
                nfa_map, events_map, entries_map, counts_map = maps
                # advanceTime's SharedBuffer part first (it touches only the event counters):
                # forget counters older than now, in place (a map is never stored empty)
                counts = counts_map.get(key)
                if counts is not None and min(counts) < now:
                    if len(counts) == 1:
                        counts.clear()
                    else:
                        for ts in [t for t in counts if t < now]:
                            del counts[ts]
                nfa_state = nfa_map.get(key)
                decision = None
                if nfa_state is None or (
                    not nfa_state[1]
                    and (
                        not (partial := nfa_state[0])
                        or (partial[0][0] in start and (len(partial) == 1 or quiescent(nfa_state)))
                    )
                ):  # only start states wait (NFA.is_quiescent)
                    # with only start states waiting, an event no start edge accepts changes
                    # nothing (no node is referenced, nothing can run out): it is skipped
                    if start_take is not None:  # computeNextStates' test, inline
                        if start_test is None:
                            decision = _TAKEN
                        else:
                            try:
                                decision = _TAKEN if start_test(value) else _NOT_TAKEN
                            except FlinkRuntimeException:
                                raise
                            except Exception as exc:  # noqa: BLE001 - rethrown naming the state
                                raise nfa.start_condition_failed(exc) from exc
                    elif start_decide is not None:
                        decision = start_decide(value, None)
                    else:
                        decision = decide(value, now, timer_service)
                    if not decision[0]:
                        if counts is not None and not counts:
                            del counts_map[key]
                        continue
                # ---- processElement on the key group's maps: the key's entries mutated in place
                if nfa_state is None:
                    nfa_state = nfa.create_initial_nfa_state()
                events = events_map.get(key)
                entries = entries_map.get(key)
                key_events = accessor.events = {} if events is None else events
                key_entries = accessor.entries = {} if entries is None else entries
                key_counts = accessor.events_count = {} if counts is None else counts
                if window > 0:  # advanceTime's NFA part only when a partial match ran out
                    for cs in nfa_state[0]:
                        if cs[3] <= horizon and cs[0] not in start:  # now - start >= window
                            timed_out = advance_time(accessor, nfa_state, now)
                            if timed_out:
                                self._emit_collected(collected)
                                self._emit_timed_out(timed_out)
                            break
                matches = nfa_process(
                    accessor, nfa_state, value, now, skip_strategy, timer_service, decision
                )
                if matches:
                    self._emit_matches(matches, now, collected)
                # a map read from the table is the accessor's own: store new ones, drop emptied ones
                if events is None:
                    if key_events:
                        events_map[key] = key_events
                elif not events:
                    del events_map[key]
                if entries is None:
                    if key_entries:
                        entries_map[key] = key_entries
                elif not entries:
                    del entries_map[key]
                if counts is None:
                    if key_counts:
                        counts_map[key] = key_counts
                elif not counts:
                    del counts_map[key]
                if nfa_state[2]:
                    nfa_state[2] = False
                    nfa_map[key] = nfa_state
        finally:  # what matched before a failure is emitted too, as record by record
            self._emit_collected(collected)

    def _key_group_maps(self, key_group: int) -> tuple[dict[Any, Any], ...]:
        """The void-namespace maps (NFA state, events, entries, event counts) of a key group."""
        return tuple(t.namespace_map(key_group, VOID_NAMESPACE) for t in self._tables[:4])

    def _process_now(self, value: Any, now: int, start_decision: Any) -> None:
        """``processElement`` in processing time: advance time, feed the NFA, store the state."""
        nfa_state = self._get_nfa_state()
        accessor = self._accessor()
        self._advance_time(accessor, nfa_state, now)
        self._process_event(accessor, nfa_state, value, now, start_decision)
        self._flush(accessor)
        self._update_nfa(nfa_state)

    def _save_register_watermark_timer(self) -> None:
        watermark = self._timer_service.current_watermark()
        if watermark < _LONG_MAX:  # protect against overflow
            self._timer_service.register_event_time_timer(VOID_NAMESPACE, watermark + 1)

    def _buffer_event(self, event: Any, timestamp: int) -> None:
        queue = self._get(4)
        if queue is None:
            queue = {}
        queue.setdefault(timestamp, []).append(event)
        self._set(4, queue)

    # ---- timers ----
    def on_event_time(self, timer: InternalTimer) -> None:
        queue = self._get(4) or {}
        nfa_state = self._get_nfa_state()
        accessor = self._accessor()
        watermark = self._timer_service.current_watermark()
        for ts in sorted(t for t in queue if t <= watermark):
            self._advance_time(accessor, nfa_state, ts)
            for event in self._sort(queue.pop(ts)):
                self._process_event(accessor, nfa_state, event, ts)
        self._set(4, queue)
        self._advance_time(accessor, nfa_state, watermark)
        self._flush(accessor)
        self._update_nfa(nfa_state)
        if queue or not accessor.is_empty():
            self._save_register_watermark_timer()

    def on_processing_time(self, timer: InternalTimer) -> None:
        queue = self._get(4) or {}
        nfa_state = self._get_nfa_state()
        accessor = self._accessor()
        for ts in sorted(queue):
            self._advance_time(accessor, nfa_state, ts)
            for event in self._sort(queue.pop(ts)):
                self._process_event(accessor, nfa_state, event, ts)
        self._set(4, queue)
        self._flush(accessor)
        self._update_nfa(nfa_state)

    def _sort(self, events: list[Any]) -> list[Any]:
        return events if self._sort_key is None else sorted(events, key=self._sort_key)

    # ---- NFA ----
    def _process_event(
        self,
        accessor: SharedBufferAccessor,
        nfa_state: NFAState,
        event: Any,
        timestamp: int,
        start_decision: Any = None,
    ) -> None:
        matches = self.nfa.process(
            accessor,
            nfa_state,
            event,
            timestamp,
            self.after_match_skip_strategy,
            self._cep_timer_service,
            start_decision,
        )
        if matches:
            self._emit_matches(matches, timestamp)

    def _emit_matches(
        self, matches: list[dict[str, list]], timestamp: int, collected: list[Any] | None = None
    ) -> None:
        """``processMatchedSequences``: the user function's output for each match, in order.

        ``collected``: main outputs of ``select`` go there (``process_batch`` emits them once
        per batch); anything else emitted first flushes it, so the order stays record by record.
        """
        self._ctx._timestamp = timestamp
        out_ts = None if self.is_processing_time else timestamp
        function = self.user_function
        output = self.output
        if type(function) is PatternSelectAdapter:  # one output per match: no tuple around it
            select = function.select_function
            for match in matches:
                item = select(match)
                if type(item) is tuple and len(item) == 2 and is_output_tag(item[0]):
                    self._emit_collected(collected)
                    output.collect_side(item[0], item[1], out_ts)  # type: ignore[union-attr]
                elif collected is not None:
                    collected.append(item)
                else:
                    output.collect(item, out_ts)  # type: ignore[union-attr]
            return
        self._emit_collected(collected)
        process = function.process_match
        for match in matches:
            split_process_output(process(match, self._ctx), output, out_ts, is_output_tag)  # type: ignore[arg-type]

    def _emit_collected(self, collected: list[Any] | None) -> None:
        """Emit (and empty) the outputs ``_emit_matches`` collected (processing time: no timestamp)."""
        if collected:
            out = collected[:]
            collected.clear()
            self.output.collect_batch(out, None)  # type: ignore[union-attr]

    def _advance_time(
        self, accessor: SharedBufferAccessor, nfa_state: NFAState, timestamp: int
    ) -> None:
        timed_out = self.nfa.advance_time(accessor, nfa_state, timestamp)
        if timed_out:
            self._emit_timed_out(timed_out)

    def _emit_timed_out(self, timed_out: list[tuple[dict[str, list], int]]) -> None:
        """``processTimedOutSequences``: timed-out partial matches to the handler, if any."""
        if isinstance(self.user_function, TimedOutPartialMatchHandler):
            handler = self.user_function
            for match, ts in timed_out:
                self._ctx._timestamp = ts
                handler.process_timed_out_match(match, self._ctx)

    # ---- inspection ----
    @property
    def num_late_records_dropped(self) -> int:
        return self.metrics[LATE_ELEMENTS_DROPPED_METRIC_NAME]


def _compare(comparator: Any) -> Any:
    """An ``EventComparator``: an object with ``compare(a, b)`` or a callable ``(a, b) -> int``."""
    method = getattr(comparator, "compare", None)
    return method if callable(method) else comparator


register_operator("CepOperator", CepOperator)
