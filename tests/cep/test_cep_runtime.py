"""``CEP.pattern`` through the API on the simulated cluster (step and fast mode) and the reference
driver: graphs as Flink's ``PatternStreamBuilder`` builds them, results, time behaviours, side
outputs, keyed state, and bad input (CEPITCase / CEPOperatorTest behaviours)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pyflowkit.cep import CEP, Pattern, PatternProcessFunction, TimedOutPartialMatchHandler
from pyflowkit.common import Duration, WatermarkStrategy
from pyflowkit.datastream import OutputTag, TimeCharacteristic
from pyflowkit.errors import FlinkRuntimeException, MalformedPatternException
from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner
from pyflowkit.reference.local_driver import run_local
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.cep.jobs import (
    EventTime,
    environment,
    expected_pairs,
    keyed_pairs,
    pair,
    readings,
    strip,
    two_high_pattern,
)


def printed_pairs(lines: list[str]) -> Counter[Any]:
    return Counter(eval(s) for s in strip(lines))  # noqa: S307 - our own tuples


# ---- graphs (PatternStreamBuilder.build) ------------------------------------------------------
def test_keyed_input_becomes_cep_operator_node() -> None:
    """PatternStreamBuilder: keyed input → ``transform("CepOperator")`` at the stream's
    parallelism, HEAD chaining (AbstractStreamOperator's default), a HASH edge in front."""
    env = environment(3)
    keyed_pairs(env).print()
    sg = env.get_stream_graph()
    (node,) = [n for n in sg.nodes.values() if n.operator_factory.operator_class == "CepOperator"]
    assert node.operator_name == "CepOperator"
    assert node.parallelism == 3
    assert node.operator_factory.chaining_strategy.name == "HEAD"
    (edge,) = node.in_edges
    assert isinstance(edge.partitioner, KeyGroupStreamPartitioner)
    names = [v.name for v in env.get_job_graph().vertices]
    assert names == [
        "Source: Collection Source -> Timestamps/Watermarks",
        "CepOperator -> Sink: Print to Std. Out",
    ]


def test_non_keyed_input_becomes_global_cep_operator() -> None:
    """PatternStreamBuilder: non-keyed input → ``keyBy(NullByteKeySelector)`` +
    ``transform("GlobalCepOperator")`` + ``forceNonParallel()``."""
    env = environment(4)
    stream = env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    CEP.pattern(stream, two_high_pattern()).select(pair).print()
    sg = env.get_stream_graph()
    (node,) = [n for n in sg.nodes.values() if n.operator_factory.operator_class == "CepOperator"]
    assert node.operator_name == "GlobalCepOperator"
    assert (node.parallelism, node.max_parallelism) == (1, 1)
    assert isinstance(node.in_edges[0].partitioner, KeyGroupStreamPartitioner)
    assert node.state_key_selector(("x", 1, 2)) == 0
    # one NFA for the whole stream: consecutive high events of any keys pair up
    lines = run_local(env.get_job_graph()).printed
    everything = [("all", e[1], e[2]) for e in readings()]
    got = Counter((a, b) for _k, a, b in printed_pairs(lines).elements())
    assert got == Counter((a, b) for _k, a, b in expected_pairs(everything).elements())


def test_malformed_pattern_fails_at_select_and_leaves_the_pipeline() -> None:
    """As Flink (compiled in PatternStreamBuilder.build): the error comes from ``select`` and
    nothing is added to the environment."""
    env = environment(2)
    stream = env.from_collection(readings()).key_by(lambda e: e[0])
    before = list(env._transformations)
    bad = Pattern.begin("a").where(high_level).not_followed_by("b").where(high_level)
    with pytest.raises(MalformedPatternException, match="NotFollowedBy is not supported"):
        CEP.pattern(stream, bad).select(pair)
    assert env._transformations == before


def high_level(e: Any) -> bool:
    return e[2] > 70


# ---- results on the cluster -------------------------------------------------------------------
@pytest.mark.parametrize("p", [1, 2, 3])
def test_keyed_pairs_fast_mode(p: int) -> None:
    """CEPITCase#testSimpleKeyedPatternEventTime-style on the MiniCluster in fast mode."""
    env = environment(p)
    keyed_pairs(env).print()
    run = MiniCluster(echo_print=False, seed=p).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FINISHED
    assert printed_pairs(run.printed()) == expected_pairs()


def test_keyed_pairs_step_mode_equals_fast_mode_and_driver() -> None:
    env = environment(2)
    keyed_pairs(env).print()
    graph = env.get_job_graph()
    run = MiniCluster(echo_print=False, seed=7).submit(graph)
    while run.job_status not in (JobStatus.FINISHED, JobStatus.FAILED):
        run.step()
    assert run.job_status is JobStatus.FINISHED
    assert sorted(run.printed()) == sorted(run_local(graph).printed)
    assert printed_pairs(run.printed()) == expected_pairs()


class Timeouts(PatternProcessFunction, TimedOutPartialMatchHandler):
    """process() with a TimedOutPartialMatchHandler → timeouts to a side output."""

    TAG = OutputTag("timeouts")

    def process_match(self, match: dict, ctx: Any) -> Any:
        yield ("match", *pair(match), ctx.timestamp())

    def process_timed_out_match(self, match: dict, ctx: Any) -> None:
        first = match["first"][0]
        ctx.output(self.TAG, ("timeout", first[0], first[1], ctx.timestamp()))


def test_process_function_with_timed_out_partial_matches() -> None:
    """CEPITCase#testTimeoutHandling / PatternProcessFunction + TimedOutPartialMatchHandler:
    matches carry the second event's timestamp, timeouts go to the side output at start+within."""
    env = environment(2)
    stream = env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    result = CEP.pattern(stream.key_by(lambda e: e[0]), two_high_pattern()).process(Timeouts())
    result.print("main")
    result.get_side_output(Timeouts.TAG).print("side")
    lines = run_local(env.get_job_graph()).printed
    mains = [eval(line.split("> ", 1)[1]) for line in lines if line.startswith("main")]  # noqa: S307
    sides = [eval(line.split("> ", 1)[1]) for line in lines if line.startswith("side")]  # noqa: S307
    assert Counter((k, a, b) for _, k, a, b, _ in mains) == expected_pairs()
    assert all(ts == b for _, _, _, b, ts in mains)
    # a partial match is dropped by strict contiguity when its key's next event is not high; only
    # a high last event of a key is still waiting at the end (the final watermark times it out)
    last = {e[0]: e for e in readings()}
    pending = {(e[0], e[1]) for e in last.values() if e[2] > 70}
    assert pending and {(k, a) for _, k, a, _ in sides} == pending
    assert all(ts == a + 25 for _, _, a, ts in sides)


def test_select_with_timeout_tag() -> None:
    """PatternStream#select(OutputTag, PatternTimeoutFunction, PatternSelectFunction)."""
    env = environment(2)
    tag = OutputTag("late-pairs")
    stream = env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    main = CEP.pattern(stream.key_by(lambda e: e[0]), two_high_pattern()).select(
        tag, lambda match, ts: ("timeout", match["first"][0][1], ts), pair
    )
    main.print("main")
    main.get_side_output(tag).print("side")
    lines = run_local(env.get_job_graph()).printed
    sides = [line for line in lines if line.startswith("side")]
    assert Counter(eval(line.split("> ", 1)[1]) for line in lines if line.startswith("main")) == expected_pairs()  # noqa: S307  # fmt: skip
    assert sides and all("'timeout'" in line for line in sides)


def test_flat_select_emits_several_results() -> None:
    env = environment(2)
    stream = env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    CEP.pattern(stream.key_by(lambda e: e[0]), two_high_pattern()).flat_select(
        lambda m: [m["first"][0][1], m["second"][0][1]]
    ).print()
    printed = Counter(int(s) for s in strip(run_local(env.get_job_graph()).printed))
    expected: Counter[int] = Counter()
    for _k, a, b in expected_pairs():
        expected[a] += 1
        expected[b] += 1
    assert printed == expected


def test_late_elements_go_to_the_late_side_output() -> None:
    """CEPOperatorTest#testCEPOperatorSideOutputLateElementsEventTime: elements at or below the
    watermark are late; with ``side_output_late_data`` they go there, else they are dropped."""
    env = environment(1)
    events = [("k", 10, 80), ("k", 20, 90), ("k", 5, 95), ("k", 30, 99)]  # 5 arrives late
    stream = env.from_collection(events).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(0))
        .with_timestamp_assigner(EventTime())
        .with_idleness(Duration.of_millis(10**9))
    )
    late = OutputTag("late")
    pattern = Pattern.begin("first").where(high_level).next("second").where(high_level)
    out = (
        CEP.pattern(stream.key_by(lambda e: e[0]), pattern).side_output_late_data(late).select(pair)
    )
    out.print("main")
    out.get_side_output(late).print("late")
    run = MiniCluster(echo_print=False, seed=1, source_batch=1).submit(env.get_job_graph())
    run.run()
    lines = run.printed()
    late_lines = [line for line in lines if line.startswith("late")]
    main_pairs = sorted(eval(line.split("> ", 1)[1]) for line in lines if line.startswith("main"))  # noqa: S307
    if late_lines:  # the watermark passed 10 before 5 arrived
        assert late_lines == ["late> ('k', 5, 95)"]
        assert main_pairs == [("k", 10, 20), ("k", 20, 30)]
    else:
        assert main_pairs == [("k", 5, 10), ("k", 10, 20), ("k", 20, 30)]


# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
def test_processing_time_is_the_1_11_default() -> None:
    """Flink 1.11: without ``set_stream_time_characteristic`` the job runs in processing time
    (elements go through the NFA on arrival, results carry no timestamp)."""
    env = environment(1)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    pattern = Pattern.begin("first").where(high_level).next("second").where(high_level)
    events = [("k", 0, 80), ("k", 1, 90), ("k", 2, 10), ("k", 3, 95), ("k", 4, 96)]
    CEP.pattern(env.from_collection(events).key_by(lambda e: e[0]), pattern).select(pair).print()
    graph = env.get_job_graph()
    (node,) = [n for n in graph.stream_graph.nodes.values() if n.operator_name == "CepOperator"]
    assert node.operator_factory.params["is_processing_time"] is True
    assert sorted(strip(run_local(graph).printed)) == ["('k', 0, 1)", "('k', 3, 4)"]


def test_in_event_time_overrides_the_environment() -> None:
    """PatternStream#inEventTime (1.12) decides over the environment's characteristic."""
    env = environment(1)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    stream = env.from_collection([("k", 3, 80), ("k", 1, 90)]).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_millis(5)
        ).with_timestamp_assigner(EventTime())  # fmt: skip
    )
    pattern = Pattern.begin("first").where(high_level).next("second").where(high_level)
    CEP.pattern(stream.key_by(lambda e: e[0]), pattern).in_event_time().select(pair).print()
    # event time sorts the two elements by timestamp before the NFA sees them
    assert strip(run_local(env.get_job_graph()).printed) == ["('k', 1, 3)"]


def test_comparator_orders_elements_with_equal_timestamps() -> None:
    """CEPITCase#testSimpleAfterMatchSkip...comparator: elements of one timestamp are sorted by
    the EventComparator before they reach the NFA."""
    env = environment(1)
    events = [("k", 5, 90), ("k", 5, 80)]  # same timestamp: the comparator puts 80 first
    stream = env.from_collection(events).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    pattern = (
        Pattern.begin("first").where(lambda e: e[2] == 80).next("second").where(lambda e: e[2] == 90)
    )  # fmt: skip
    CEP.pattern(stream.key_by(lambda e: e[0]), pattern, comparator=lambda a, b: a[2] - b[2]).select(
        lambda m: (m["first"][0][2], m["second"][0][2])
    ).print()
    assert strip(run_local(env.get_job_graph()).printed) == ["(80, 90)"]


# ---- state ------------------------------------------------------------------------------------
# events without timestamps: CEP in processing time, the 1.11 default (FLINK-19326)
@pytest.mark.flink_version("1.11")
def test_partial_matches_are_keyed_state_in_checkpoints() -> None:
    """The NFA state (``nfaStateName``) and the shared buffer maps are keyed state: a checkpoint
    taken mid-stream holds partial matches waiting for their second event (processing time, so
    each element goes through the NFA on arrival)."""
    env = environment(2, interval=15)
    env.set_stream_time_characteristic(TimeCharacteristic.ProcessingTime)
    pattern = Pattern.begin("first").where(high_level).next("second").where(high_level)
    stream = env.from_collection(readings()).key_by(lambda e: e[0])
    CEP.pattern(stream, pattern).select(pair).print()
    run = MiniCluster(echo_print=False, seed=3, source_batch=1).submit(env.get_job_graph())
    found = False
    seen: set[int] = set()
    while not found and run.job_status is not JobStatus.FINISHED:
        run.step()
        coord = run.checkpoint_coordinator
        new = set() if coord is None else set(coord.completed_by_id) - seen
        if not new:
            continue
        seen |= new
        state = run.keyed_state_at(max(new), "CepOperator").get("CepOperator", {})
        for key, nfa_state in state.get("nfaStateName", {}).items():
            waiting = [cs for cs in nfa_state[0] if cs[0] == "second"]
            if waiting:
                found = True
                (event_id, page) = waiting[0][1]
                assert page == "first"
                held = dict(map(tuple, state["sharedBuffer-events"][key]))
                assert held[event_id][1][0] == key  # the first event of the partial match
    assert found
    run.run()
    assert printed_pairs(run.printed()) == expected_pairs(within=10**9)


# ---- bad input --------------------------------------------------------------------------------
def test_a_raising_condition_fails_the_job_naming_the_pattern_state() -> None:
    """A condition that raises fails the job; the error names the pattern state and keeps the
    user's exception (and traceback) as its cause."""
    env = environment(1)

    def explode(e: Any) -> bool:
        if e[1] > 30:
            raise ZeroDivisionError("level check broke")
        return e[2] > 70

    pattern = Pattern.begin("first").where(high_level).next("second").where(explode)
    stream = env.from_collection(readings()).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(EventTime())
    )
    CEP.pattern(stream.key_by(lambda e: e[0]), pattern).select(pair).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    assert run.job_status is JobStatus.FAILED
    cause = run.failure_cause
    chain = []
    while cause is not None:
        chain.append(cause)
        cause = cause.__cause__ or getattr(cause, "cause", None)
    cep_error = next(c for c in chain if isinstance(c, FlinkRuntimeException))
    assert "CEP pattern state 'second'" in str(cep_error)
    assert "Failure happened in filter function." in str(cep_error)
    assert isinstance(cep_error.__cause__, ZeroDivisionError)
    assert cep_error.__cause__.__traceback__ is not None
