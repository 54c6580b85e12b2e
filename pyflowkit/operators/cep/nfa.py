"""The CEP automaton (Flink 1.11's ``org.apache.flink.cep.nfa.NFA`` and ``NFAState``).

``NFAState`` is plain data: ``[partial matches, completed matches, changed]``, the two queues being
Java ``PriorityQueue`` arrays of ``ComputationState`` tuples
``(state name, previous NodeId, DeweyNumber, start timestamp, start EventId)`` ordered by start event
(``NFAState.COMPUTATION_STATE_COMPARATOR``). ``process`` feeds one event, ``advance_time`` prunes
partial matches older than ``within`` and reports them as timed out.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import FlinkRuntimeException, IllegalStateException
from pyflowkit.operators.cep import java_priority_queue as pq
from pyflowkit.operators.cep.conditions import RichCompositeIterativeCondition, SimpleCondition
from pyflowkit.operators.cep.dewey_number import START, add_stage, increase
from pyflowkit.operators.cep.nfa_compiler import original_name
from pyflowkit.operators.cep.shared_buffer import SharedBufferAccessor
from pyflowkit.operators.cep.state import State, StateTransitionAction

_LONG_MAX = (1 << 63) - 1
_INT_MAX = (1 << 31) - 1
_NO_START = (_LONG_MAX, _INT_MAX)
TAKE = StateTransitionAction.TAKE
IGNORE = StateTransitionAction.IGNORE
PROCEED = StateTransitionAction.PROCEED

ComputationState = tuple  # (name, previous NodeId | None, version, start timestamp, start EventId)
NFAState = list  # [partial matches, completed matches, state changed]


def computation_state_key(cs: ComputationState) -> Any:
    """``NFAState.COMPUTATION_STATE_COMPARATOR``: by start event (timestamp, id); none last."""
    start = cs[4]
    return _NO_START if start is None else start


def start_state(name: str, version: tuple[int, ...] = START) -> ComputationState:
    """``ComputationState.createStartState``."""
    return (name, None, version, -1, None)


class ConditionContext:
    """Flink's ``NFA.ConditionContext``: what an ``IterativeCondition`` sees (built lazily)."""

    __slots__ = ("_accessor", "_state", "_events", "_timestamp", "_timer_service")

    def __init__(
        self, accessor: SharedBufferAccessor, state: ComputationState, timer_service: Any, ts: int
    ) -> None:
        self._accessor = accessor
        self._state = state
        self._events: dict[str, list] | None = None
        self._timestamp = ts
        self._timer_service = timer_service

    def get_events_for_pattern(self, name: str) -> list[Any]:
        """``getEventsForPattern``: the events the partial match took for pattern ``name``."""
        if name is None:
            raise IllegalStateException("get_events_for_pattern() needs a pattern name.")
        if self._events is None:
            self._events = self._accessor.materialize_match(
                extract_current_matches(self._accessor, self._state)
            )
        return list(self._events.get(name, ()))

    def timestamp(self) -> int:
        return self._timestamp

    def current_processing_time(self) -> int:
        return self._timer_service.current_processing_time()


def extract_current_matches(accessor: SharedBufferAccessor, cs: ComputationState) -> dict:
    """``NFA.extractCurrentMatches``: the one path of a computation state ({} if none)."""
    if cs[1] is None:
        return {}
    paths = accessor.extract_patterns(cs[1], cs[2])
    if not paths:
        return {}
    if len(paths) != 1:
        raise IllegalStateException("A computation state must have exactly one matching path.")
    return paths[0]


class NFA:
    """Flink's ``NFA``: the compiled states, the window length and whether timeouts are reported."""

    def __init__(self, states: list[State], window_time: int, handle_timeout: bool) -> None:
        self.states: dict[str, State] = {s.name: s for s in states}
        self.window_time = window_time
        self.handle_timeout = handle_timeout
        self._start = {s.name for s in states if s.is_start()}
        self.start_state_names = frozenset(self._start)
        self._final = {s.name for s in states if s.is_final()}
        self._stop = {s.name for s in states if s.is_stop()}
        self._start_decision: tuple[list[Any], int, int] | None = None
        # SimpleConditions never look at their context: build one only for IterativeConditions
        self._needs_context = not all(_is_simple(c) for c in self.conditions())
        self._start_states = [self.states[n] for n in sorted(self._start)]
        # states with a PROCEED edge: only they can reach a final state after a TAKE
        self._proceeds = {
            s.name for s in states if any(t.action is PROCEED for t in s.state_transitions)
        }

    def is_quiescent(self, nfa_state: NFAState) -> bool:
        """Only start computation states and no completed match wait: an event that no start
        state's edge accepts changes nothing (``start_decision_graph`` tells)."""
        if nfa_state[1]:
            return False
        start = self._start
        partial = nfa_state[0]
        if len(partial) == 1:
            return partial[0][0] in start
        return all(cs[0] in start for cs in partial)

    def start_decision_graph(
        self, event: Any, timestamp: int, timer_service: Any
    ) -> tuple[list[Any], int, int]:
        """``createDecisionGraph`` of the (single) start state for ``event`` (nothing taken yet,
        so its context has no events)."""
        (state,) = self._start_states
        if not self._needs_context:
            return self._decision_graph(None, state, event)
        ctx = ConditionContext(_EMPTY_ACCESSOR, start_state(state.name), timer_service, timestamp)
        return self._decision_graph(ctx, state, event)

    # ---- lifecycle ----
    def conditions(self) -> list[Any]:
        seen: dict[int, Any] = {}
        for s in self.states.values():
            for t in s.state_transitions:
                if t.condition is not None:
                    seen.setdefault(id(t.condition), t.condition)
        return list(seen.values())

    def open(self, runtime_context: Any) -> None:
        """``NFA.open``: open every condition (rich conditions get the runtime context)."""
        for c in self.conditions():
            c.open(runtime_context)

    def close(self) -> None:
        for c in self.conditions():
            c.close()

    def create_initial_nfa_state(self) -> NFAState:
        """``createInitialNFAState``: one start computation state per start state."""
        partial: list = []
        for name in self._start:
            pq.offer(partial, start_state(name), computation_state_key)
        return [partial, [], False]

    # ---- time ----
    def advance_time(
        self, accessor: SharedBufferAccessor, nfa_state: NFAState, timestamp: int
    ) -> list[tuple[dict[str, list], int]]:
        """``advanceTime``: drop (and maybe report) partial matches that ran out of window."""
        timed_out: list[tuple[dict[str, list], int]] = []
        window = self.window_time
        if window > 0:
            partial = nfa_state[0]
            start = self._start
            expired = False
            for cs in partial:
                if cs[0] not in start and timestamp - cs[3] >= window:
                    expired = True
                    break
            if expired:
                kept: list = []
                for cs in partial:
                    if cs[0] not in start and timestamp - cs[3] >= window:
                        if self.handle_timeout:
                            match = accessor.materialize_match(
                                extract_current_matches(accessor, cs)
                            )
                            timed_out.append((match, cs[3] + window))
                        accessor.release_node(cs[1])
                        nfa_state[2] = True
                    else:
                        pq.offer(kept, cs, computation_state_key)
                nfa_state[0] = kept
        counts = accessor.events_count
        if counts and min(counts) < timestamp:
            accessor.advance_time(timestamp)
        return timed_out

    # ---- events ----
    def process(
        self,
        accessor: SharedBufferAccessor,
        nfa_state: NFAState,
        event: Any,
        timestamp: int,
        skip_strategy: Any,
        timer_service: Any,
        start_decision: tuple[list[Any], int, int] | None = None,
    ) -> list[dict[str, list]]:
        """``process``: feed one event; the completed matches, materialized, in Flink's order.

        ``start_decision``: the start state's decision graph for this event when the caller has
        already evaluated it (``start_decision_graph``), so no condition runs twice.
        """
        wrapper = _EventWrapper(event, timestamp, accessor)
        self._start_decision = start_decision
        try:
            return self._do_process(accessor, nfa_state, wrapper, skip_strategy, timer_service)
        finally:
            if wrapper.event_id is not None:
                accessor.release_event(wrapper.event_id)

    def _do_process(
        self,
        accessor: SharedBufferAccessor,
        nfa_state: NFAState,
        event: _EventWrapper,
        skip_strategy: Any,
        timer_service: Any,
    ) -> list[dict[str, list]]:
        key = computation_state_key
        new_partial: list = []
        potential: list = []
        final, stop = self._final, self._stop
        offer = pq.offer
        compute = self._compute_next_states
        changed = False
        for cs in nfa_state[0]:
            new_states = compute(accessor, cs, event, timer_service)
            if len(new_states) != 1:
                changed = True
                if not new_states:
                    continue
            else:
                ncs = new_states[0]
                if ncs == cs:  # unchanged (a start state nothing took)
                    offer(new_partial, cs, key)
                    continue
                changed = True
            retain = []
            discard_path = False
            for ncs in new_states:
                name = ncs[0]
                if name in final:
                    offer(potential, ncs, key)
                elif name in stop:
                    discard_path = True
                    accessor.release_node(ncs[1])
                else:
                    retain.append(ncs)
            if discard_path:
                for ncs in retain:
                    accessor.release_node(ncs[1])
            else:
                for ncs in retain:
                    offer(new_partial, ncs, key)
        if potential:
            changed = True
        result: list[dict[str, list]] = []
        if skip_strategy.is_skip_strategy():
            if self._process_with_skip(
                accessor, nfa_state, skip_strategy, potential, new_partial, result
            ):
                changed = True
        else:
            for match in potential:
                path = accessor.extract_patterns(match[1], match[2])[0]
                result.append(accessor.materialize_match(path))
                accessor.release_node(match[1])
        nfa_state[0] = new_partial
        if changed:
            nfa_state[2] = True
        return result

    def _process_with_skip(
        self,
        accessor: SharedBufferAccessor,
        nfa_state: NFAState,
        skip_strategy: Any,
        potential: list,
        partial: list,
        result: list,
    ) -> bool:
        """``processMatchesAccordingToSkipStrategy``: emit completed matches that no earlier
        partial match can precede, pruning what the strategy skips."""
        key = computation_state_key
        completed = nfa_state[1]
        pq.add_all(completed, potential, key)
        changed = False
        earliest = completed[0] if completed else None
        while earliest is not None and (not partial or key(earliest) <= key(partial[0])):
            changed = True
            pq.poll(completed, key)
            matched = accessor.extract_patterns(earliest[1], earliest[2])
            skip_strategy.prune(partial, matched, accessor.release_node, key)
            skip_strategy.prune(completed, matched, accessor.release_node, key)
            result.append(accessor.materialize_match(matched[0]))
            accessor.release_node(earliest[1])
            earliest = completed[0] if completed else None
        return changed

    def _compute_next_states(
        self,
        accessor: SharedBufferAccessor,
        cs: ComputationState,
        event: _EventWrapper,
        timer_service: Any,
    ) -> list[ComputationState]:
        """``computeNextStates``: follow the edges whose conditions hold, with new versions."""
        state = self.states[cs[0]]
        ctx = (
            ConditionContext(accessor, cs, timer_service, event.timestamp)
            if self._needs_context
            else None
        )
        is_start = cs[0] in self._start
        if is_start and self._start_decision is not None:
            edges, total_take, total_ignore = self._start_decision
        else:
            edges, total_take, total_ignore = self._decision_graph(ctx, state, event.event)
        if not edges:  # nothing taken or ignored: a start state stays, any other one ends
            if is_start:
                return [cs]  # start_state(name, increase(version, 0)) is cs itself
            if cs[1] is not None:
                accessor.release_node(cs[1])
            return []
        take_to_visit = total_take - 1 if total_take > 0 else 0
        ignore_to_visit = total_ignore
        take_to_skip = take_to_visit
        result: list[ComputationState] = []
        version = cs[2]
        for edge in edges:
            if edge.action is IGNORE:
                if is_start:
                    continue
                if edge.target_state.name == state.name:  # stays (looping or singleton)
                    new_version = increase(version, _self_increase(total_ignore, total_take))
                else:  # IGNORE after PROCEED
                    new_version = add_stage(increase(version, take_to_skip + ignore_to_visit))
                    ignore_to_visit -= 1
                accessor.lock_node(cs[1])
                result.append((edge.target_state.name, cs[1], new_version, cs[3], cs[4]))
            else:  # TAKE
                current_version = increase(version, take_to_visit)
                next_version = add_stage(current_version)
                take_to_visit -= 1
                event_id = event.get_event_id()
                new_entry = accessor.put(edge.source_state.name, event_id, cs[1], current_version)
                if is_start:
                    start_ts, start_id = event.timestamp, event_id
                else:
                    start_ts, start_id = cs[3], cs[4]
                accessor.lock_node(new_entry)
                result.append((edge.target_state.name, new_entry, next_version, start_ts, start_id))
                target = edge.target_state
                if target.name not in self._proceeds:
                    continue
                final = self._final_state_after_proceed(ctx, target, event.event)
                if final is not None:
                    accessor.lock_node(new_entry)
                    result.append((final.name, new_entry, next_version, start_ts, start_id))
        if is_start:
            branches = _self_increase(total_ignore, total_take)
            result.append(start_state(cs[0], increase(version, branches)))
        if cs[1] is not None:
            accessor.release_node(cs[1])
        return result

    @staticmethod
    def _condition_failed(exc: Exception, state: State, condition: Any) -> FlinkRuntimeException:
        return FlinkRuntimeException(
            f"Failure happened in filter function. (CEP pattern state "
            f"'{original_name(state.name)}', condition {condition!r}: "
            f"{type(exc).__name__}: {exc})"
        )

    def _decision_graph(
        self, ctx: ConditionContext, state: State, event: Any
    ) -> tuple[list[Any], int, int]:
        """``createDecisionGraph``: TAKE/IGNORE edges reachable through PROCEED edges, with the
        numbers of branching TAKEs and IGNOREs (``OutgoingEdges``; a self-IGNORE does not count)."""
        edges: list[Any] = []
        total_take = total_ignore = 0
        stack = [state]
        current = state
        condition = None
        try:
            while stack:
                current = stack.pop()
                for t in current.state_transitions:
                    condition = t.condition
                    if condition is None or condition.test(event, ctx):
                        action = t.action
                        if action is PROCEED:
                            stack.append(t.target_state)
                        else:
                            if action is TAKE:
                                total_take += 1
                            elif t.target_state.name != state.name:
                                total_ignore += 1
                            edges.append(t)
        except FlinkRuntimeException:
            raise
        except Exception as exc:  # noqa: BLE001 - rethrown with the pattern state named
            raise self._condition_failed(exc, current, condition) from exc
        return edges, total_take, total_ignore

    def _final_state_after_proceed(
        self, ctx: ConditionContext, state: State, event: Any
    ) -> State | None:
        """``findFinalStateAfterProceed``: a final state reachable by PROCEED edges, if any."""
        stack = [state]
        current = state
        condition = None
        try:
            while stack:
                current = stack.pop()
                for t in current.state_transitions:
                    if t.action is PROCEED:
                        condition = t.condition
                        if condition is None or condition.test(event, ctx):
                            if t.target_state.is_final():
                                return t.target_state
                            stack.append(t.target_state)
        except FlinkRuntimeException:
            raise
        except Exception as exc:  # noqa: BLE001 - rethrown with the pattern state named
            raise self._condition_failed(exc, current, condition) from exc
        return None


_EMPTY_ACCESSOR = SharedBufferAccessor({}, {}, {})


def _is_simple(condition: Any) -> bool:
    """A ``SimpleCondition``, or an AND/OR/NOT of them: evaluated without a context."""
    if isinstance(condition, RichCompositeIterativeCondition):
        return all(_is_simple(c) for c in condition.nested)
    return isinstance(condition, SimpleCondition)


def _self_increase(ignore_branches: int, take_branches: int) -> int:
    """``calculateIncreasingSelfState``."""
    if take_branches == 0 and ignore_branches == 0:
        return 0
    return ignore_branches + max(1, take_branches)


class _EventWrapper:
    """Flink's ``NFA.EventWrapper``: registers the event in the buffer on first use only."""

    __slots__ = ("event", "timestamp", "accessor", "event_id")

    def __init__(self, event: Any, timestamp: int, accessor: SharedBufferAccessor) -> None:
        self.event = event
        self.timestamp = timestamp
        self.accessor = accessor
        self.event_id: Any = None

    def get_event_id(self) -> Any:
        if self.event_id is None:
            self.event_id = self.accessor.register_event(self.event, self.timestamp)
        return self.event_id
