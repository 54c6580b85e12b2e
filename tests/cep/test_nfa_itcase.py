"""NFA behaviour from Flink's ``NFAITCase`` and ``IterativeConditionsITCase`` (flink-cep tests):
their inputs and expected matches, our NFA. Each test names the Flink test it comes from."""

from __future__ import annotations

from pyflowkit.cep import IterativeCondition, Pattern, SimpleCondition
from pyflowkit.common import Time
from tests.cep.harness import Event, NFATestHarness, SubEvent, as_sorted, at, feed_nfa, name_is


def _abcde() -> list[Event]:
    return [Event(40, "a", 1.0), Event(41, "b", 2.0), Event(42, "c", 3.0), Event(43, "d", 4.0),
            Event(44, "e", 5.0)]  # fmt: skip


def test_no_condition_followed_by() -> None:
    """NFAITCase#testNoConditionNFA."""
    a, b, c, d, e = _abcde()
    got = feed_nfa(Pattern.begin("start").followed_by("end"), at(a, b, c, d, e))
    assert as_sorted(got) == as_sorted([[a, b], [b, c], [c, d], [d, e]])


def test_any_with_no_condition() -> None:
    """NFAITCase#testAnyWithNoConditionNFA: followedByAny pairs every event with every later one."""
    ev = _abcde()
    got = feed_nfa(Pattern.begin("start").followed_by_any("end"), at(*ev))
    assert as_sorted(got) == as_sorted([[x, y] for i, x in enumerate(ev) for y in ev[i + 1 :]])


def test_simple_pattern_with_subtype() -> None:
    """NFAITCase#testSimplePatternNFA: start → SubEvent with volume > 5 → end."""
    start, middle, end = Event(41, "start"), SubEvent(42, "foo", 1.0, 10.0), Event(43, "end")
    records = [(start, 1), (Event(43, "foobar"), 2), (SubEvent(41, "barfoo", 1.0, 5.0), 3),
               (middle, 3), (Event(43, "start"), 4), (end, 5)]  # fmt: skip

    class Volume(SimpleCondition):
        def filter(self, value: SubEvent) -> bool:
            return value.volume > 5.0

    pattern = (
        Pattern.begin("start").where(name_is("start"))
        .followed_by("middle").subtype(SubEvent).where(Volume())
        .followed_by("end").where(name_is("end"))
    )  # fmt: skip
    assert feed_nfa(pattern, records) == [[start, middle, end]]


def test_strict_continuity_with_results() -> None:
    """NFAITCase#testStrictContinuityWithResults."""
    a, b = Event(41, "a", 2.0), Event(42, "b", 4.0)
    pattern = Pattern.begin("middle").where(name_is("a")).next("end").where(name_is("b"))
    assert feed_nfa(pattern, [(a, 3), (b, 5)]) == [[a, b]]


def test_strict_continuity_no_results() -> None:
    """NFAITCase#testStrictContinuityNoResults: an event in between breaks ``next``."""
    pattern = Pattern.begin("middle").where(name_is("a")).next("end").where(name_is("b"))
    records = [(Event(41, "a", 2.0), 3), (Event(42, "c", 3.0), 4), (Event(43, "b", 4.0), 5)]
    assert feed_nfa(pattern, records) == []


def _start_middle_end(within: int, any_: bool = False) -> Pattern:
    follow = Pattern.followed_by_any if any_ else Pattern.followed_by
    p = Pattern.begin("start").where(name_is("start"))
    p = follow(p, "middle").where(name_is("middle"))
    p = follow(p, "end").where(name_is("end"))
    return p.within(Time.milliseconds(within))


def _window_records() -> list[tuple[Event, int]]:
    return [(Event(1, "start"), 1), (Event(2, "start"), 2), (Event(3, "middle"), 3),
            (Event(4, "foobar"), 4), (Event(5, "end"), 11), (Event(6, "end"), 13)]  # fmt: skip


def test_simple_pattern_with_time_window() -> None:
    """NFAITCase#testSimplePatternWithTimeWindowNFA: the first start is out of the 10 ms window."""
    got = feed_nfa(_start_middle_end(10), _window_records())
    assert got == [[Event(2, "start"), Event(3, "middle"), Event(5, "end")]]


def test_simple_pattern_with_timeout_handling() -> None:
    """NFAITCase#testSimplePatternWithTimeoutHandling: one match and four timed-out partial
    matches, each reported at start timestamp + window (1.11's ``advanceTime``)."""
    h = NFATestHarness(_start_middle_end(10, any_=True), timeout_handling=True)
    assert len(h.feed(_window_records())) == 1
    s1, s2, m3 = Event(1, "start"), Event(2, "start"), Event(3, "middle")
    expected = [({"start": [s1], "middle": [m3]}, 11), ({"start": [s2], "middle": [m3]}, 12),
                ({"start": [s1]}, 11), ({"start": [s2]}, 12)]  # fmt: skip
    h.consume(Event(7, "late"), 100)  # flushes the second start's partial matches
    assert sorted(map(repr, h.timed_out)) == sorted(map(repr, expected))


def test_branching_pattern() -> None:
    """NFAITCase#testBranchingPattern: followedByAny branches on every candidate."""
    start, end = Event(40, "start"), Event(46, "end")
    m1, m2, m3 = (SubEvent(41 + i, f"foo{i + 1}", 1.0, 10.0) for i in range(3))
    n1, n2 = SubEvent(44, "next-one", 1.0, 2.0), SubEvent(45, "next-one", 1.0, 2.0)
    records = [(start, 1), (m1, 3), (m2, 4), (m3, 5), (n1, 6), (n2, 7), (end, 8)]
    pattern = (
        Pattern.begin("start").where(name_is("start"))
        .followed_by_any("middle-first").subtype(SubEvent).where(lambda v: v.volume > 5.0)
        .followed_by_any("middle-second").subtype(SubEvent).where(name_is("next-one"))
        .followed_by_any("end").where(name_is("end"))
    )  # fmt: skip
    expected = [[start, m, n, end] for n in (n1, n2) for m in (m1, m2, m3)]
    assert as_sorted(feed_nfa(pattern, records)) == as_sorted(expected)


def _cab() -> tuple[Event, Event, Event, Event]:
    return Event(40, "c", 1.0), Event(41, "a", 2.0), Event(42, "a", 3.0), Event(43, "b", 4.0)


def _c_a_b(quantify: str, any_end: bool = False) -> Pattern:
    p = Pattern.begin("start").where(name_is("c")).followed_by("middle").where(name_is("a"))
    for q in quantify.split():
        p = getattr(p, q)()
    end = p.followed_by_any if any_end else p.followed_by
    return end("end1").where(name_is("b"))


def test_one_or_more_relaxed() -> None:
    """NFAITCase#testStartWithOneOrMoreStrict-like relaxed loop: c a+ b over c a a b."""
    c, a1, a2, b = _cab()
    got = feed_nfa(_c_a_b("one_or_more"), at(c, a1, a2, b))
    assert as_sorted(got) == as_sorted([[c, a1, a2, b], [c, a1, b]])


def test_one_or_more_allow_combinations() -> None:
    """NFAITCase#testOneOrMoreAllowCombinations-style: inside the loop any a may be skipped
    (without combinations only non-matching events may be)."""
    c, a1, a2, b = _cab()
    a3 = Event(44, "a", 4.0)
    got = feed_nfa(_c_a_b("one_or_more allow_combinations"), at(c, a1, a2, a3, b))
    expected = [[c, a1, b], [c, a1, a2, b], [c, a1, a3, b], [c, a1, a2, a3, b]]
    assert as_sorted(got) == as_sorted(expected)
    plain = feed_nfa(_c_a_b("one_or_more"), at(c, a1, a2, a3, b))
    assert as_sorted(plain) == as_sorted([[c, a1, b], [c, a1, a2, b], [c, a1, a2, a3, b]])


def test_zero_or_more() -> None:
    """NFAITCase#testZeroOrMore: an optional loop also matches with no middle event."""
    c, a1, a2, b = _cab()
    got = feed_nfa(_c_a_b("one_or_more optional"), at(c, a1, a2, b))
    assert as_sorted(got) == as_sorted([[c, a1, a2, b], [c, a1, b], [c, b]])


def test_one_or_more_consecutive() -> None:
    """NFAITCase#testStrictOneOrMore (consecutive): a non-matching event ends the loop."""
    c, a1, d, a2, b = Event(40, "c"), Event(41, "a"), Event(42, "d"), Event(43, "a"), Event(44, "b")
    got = feed_nfa(_c_a_b("one_or_more consecutive"), at(c, a1, d, a2, b))
    assert as_sorted(got) == as_sorted([[c, a1, b]])


def test_complex_branching_after_zero_or_more() -> None:
    """NFAITCase#testComplexBranchingAfterZeroOrMore: every subset of the a's with either d."""
    c = Event(40, "c", 1.0)
    a1, a2, a3 = Event(41, "a", 2.0), Event(42, "a", 3.0), Event(43, "a", 4.0)
    b, d1, d2, e = Event(44, "b", 5.0), Event(45, "d", 6.0), Event(46, "d", 7.0), Event(47, "e")
    records = [(c, 1), (a1, 3), (a2, 4), (a3, 5), (b, 6), (d1, 7), (d2, 8), (e, 9)]
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by_any("middle").where(name_is("a")).one_or_more().allow_combinations().optional()
        .followed_by_any("end1").where(name_is("b"))
        .followed_by_any("end2").where(name_is("d"))
        .followed_by_any("end3").where(name_is("e"))
    )  # fmt: skip
    subsets = [[], [a1], [a2], [a3], [a1, a2], [a1, a3], [a2, a3], [a1, a2, a3]]
    expected = [[c, *s, b, d, e] for s in subsets for d in (d1, d2)]
    assert as_sorted(feed_nfa(pattern, records)) == as_sorted(expected)


def test_times_strict() -> None:
    """NFAITCase#testTimesStrict: exactly two consecutive a's."""
    c, a1, a2, a3, b = (Event(40, "c"), Event(41, "a"), Event(42, "a"), Event(43, "a"),
                        Event(44, "b"))  # fmt: skip
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by("middle").where(name_is("a")).times(2).consecutive()
        .followed_by("end1").where(name_is("b"))
    )  # fmt: skip
    assert feed_nfa(pattern, at(c, a1, a2, a3, b)) == [[c, a1, a2, b]]


def test_times_non_strict() -> None:
    """NFAITCase#testTimesNonStrict: two a's, other events in between allowed."""
    c, a1, a2, d, a3, b = (Event(40, "c"), Event(41, "a"), Event(42, "a"), Event(43, "d"),
                           Event(44, "a"), Event(45, "b"))  # fmt: skip
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by_any("middle").where(name_is("a")).times(2).allow_combinations()
        .followed_by("end1").where(name_is("b"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(c, a1, a2, d, a3, b))
    assert as_sorted(got) == as_sorted([[c, a1, a2, b], [c, a1, a3, b], [c, a2, a3, b]])


def test_optional_in_the_middle() -> None:
    """NFAITCase#testBeginWithOptional... / testOptional: c (a)? b matches with and without a."""
    c, a, b = Event(40, "c"), Event(41, "a"), Event(43, "b")
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by("middle").where(name_is("a")).optional()
        .followed_by("end1").where(name_is("b"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(c, a, b))
    assert as_sorted(got) == as_sorted([[c, a, b], [c, b]])


def test_optional_at_the_end_emits_immediately() -> None:
    """NFAITCase#testEndWithOptional: the match without the optional part is emitted at once."""
    c, a = Event(40, "c"), Event(41, "a")
    pattern = (
        Pattern.begin("start").where(name_is("c")).followed_by("end").where(name_is("a")).optional()
    )
    h = NFATestHarness(pattern)
    assert [m for m in h.consume(c, 1)] == [{"start": [c]}]
    assert h.consume(a, 2) == [{"start": [c], "end": [a]}]


def test_start_with_one_or_more() -> None:
    """NFAITCase#testStartWithOneOrMore: a+ b; each a starts its own run."""
    a1, a2, b = Event(41, "a"), Event(42, "a"), Event(43, "b")
    pattern = (
        Pattern.begin("start")
        .where(name_is("a"))
        .one_or_more()
        .followed_by("end")
        .where(name_is("b"))
    )
    got = feed_nfa(pattern, at(a1, a2, b))
    assert as_sorted(got) == as_sorted([[a1, a2, b], [a1, b], [a2, b]])


def test_iterative_condition_sums_previous_events() -> None:
    """IterativeConditionsITCase#testIterativeWithLoopingStartingEager-style: a condition over the
    partial match (``ctx.get_events_for_pattern``) accepts a middle event only while the running
    price sum stays below 5."""
    s = Event(40, "start", 1.0)
    m1, m2, m3 = Event(41, "middle", 2.0), Event(42, "middle", 2.0), Event(43, "middle", 2.0)
    e = Event(44, "end", 1.0)

    class SumBelowFive(IterativeCondition):
        def filter(self, value: Event, ctx) -> bool:
            if value.name != "middle":
                return False
            total = sum(x.price for x in ctx.get_events_for_pattern("middle"))
            return total + value.price < 5.0

    pattern = (
        Pattern.begin("start").where(name_is("start"))
        .followed_by("middle").where(SumBelowFive()).one_or_more()
        .followed_by("end").where(name_is("end"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(s, m1, m2, m3, e))
    assert as_sorted(got) == as_sorted([[s, m1, m2, e], [s, m1, e]])


def test_iterative_condition_sees_earlier_pattern() -> None:
    """IterativeConditionsITCase#testIterativeWithPrevPatternDependency: the end event must be
    pricier than the start event of the same partial match."""
    s1, s2 = Event(40, "start", 1.0), Event(41, "start", 3.0)
    e = Event(42, "end", 2.0)

    class PricierThanStart(IterativeCondition):
        def filter(self, value: Event, ctx) -> bool:
            starts = ctx.get_events_for_pattern("start")
            return value.name == "end" and value.price > starts[0].price

    pattern = (
        Pattern.begin("start").where(name_is("start")).followed_by("end").where(PricierThanStart())
    )
    assert feed_nfa(pattern, at(s1, s2, e)) == [[s1, e]]


def test_or_condition() -> None:
    """NFAITCase#testSimpleOrFilterPatternNFA-style: ``or_`` widens a part's condition."""
    a, b, c = Event(40, "a"), Event(41, "b"), Event(42, "c")
    pattern = (
        Pattern.begin("start").where(name_is("a")).or_(name_is("b")).next("end").where(name_is("c"))
    )
    h = NFATestHarness(pattern)
    assert [flat for m in h.feed_events([a, b, c]) for flat in [m]] == [{"start": [b], "end": [c]}]


def test_shared_buffer_is_empty_after_all_matches() -> None:
    """NFAITCase#testNFAResultOrdering / buffer hygiene: once matches are emitted and no partial
    match is left, the shared buffer holds no events (reference counting)."""
    a, b = Event(1, "a"), Event(2, "b")
    h = NFATestHarness(Pattern.begin("s").where(name_is("a")).next("e").where(name_is("b")))
    h.feed_events([a, b])
    assert h.buffer.events == {} and h.buffer.entries == {}
