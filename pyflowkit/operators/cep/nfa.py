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
from pyflowkit.operators.cep.conditions import (
    RichCompositeIterativeCondition,
    SimpleCondition,
    condition_call,
)
from pyflowkit.operators.cep.dewey_number import START, increase
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


class _Program:
    """One NFA state compiled once: its flags, its transitions with their condition calls
    resolved, and its ``createDecisionGraph`` as a function ``decide(event, ctx)``."""

    __slots__ = (
        "name",
        "state",
        "is_start",
        "transitions",
        "decide",
        "direct",
        "needs_context",
        "take",
    )

    def __init__(self, state: State) -> None:
        self.name = state.name
        self.state = state
        self.is_start = state.is_start()
        # (action, test, simple, target program, edge, condition); set by NFA._compile
        self.transitions: tuple[tuple[Any, ...], ...] = ()
        self.decide: Any = None
        # its decision graph holds only TAKE edges and no stop state: the new computation
        # states can be queued as they are made (NFA.doProcess would keep them all)
        self.direct = False
        # a condition its decision graph or findFinalStateAfterProceed may test is an
        # IterativeCondition: computing its next states needs a ConditionContext
        self.needs_context = True
        # its only edge is a TAKE with a simple condition (or none) to a state without PROCEED
        # edges, and it is direct: (test, target name, source pattern name, target is final,
        # condition), so process computes its next states without a decision graph; else None
        self.take: tuple[Any, str, str, bool, Any] | None = None


# An edge of a decision graph: (is TAKE, target state name, source pattern name, the target
# State when it has PROCEED edges — findFinalStateAfterProceed is needed — else None).
Edge = tuple
_MISS: tuple[tuple[Edge, ...], int, int] = ((), 0, 0)


class NFA:
    """Flink's ``NFA``: the compiled states, the window length and whether timeouts are reported.

    Each state is compiled once into a ``_Program`` (transitions with direct condition calls and a
    decision function); ``process`` runs ``computeNextStates`` for every computation state inline.
    """

    def __init__(
        self,
        states: list[State],
        window_time: int,
        handle_timeout: bool,
        single_take_path: bool = True,
    ) -> None:
        self.states: dict[str, State] = {s.name: s for s in states}
        self.window_time = window_time
        self.handle_timeout = handle_timeout
        # False: every state goes through its decision graph (tests run both in lockstep)
        self.single_take_path = single_take_path
        self._start = {s.name for s in states if s.is_start()}
        self.start_state_names = frozenset(self._start)
        self._final = frozenset(s.name for s in states if s.is_final())
        self._stop = frozenset(s.name for s in states if s.is_stop())
        self._programs = self._compile(states)
        starts = [self._programs[n] for n in sorted(self._start)]
        self._start_program = starts[0] if len(starts) == 1 else None
        # the start state's decide(event, None) when no condition needs a context, else None
        self.start_decide = (
            self._start_program.decide
            if self._start_program is not None and not self._start_program.needs_context
            else None
        )
        # the start state's ``take`` (see ``_Program``) when it is the only start state
        self.start_take = None if self._start_program is None else self._start_program.take

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its states, so the compiled decision functions follow copied conditions
        return NFA, (
            list(self.states.values()),
            self.window_time,
            self.handle_timeout,
            self.single_take_path,
        )

    # ---- compilation ----
    def _compile(self, states: list[State]) -> dict[str, _Program]:
        programs = {s.name: _Program(s) for s in states}
        has_proceed = {
            s.name for s in states if any(t.action is PROCEED for t in s.state_transitions)
        }
        for prog in programs.values():
            compiled = []
            for t in prog.state.state_transitions:
                target = t.target_state
                test, simple = condition_call(t.condition)
                edge = (
                    t.action is TAKE,
                    target.name,
                    original_name(t.source_state.name),
                    target if target.name in has_proceed else None,
                )
                compiled.append((t.action, test, simple, programs[target.name], edge, t.condition))
            prog.transitions = tuple(compiled)
        for prog in programs.values():
            prog.decide = self._decider(prog)
            prog.direct = _only_takes_no_stop(prog)
            prog.needs_context = _needs_context(prog)
            if self.single_take_path:
                prog.take = _single_take(prog, self._final)
        return programs

    def _decider(self, prog: _Program) -> Any:
        """``createDecisionGraph`` of one state as a function ``(event, ctx) -> (edges, number
        of branching TAKEs, number of branching IGNOREs)`` (``OutgoingEdges``; a self-IGNORE
        does not count). A state with one simple, PROCEED-free edge gets a single call."""
        name = prog.name
        failed = self.condition_failed
        trs = prog.transitions
        if len(trs) == 1 and trs[0][0] is not PROCEED and trs[0][2]:
            action, test, _, target, edge, condition = trs[0]
            takes = 1 if action is TAKE else 0
            ignores = 1 if action is IGNORE and target.name != name else 0
            hit = ((edge,), takes, ignores)
            if test is None:
                return lambda event, ctx: hit
            state = prog.state

            def decide_one(event: Any, ctx: Any) -> tuple[tuple[Edge, ...], int, int]:
                try:
                    if test(event):
                        return hit
                except FlinkRuntimeException:
                    raise
                except Exception as exc:  # noqa: BLE001 - rethrown with the pattern state named
                    raise failed(exc, state, condition) from exc
                return _MISS

            return decide_one

        def decide(event: Any, ctx: Any) -> tuple[list[Edge], int, int]:
            edges: list[Edge] = []
            total_take = total_ignore = 0
            stack = [prog]
            current = prog
            condition = None
            try:
                while stack:
                    current = stack.pop()
                    for action, test, simple, target, edge, condition in current.transitions:  # noqa: B007 (named on failure)
                        if test is None or (test(event) if simple else test(event, ctx)):
                            if action is PROCEED:
                                stack.append(target)
                            else:
                                if action is TAKE:
                                    total_take += 1
                                elif target.name != name:
                                    total_ignore += 1
                                edges.append(edge)
            except FlinkRuntimeException:
                raise
            except Exception as exc:  # noqa: BLE001 - rethrown with the pattern state named
                raise failed(exc, current.state, condition) from exc
            return edges, total_take, total_ignore

        return decide

    def start_condition_failed(self, exc: Exception) -> FlinkRuntimeException:
        """The error for the (single) start state's condition raising ``exc``."""
        prog = self._start_program
        assert prog is not None and prog.take is not None
        return self.condition_failed(exc, prog.state, prog.take[4])

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
    ) -> tuple[Any, int, int]:
        """``createDecisionGraph`` of the (single) start state for ``event`` (nothing taken yet,
        so its context has no events)."""
        prog = self._start_program
        if prog is None:
            raise IllegalStateException("The NFA must have exactly one start state.")
        if not prog.needs_context:
            return prog.decide(event, None)
        ctx = ConditionContext(_EMPTY_ACCESSOR, start_state(prog.name), timer_service, timestamp)
        return prog.decide(event, ctx)

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
            _offer(partial, start_state(name))
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
                if timestamp - cs[3] >= window and cs[0] not in start:
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
                        _offer(kept, cs)
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
        start_decision: tuple[Any, int, int] | None = None,
    ) -> list[dict[str, list]]:
        """``process``: feed one event; the completed matches, materialized, in Flink's order.

        ``computeNextStates`` runs inline for each computation state; the event is registered
        in the shared buffer on its first TAKE only (``EventWrapper``) and released at the end.
        ``start_decision``: the start state's decision graph for this event when the caller has
        already evaluated it (``start_decision_graph``), so no condition runs twice.
        """
        programs = self._programs
        final, stop = self._final, self._stop
        entries = accessor.entries
        events = accessor.events
        release_node = accessor.release_node
        new_partial: list = []
        potential: list = []
        changed = False
        event_id: Any = None
        wrapper: list[Any] = []
        try:
            for cs in nfa_state[0]:
                name, previous, version, start_ts, start_id = cs
                prog = programs[name]
                is_start = prog.is_start
                take = prog.take
                if take is not None:  # one simple TAKE edge: computeNextStates without edges
                    if is_start and start_decision is not None:
                        hit = start_decision[0]
                    elif take[0] is None:
                        hit = True
                    else:
                        try:
                            hit = take[0](event)
                        except FlinkRuntimeException:
                            raise
                        except Exception as exc:  # noqa: BLE001 - rethrown naming the state
                            raise self.condition_failed(exc, prog.state, take[4]) from exc
                    edges = None  # on a miss, nothing is taken (below)
                if take is None:
                    ctx = (
                        ConditionContext(accessor, cs, timer_service, timestamp)
                        if prog.needs_context
                        else None
                    )
                    if is_start and start_decision is not None:
                        edges, total_take, total_ignore = start_decision
                    else:
                        edges, total_take, total_ignore = prog.decide(event, ctx)
                elif hit:  # the TAKE: previous locked by put and released after it (no change)
                    changed = True
                    if event_id is None:  # EventWrapper.getEventId: registered, locked once
                        event_id = accessor.register_event(event, timestamp)
                        wrapper = events[event_id]
                    new_entry = (event_id, take[2])
                    node = entries.get(new_entry)
                    if node is None:
                        entries[new_entry] = [1, [(previous, version)]]
                        wrapper[0] += 1  # _lock_event
                    else:
                        node[1].append((previous, version))
                        node[0] += 1
                    if is_start:
                        ncs = (take[1], new_entry, version + (0,), timestamp, event_id)
                    else:
                        ncs = (take[1], new_entry, version + (0,), start_ts, start_id)
                    queue = potential if take[3] else new_partial
                    if queue:
                        _offer(queue, ncs)
                    else:  # an empty queue: offer is an append
                        queue.append(ncs)
                    if is_start:  # the start state again, version + 1 (one TAKE branch)
                        new_partial.append((name, None, (*version[:-1], version[-1] + 1), -1, None))
                    continue
                if not edges:  # nothing taken or ignored: a start state stays, any other one ends
                    if is_start:
                        if start_id is None or not new_partial:  # sorts last: an append
                            new_partial.append(cs)
                        else:
                            _offer(new_partial, cs)
                        continue
                    changed = True
                    if previous is not None:
                        node = entries.get(previous)
                        if node is not None and node[0] > 1:
                            node[0] -= 1
                        else:
                            release_node(previous)
                    continue
                # ---- computeNextStates ----
                take_to_visit = total_take - 1 if total_take > 0 else 0
                ignore_to_visit = total_ignore
                take_to_skip = take_to_visit
                result: list[ComputationState] = []
                direct = prog.direct  # new states go straight to their queues
                for is_take, target_name, source_name, proceed_target in edges:
                    if not is_take:  # IGNORE
                        if is_start:
                            continue
                        if target_name == name:  # stays (looping or singleton)
                            new_version = increase(
                                version, _self_increase(total_ignore, total_take)
                            )
                        else:  # IGNORE after PROCEED
                            new_version = (
                                *increase(version, take_to_skip + ignore_to_visit),
                                0,
                            )
                            ignore_to_visit -= 1
                        if previous is not None:
                            node = entries.get(previous)
                            if node is not None:
                                node[0] += 1
                        result.append((target_name, previous, new_version, start_ts, start_id))
                        continue
                    # TAKE
                    if take_to_visit:
                        current_version = (*version[:-1], version[-1] + take_to_visit)
                    else:
                        current_version = version
                    take_to_visit -= 1
                    if event_id is None:  # EventWrapper.getEventId: registered, locked once
                        event_id = accessor.register_event(event, timestamp)
                        wrapper = events[event_id]
                    # SharedBufferAccessor.put, then lockNode on the new entry
                    if previous is not None:
                        node = entries.get(previous)
                        if node is not None:
                            node[0] += 1
                    new_entry = (event_id, source_name)
                    node = entries.get(new_entry)
                    if node is None:
                        node = entries[new_entry] = [1, [(previous, current_version)]]
                        wrapper[0] += 1  # _lock_event
                    else:
                        node[1].append((previous, current_version))
                        node[0] += 1
                    if is_start:
                        new_start_ts, new_start_id = timestamp, event_id
                    else:
                        new_start_ts, new_start_id = start_ts, start_id
                    next_version = (*current_version, 0)
                    ncs = (target_name, new_entry, next_version, new_start_ts, new_start_id)
                    if not direct:
                        result.append(ncs)
                    else:
                        queue = potential if target_name in final else new_partial
                        if queue:
                            _offer(queue, ncs)
                        else:  # an empty queue: offer is an append
                            queue.append(ncs)
                    if proceed_target is not None:
                        final_state = self._final_state_after_proceed(ctx, proceed_target, event)
                        if final_state is not None:
                            node[0] += 1
                            ncs = (
                                final_state.name,
                                new_entry,
                                next_version,
                                new_start_ts,
                                new_start_id,
                            )
                            if not direct:
                                result.append(ncs)
                            elif potential:
                                _offer(potential, ncs)
                            else:  # an empty queue: offer is an append
                                potential.append(ncs)
                if is_start:  # the start state again, version + calculateIncreasingSelfState
                    if total_take or total_ignore:
                        branches = total_ignore + (total_take if total_take > 1 else 1)
                    else:
                        branches = 0
                    ncs = (name, None, (*version[:-1], version[-1] + branches), -1, None)
                    if not direct:
                        result.append(ncs)
                    else:  # a new start state (no start event) sorts last: an append
                        new_partial.append(ncs)
                if previous is not None:
                    node = entries.get(previous)
                    if node is not None and node[0] > 1:
                        node[0] -= 1
                    else:
                        release_node(previous)
                if direct:  # only TAKEs: never unchanged, no stop state to discard the path
                    changed = True
                    continue
                # ---- sort the new computation states (NFA.doProcess) ----
                if len(result) == 1:
                    ncs = result[0]
                    if ncs == cs:  # unchanged
                        if new_partial:
                            _offer(new_partial, cs)
                        else:  # an empty queue: offer is an append
                            new_partial.append(cs)
                        continue
                    changed = True
                    ncs_name = ncs[0]
                    if ncs_name in final:
                        if potential:
                            _offer(potential, ncs)
                        else:  # an empty queue: offer is an append
                            potential.append(ncs)
                    elif ncs_name in stop:
                        release_node(ncs[1])
                    else:
                        if new_partial:
                            _offer(new_partial, ncs)
                        else:  # an empty queue: offer is an append
                            new_partial.append(ncs)
                    continue
                changed = True
                retain = []
                discard_path = False
                for ncs in result:
                    ncs_name = ncs[0]
                    if ncs_name in final:
                        if potential:
                            _offer(potential, ncs)
                        else:  # an empty queue: offer is an append
                            potential.append(ncs)
                    elif ncs_name in stop:
                        discard_path = True
                        release_node(ncs[1])
                    else:
                        retain.append(ncs)
                if discard_path:
                    for ncs in retain:
                        release_node(ncs[1])
                else:
                    for ncs in retain:
                        if new_partial:
                            _offer(new_partial, ncs)
                        else:  # an empty queue: offer is an append
                            new_partial.append(ncs)
            found: list[dict[str, list]] = []
            # no completed match, new or waiting: nothing to emit under any skip strategy
            if potential or nfa_state[1]:
                if potential:
                    changed = True
                if skip_strategy.is_skip_strategy():
                    if self._process_with_skip(
                        accessor, nfa_state, skip_strategy, potential, new_partial, found
                    ):
                        changed = True
                else:
                    for match in potential:
                        path = accessor.extract_patterns(match[1], match[2])[0]
                        found.append(accessor.materialize_match(path))
                        release_node(match[1])
            nfa_state[0] = new_partial
            if changed:
                nfa_state[2] = True
            return found
        finally:
            if event_id is not None:  # the wrapper's own lock (its entry cannot be gone)
                if wrapper[0] > 1:
                    wrapper[0] -= 1
                else:
                    accessor.release_event(event_id)

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

    @staticmethod
    def condition_failed(exc: Exception, state: State, condition: Any) -> FlinkRuntimeException:
        return FlinkRuntimeException(
            f"Failure happened in filter function. (CEP pattern state "
            f"'{original_name(state.name)}', condition {condition!r}: "
            f"{type(exc).__name__}: {exc})"
        )

    def _final_state_after_proceed(
        self, ctx: ConditionContext | None, state: State, event: Any
    ) -> State | None:
        """``findFinalStateAfterProceed``: a final state reachable by PROCEED edges, if any."""
        stack = [self._programs[state.name]]
        current = stack[0]
        condition = None
        try:
            while stack:
                current = stack.pop()
                for action, test, simple, target, _, condition in current.transitions:  # noqa: B007 (named on failure)
                    if action is PROCEED:
                        if test is None or (test(event) if simple else test(event, ctx)):
                            if target.state.is_final():
                                return target.state
                            stack.append(target)
        except FlinkRuntimeException:
            raise
        except Exception as exc:  # noqa: BLE001 - rethrown with the pattern state named
            raise self.condition_failed(exc, current.state, condition) from exc
        return None


def _only_takes_no_stop(prog: _Program) -> bool:
    """The states reachable by PROCEED edges from ``prog`` (its decision graph) have only TAKE
    and PROCEED edges, and none of them nor any TAKE target is a stop state."""
    seen = {prog.name}
    stack = [prog]
    while stack:
        current = stack.pop()
        if current.state.is_stop():
            return False
        for action, _, _, target, _, _ in current.transitions:
            if action is IGNORE:
                return False
            if action is TAKE:
                if target.state.is_stop():
                    return False
            elif target.name not in seen:
                seen.add(target.name)
                stack.append(target)
    return True


def _single_take(prog: _Program, final: frozenset[str]) -> tuple[Any, str, str, bool, Any] | None:
    """``prog.take`` (see ``_Program``): its one TAKE edge when computing its next states needs
    no decision graph, ``findFinalStateAfterProceed`` or context, else None."""
    if len(prog.transitions) != 1 or not prog.direct:
        return None
    action, test, simple, target, edge, condition = prog.transitions[0]
    if action is not TAKE or not simple or edge[3] is not None:
        return None
    return test, target.name, edge[2], target.name in final, condition


def _proceed_closure(prog: _Program) -> list[_Program]:
    """``prog`` and the states its PROCEED edges reach (whatever their conditions)."""
    seen = {prog.name: prog}
    stack = [prog]
    while stack:
        for action, _, _, target, _, _ in stack.pop().transitions:
            if action is PROCEED and target.name not in seen:
                seen[target.name] = target
                stack.append(target)
    return list(seen.values())


def _needs_context(prog: _Program) -> bool:
    """Whether computing ``prog``'s next states may test a condition that is not simple: one in
    its decision graph, or on a PROCEED edge after a TAKE (``findFinalStateAfterProceed``)."""
    decision = _proceed_closure(prog)
    tested = [t[5] for current in decision for t in current.transitions]
    for current in decision:
        for action, _, _, target, _, _ in current.transitions:
            if action is TAKE:
                tested += [
                    t[5]
                    for after in _proceed_closure(target)
                    for t in after.transitions
                    if t[0] is PROCEED
                ]
    return not all(condition is None or _is_simple(condition) for condition in tested)


def _offer(queue: list, cs: ComputationState) -> None:
    """``PriorityQueue.offer`` with ``COMPUTATION_STATE_COMPARATOR`` inline (``pq.offer``).

    A computation state without a start event (a start state) has the greatest key, so its
    ``siftUp`` stops at once: it is appended.
    """
    k = len(queue)
    queue.append(cs)
    kx = cs[4]
    if k == 0 or kx is None:
        return
    while k > 0:
        parent = (k - 1) >> 1
        e = queue[parent]
        ke = e[4]
        if ke is None:
            ke = _NO_START
        if kx >= ke:
            break
        queue[k] = e
        k = parent
    queue[k] = cs


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
