"""The single-TAKE path: a state whose only edge is a simple TAKE computes its next states in
``NFA.process`` (and the operator's start test in ``CepOperator.process_batch``) without its
decision graph. Checked in lockstep against the decision-graph path: the same matches, timeouts,
NFA states and shared buffer after every event, and the same keyed state at every checkpoint."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pyflowkit.cep import CEP, Pattern
from pyflowkit.common import Time
from pyflowkit.datastream import TimeCharacteristic
from pyflowkit.errors import FlinkRuntimeException
from pyflowkit.operators.cep import cep_operator
from pyflowkit.operators.cep.after_match_skip_strategy import AfterMatchSkipStrategy
from pyflowkit.operators.cep.nfa import NFA
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.cep.harness import Event, NFATestHarness
from tests.cep.jobs import environment, high, pair, readings
from tests.cep.test_nfa_property import build, scenario


def takes(pattern: Pattern, single_take_path: bool = True) -> dict[str, Any]:
    """State name → its compiled ``take`` (None: through the decision graph)."""
    h = NFATestHarness(pattern)
    nfa = NFA(list(h.nfa.states.values()), h.nfa.window_time, False, single_take_path)
    return {name: prog.take for name, prog in nfa._programs.items()}


def test_strict_singletons_take_without_a_decision_graph() -> None:
    strict = Pattern.begin("first").where(high).next("second").where(high)
    got = takes(strict)
    assert got["first"][1:4] == ("second", "first", False)
    assert got["second"][1:4] == ("$endState$", "second", True)
    assert got["first"][0].__wrapped__ is high  # the user's function, its result checked a bool
    assert got["$endState$"] is None
    assert set(takes(strict, single_take_path=False).values()) == {None}
    # followed_by: the second state ignores as well as takes; times(2): a PROCEED edge
    relaxed = Pattern.begin("first").where(high).followed_by("second").where(high)
    assert takes(relaxed)["second"] is None
    assert takes(relaxed)["first"] is not None
    looping = Pattern.begin("first").where(high).one_or_more()
    assert takes(looping)["first"] is None


def lockstep(pattern: Pattern, events: list[tuple[Any, int]], timeout_handling: bool) -> None:
    fast = NFATestHarness(pattern, timeout_handling)
    graph = NFATestHarness(pattern, timeout_handling)
    graph.nfa = NFA(list(graph.nfa.states.values()), graph.nfa.window_time, timeout_handling, False)
    for event, ts in events:
        assert fast.consume(event, ts) == graph.consume(event, ts)
        assert fast.timed_out == graph.timed_out
        assert fast.state == graph.state
        assert fast.buffer.events == graph.buffer.events
        assert fast.buffer.entries == graph.buffer.entries
        assert fast.buffer.events_count == graph.buffer.events_count
    # a last advance past every window
    end = (events[-1][1] if events else 0) + 100
    assert fast.nfa.advance_time(fast.buffer, fast.state, end) == graph.nfa.advance_time(
        graph.buffer, graph.state, end
    )
    assert (fast.state, fast.buffer.entries) == (graph.state, graph.buffer.entries)


SKIPS = [
    AfterMatchSkipStrategy.no_skip(),
    AfterMatchSkipStrategy.skip_past_last_event(),
    AfterMatchSkipStrategy.skip_to_next(),
]


@settings(max_examples=150, deadline=None)
@given(scenario(), st.sampled_from(range(len(SKIPS))), st.booleans())
def test_single_take_path_in_lockstep_with_decision_graphs(case, skip, timeouts) -> None:  # noqa: ANN001
    parts, events, within = case
    pattern = build(parts, within)
    pattern.after_match_skip_strategy = SKIPS[skip]
    lockstep(pattern, events, timeouts)


def test_same_timestamp_events_in_lockstep() -> None:
    """Several events at one timestamp: event ids (timestamp, n) and Dewey versions agree."""
    pattern = (
        Pattern.begin("a")
        .where(lambda e: e.name == "a")
        .next("b")
        .where(lambda e: e.name in "ab")
        .next("c")
        .where(lambda e: e.name != "x")
        .within(Time.milliseconds(3))
    )
    names = "aabacabbaxaabcaaab"
    events = [(Event(i, c), 1 + i // 3) for i, c in enumerate(names)]
    lockstep(pattern, events, True)


def test_a_raising_start_condition_names_its_state_on_both_paths() -> None:
    def explode(e: Event) -> bool:
        raise ZeroDivisionError("broke")

    pattern = Pattern.begin("first").where(explode).next("second").where(high)
    for single_take_path in (True, False):
        h = NFATestHarness(pattern)
        h.nfa = NFA(list(h.nfa.states.values()), 0, False, single_take_path)
        with pytest.raises(FlinkRuntimeException, match="CEP pattern state 'first'") as info:
            h.consume(Event(1, "a"), 1)
        assert isinstance(info.value.__cause__, ZeroDivisionError)


# ---- the operator: CepOperator.process_batch with and without the single-TAKE path -----------
def run_pairs(single_take_path: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[list, list]:
    """The printed pairs and every completed checkpoint's CEP keyed state (processing time)."""
    monkeypatch.setattr(
        cep_operator, "NFA", functools.partial(NFA, single_take_path=single_take_path)
    )
    env = environment(2, interval=10)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    pattern = (
        Pattern.begin("first").where(high).next("second").where(high).within(Time.milliseconds(40))
    )
    stream = env.from_collection(readings(1000)).key_by(lambda e: e[0])
    CEP.pattern(stream, pattern).select(pair).print()
    run = MiniCluster(echo_print=False, seed=5, source_batch=16).submit(env.get_job_graph())
    states = []
    seen: set[int] = set()
    while run.job_status is not JobStatus.FINISHED:
        run.step()
        coord = run.checkpoint_coordinator
        for cid in sorted(set() if coord is None else set(coord.completed_by_id) - seen):
            seen.add(cid)
            states.append(run.keyed_state_at(cid, "CepOperator").get("CepOperator", {}))
    return run.printed(), states


# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
def test_operator_single_take_path_in_lockstep(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_printed, fast_states = run_pairs(True, monkeypatch)
    graph_printed, graph_states = run_pairs(False, monkeypatch)
    assert fast_printed == graph_printed
    assert len(fast_printed) > 10
    assert fast_states == graph_states
    assert any(
        cs[0] == "second" for s in fast_states for ns in s.get("nfaStateName", {}).values() for cs in ns[0]
    )  # fmt: skip


# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
def test_a_raising_start_condition_fails_process_batch_naming_the_state() -> None:
    env = environment(1)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)

    def explode(e: Any) -> bool:
        if e[2] > 70:
            raise ZeroDivisionError("level check broke")
        return False

    pattern = Pattern.begin("first").where(explode).next("second").where(high)
    CEP.pattern(env.from_collection(readings()).key_by(lambda e: e[0]), pattern).select(
        pair
    ).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FAILED
    cause = run.failure_cause
    chain = []
    while cause is not None:
        chain.append(cause)
        cause = cause.__cause__ or getattr(cause, "cause", None)
    cep_error = next(c for c in chain if isinstance(c, FlinkRuntimeException))
    assert "CEP pattern state 'first'" in str(cep_error)
    assert isinstance(cep_error.__cause__, ZeroDivisionError)
