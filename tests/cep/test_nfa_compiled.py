"""The NFA's compiled states: a ConditionContext only where an IterativeCondition can be tested,
the start decision without one when the start state's conditions are simple, and the events an
IterativeCondition sees later in the pattern unchanged by that."""

from __future__ import annotations

import copy
from typing import Any

from pyflowkit.cep import IterativeCondition, Pattern
from pyflowkit.operators.cep.nfa import NFA
from pyflowkit.operators.cep.nfa_compiler import compile_states
from tests.cep.harness import Event, NFATestHarness, flatten, name_is


class PriceAboveFirst(IterativeCondition):
    """Flink's ``IterativeConditionsITCase`` style: price above the ``start`` event's price."""

    def __init__(self) -> None:
        self.contexts: list[Any] = []

    def filter(self, value: Event, ctx: Any) -> bool:
        self.contexts.append(ctx)
        (first,) = ctx.get_events_for_pattern("start")
        return value.price > first.price


def nfa_of(pattern: Pattern) -> NFA:
    states, window = compile_states(pattern)
    return NFA(states, window, False)


def test_simple_start_state_decides_without_a_context() -> None:
    iterative = Pattern.begin("start").where(name_is("a")).next("end").where(PriceAboveFirst())
    assert nfa_of(iterative).start_decide is not None  # the operator's skip path needs no context
    starts_iterative = Pattern.begin("start").where(PriceAboveFirst())
    assert nfa_of(starts_iterative).start_decide is None


def test_iterative_condition_after_simple_ones_sees_the_partial_match() -> None:
    condition = PriceAboveFirst()
    pattern = Pattern.begin("start").where(name_is("a")).next("end").where(condition)
    events = [Event(1, "a", 2.0), Event(2, "b", 3.0), Event(3, "a", 5.0), Event(4, "b", 1.0)]
    matches = [flatten(m) for m in NFATestHarness(pattern).feed_events(events)]
    assert matches == [[events[0], events[1]]]
    # tested for the two events after an "a" only, each time with a context
    assert len(condition.contexts) == 2 and all(c is not None for c in condition.contexts)


def test_a_copied_nfa_calls_the_copied_conditions() -> None:
    condition = PriceAboveFirst()
    nfa = nfa_of(Pattern.begin("start").where(name_is("a")).next("end").where(condition))
    twin = copy.deepcopy(nfa)
    harness = NFATestHarness(Pattern.begin("x"))
    harness.nfa, harness.state = twin, twin.create_initial_nfa_state()
    harness.feed_events([Event(1, "a", 1.0), Event(2, "b", 2.0)])
    assert condition.contexts == []  # the original's condition was not called
    (copied,) = {id(c) for c in twin.conditions() if isinstance(c, PriceAboveFirst)}
    assert copied != id(condition)
