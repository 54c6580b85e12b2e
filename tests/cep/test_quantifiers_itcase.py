"""Skip strategies, greedy, NOT parts, times ranges, until and groups: behaviour from Flink's
``AfterMatchSkipITCase``, ``GreedyITCase``, ``NotPatternITCase``, ``TimesOrMoreITCase``,
``TimesRangeITCase``, ``UntilConditionITCase`` and ``GroupITCase`` (and the worked examples of
Flink's CEP documentation, "After Match Skip Strategy")."""

from __future__ import annotations

import pytest

from pyflowkit.cep import AfterMatchSkipStrategy, Pattern
from pyflowkit.errors import FlinkRuntimeException
from tests.cep.harness import Event, as_sorted, at, feed_nfa, name_is


def ev(name: str, i: int, price: float = 1.0) -> Event:
    return Event(i, name, price)


def names(*conds: str):
    return lambda e: e.name in conds


# ---- AfterMatchSkipITCase / docs ------------------------------------------------------------
B1, B2, B3, C = ev("b", 1), ev("b", 2), ev("b", 3), ev("c", 4)


def _b_plus_c(strategy: AfterMatchSkipStrategy) -> Pattern:
    # consecutive(): no partial match lingers in the loop after c, so pending matches are released
    return (
        Pattern.begin("b", strategy).where(name_is("b")).one_or_more().consecutive()
        .next("c").where(name_is("c"))
    )  # fmt: skip


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (AfterMatchSkipStrategy.no_skip(), [[B1, B2, B3, C], [B2, B3, C], [B3, C]]),
        (AfterMatchSkipStrategy.skip_to_next(), [[B1, B2, B3, C], [B2, B3, C], [B3, C]]),
        (AfterMatchSkipStrategy.skip_past_last_event(), [[B1, B2, B3, C]]),
        (AfterMatchSkipStrategy.skip_to_first("b"), [[B1, B2, B3, C], [B2, B3, C], [B3, C]]),
        (AfterMatchSkipStrategy.skip_to_last("b"), [[B1, B2, B3, C], [B3, C]]),
    ],
    ids=["NO_SKIP", "SKIP_TO_NEXT", "SKIP_PAST_LAST_EVENT", "SKIP_TO_FIRST", "SKIP_TO_LAST"],
)
def test_skip_strategies_b_plus_c(strategy: AfterMatchSkipStrategy, expected: list) -> None:
    """Flink docs "b+ c" on b1 b2 b3 c (AfterMatchSkipITCase#testNoSkip/testSkipToNext/
    testSkipPastLast/testSkipToFirst/testSkipToLast cover the same rules)."""
    assert as_sorted(feed_nfa(_b_plus_c(strategy), at(B1, B2, B3, C))) == as_sorted(expected)


def _abc_greedy(strategy: AfterMatchSkipStrategy) -> Pattern:
    return (
        Pattern.begin("a", strategy).where(names("a", "b", "c"))
        .followed_by("b").where(names("b", "c"))
        .followed_by("c").where(name_is("c")).one_or_more().greedy()
        .followed_by("d").where(name_is("d"))
    )  # fmt: skip


def test_skip_to_first_with_greedy_loop() -> None:
    """Flink docs "(a|b|c) (b|c) c+.greedy d" on a b c1 c2 c3 d (AfterMatchSkipITCase#testSkipToFirst
    with greedy): NO_SKIP gives three matches, SKIP_TO_FIRST[c] drops the one starting at b."""
    a, b, c1, c2, c3, d = ev("a", 1), ev("b", 2), ev("c", 3), ev("c", 4), ev("c", 5), ev("d", 6)
    events = at(a, b, c1, c2, c3, d)
    no_skip = feed_nfa(_abc_greedy(AfterMatchSkipStrategy.no_skip()), events)
    assert as_sorted(no_skip) == as_sorted(
        [[a, b, c1, c2, c3, d], [b, c1, c2, c3, d], [c1, c2, c3, d]]
    )
    first = feed_nfa(_abc_greedy(AfterMatchSkipStrategy.skip_to_first("c")), events)
    assert first == [[a, b, c1, c2, c3, d], [c1, c2, c3, d]]


def test_skip_to_next_a_b_plus() -> None:
    """Flink docs "a b+" on a b1 b2 b3: NO_SKIP reports every prefix, SKIP_TO_NEXT only the first
    (AfterMatchSkipITCase#testSkipToNext)."""
    a = ev("a", 0)

    def pattern(s: AfterMatchSkipStrategy) -> Pattern:
        return (
            Pattern.begin("a", s)
            .where(name_is("a"))
            .followed_by("b")
            .where(name_is("b"))
            .one_or_more()
        )

    events = at(a, B1, B2, B3)
    assert feed_nfa(pattern(AfterMatchSkipStrategy.no_skip()), events) == [
        [a, B1], [a, B1, B2], [a, B1, B2, B3]
    ]  # fmt: skip
    assert feed_nfa(pattern(AfterMatchSkipStrategy.skip_to_next()), events) == [[a, B1]]


def test_times_no_skip_and_skip_past_last() -> None:
    """AfterMatchSkipITCase#testNoSkip / #testSkipPastLast: a.times(3) over four a's."""
    a = [ev("a", i) for i in range(4)]

    def pattern(s: AfterMatchSkipStrategy) -> Pattern:
        return Pattern.begin("start", s).where(name_is("a")).times(3)

    assert feed_nfa(pattern(AfterMatchSkipStrategy.no_skip()), at(*a)) == [a[:3], a[1:]]
    assert feed_nfa(pattern(AfterMatchSkipStrategy.skip_past_last_event()), at(*a)) == [a[:3]]


def test_skip_to_first_throw_on_miss() -> None:
    """AfterMatchSkipITCase#testSkipToFirstElementOfMatch: skipping to the match's own first event
    fails when throwExceptionOnMiss() is set ("Could not skip to first element of a match.")."""
    a1, b1 = ev("a", 1), ev("b", 2)
    strategy = AfterMatchSkipStrategy.skip_to_first("a").throw_exception_on_miss()
    pattern = Pattern.begin("a", strategy).where(name_is("a")).next("b").where(name_is("b"))
    with pytest.raises(FlinkRuntimeException, match="Could not skip to first element of a match."):
        feed_nfa(pattern, at(a1, b1))


def test_skip_to_last_optional_missing_falls_back() -> None:
    """AfterMatchSkipITCase#testSkipToLastWithOneOrMore-style: a missing optional pattern means no
    pruning when throwExceptionOnMiss() is not set."""
    a1, c1 = ev("a", 1), ev("c", 2)
    pattern = (
        Pattern.begin("a", AfterMatchSkipStrategy.skip_to_last("b")).where(name_is("a"))
        .followed_by("b").where(name_is("b")).optional()
        .followed_by("c").where(name_is("c"))
    )  # fmt: skip
    assert feed_nfa(pattern, at(a1, c1)) == [[a1, c1]]


# ---- GreedyITCase ---------------------------------------------------------------------------
def test_greedy_zero_or_more() -> None:
    """GreedyITCase#testGreedyZeroOrMore: the greedy loop takes every a."""
    c, a1, a2, a3, d = ev("c", 0), ev("a", 1), ev("a", 2), ev("a", 3), ev("d", 4)
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by("middle").where(name_is("a")).one_or_more().optional().greedy()
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    assert feed_nfa(pattern, at(c, a1, a2, a3, d)) == [[c, a1, a2, a3, d]]


def test_greedy_times_range() -> None:
    """GreedyITCase#testGreedyTimesRange: times(2, 4).greedy() takes as many a's as it can."""
    c, a1, a2, a3, d = ev("c", 0), ev("a", 1), ev("a", 2), ev("a", 3), ev("d", 4)
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by("middle").where(name_is("a")).times(2, 4).greedy()
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    assert feed_nfa(pattern, at(c, a1, a2, a3, d)) == [[c, a1, a2, a3, d]]


def test_not_greedy_reports_each_length() -> None:
    """GreedyITCase (contrast): without greedy the same loop reports every length."""
    c, a1, a2, d = ev("c", 0), ev("a", 1), ev("a", 2), ev("d", 3)
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by("middle").where(name_is("a")).one_or_more().optional()
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(c, a1, a2, d))
    assert as_sorted(got) == as_sorted([[c, a1, a2, d], [c, a1, d], [c, d]])


# ---- NotPatternITCase -----------------------------------------------------------------------
def _not_next() -> Pattern:
    return (
        Pattern.begin("start").where(name_is("a"))
        .not_next("notPattern").where(name_is("c"))
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip


def test_not_next() -> None:
    """NotPatternITCase#testNotNext: an a directly followed by c never matches."""
    a1, c1, d1 = ev("a", 1), ev("c", 2), ev("d", 3)
    assert feed_nfa(_not_next(), at(a1, c1, d1)) == []
    b1 = ev("b", 2)
    assert feed_nfa(_not_next(), at(a1, b1, d1)) == [[a1, d1]]


def test_not_next_only_checks_the_next_event() -> None:
    """NotPatternITCase#testNotNextNoMatches-style: a c later than the next event is allowed."""
    a1, b1, c1, d1 = ev("a", 1), ev("b", 2), ev("c", 3), ev("d", 4)
    assert feed_nfa(_not_next(), at(a1, b1, c1, d1)) == [[a1, d1]]


def _not_followed_by() -> Pattern:
    return (
        Pattern.begin("start").where(name_is("a"))
        .not_followed_by("notPattern").where(name_is("c"))
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip


def test_not_followed_by() -> None:
    """NotPatternITCase#testNotFollowedBy: any c between a and d kills the partial match."""
    a1, b1, c1, d1 = ev("a", 1), ev("b", 2), ev("c", 3), ev("d", 4)
    assert feed_nfa(_not_followed_by(), at(a1, b1, c1, d1)) == []
    assert feed_nfa(_not_followed_by(), at(a1, b1, d1)) == [[a1, d1]]


def test_not_followed_by_before_optional() -> None:
    """NotPatternITCase#testNotFollowedByBeforeOptional: a, not c, optional b, d."""
    a1, b1, d1 = ev("a", 1), ev("b", 2), ev("d", 3)
    pattern = (
        Pattern.begin("start").where(name_is("a"))
        .not_followed_by("notPattern").where(name_is("c"))
        .followed_by("optional").where(name_is("b")).optional()
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(a1, b1, d1))
    assert as_sorted(got) == as_sorted([[a1, b1, d1], [a1, d1]])
    c1 = ev("c", 9)
    assert feed_nfa(pattern, at(a1, c1, d1)) == []


# ---- TimesOrMoreITCase / TimesRangeITCase ---------------------------------------------------
C0, A1, A2, A3, BE = ev("c", 0), ev("a", 1), ev("a", 2), ev("a", 3), ev("b", 4)


def _c_middle_b(quantify) -> Pattern:  # noqa: ANN001 - a Pattern method
    p = Pattern.begin("start").where(name_is("c")).followed_by("middle").where(name_is("a"))
    return quantify(p).followed_by("end").where(name_is("b"))


def test_times_or_more() -> None:
    """TimesOrMoreITCase#testTimesOrMore: at least two a's."""
    got = feed_nfa(_c_middle_b(lambda p: p.times_or_more(2)), at(C0, A1, A2, A3, BE))
    assert as_sorted(got) == as_sorted([[C0, A1, A2, BE], [C0, A1, A2, A3, BE]])


def test_times_or_more_consecutive_broken() -> None:
    """TimesOrMoreITCase#testTimesOrMoreNonStrict... consecutive: a gap breaks the run."""
    gap = ev("x", 9)
    got = feed_nfa(
        _c_middle_b(lambda p: p.times_or_more(2).consecutive()), at(C0, A1, gap, A2, A3, BE)
    )
    assert got == []


def test_times_range() -> None:
    """TimesRangeITCase#testTimesRange: one to three a's."""
    got = feed_nfa(_c_middle_b(lambda p: p.times(1, 3)), at(C0, A1, A2, A3, BE))
    expected = [[C0, A1, BE], [C0, A1, A2, BE], [C0, A1, A2, A3, BE]]
    assert as_sorted(got) == as_sorted(expected)


def test_times_range_from_zero_is_optional() -> None:
    """TimesRangeITCase#testTimesRangeFromZero: times(0, 2) is an optional times(1, 2)."""
    got = feed_nfa(_c_middle_b(lambda p: p.times(0, 2)), at(C0, A1, A2, BE))
    assert as_sorted(got) == as_sorted([[C0, BE], [C0, A1, BE], [C0, A1, A2, BE]])


# ---- UntilConditionITCase -------------------------------------------------------------------
def test_until_stops_the_loop() -> None:
    """UntilConditionITCase#testUntilConditionFollowedByOneOrMore-style: after an event that
    meets the until condition the loop takes no more a's."""
    c, a1, a2 = ev("c", 0), ev("a", 1, 1.0), ev("a", 2, 2.0)
    stop, a3, b = ev("a", 3, 5.0), ev("a", 4, 1.0), ev("b", 5)
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by("middle").where(name_is("a")).one_or_more().until(lambda e: e.price > 3.0)
        .followed_by("end").where(name_is("b"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(c, a1, a2, stop, a3, b))
    assert as_sorted(got) == as_sorted([[c, a1, a2, b], [c, a1, b]])


# ---- GroupITCase ----------------------------------------------------------------------------
def test_group_times() -> None:
    """GroupITCase#testGroupFollowedByTimes: (a b){2} between c and d."""
    c, a1, b1, a2, b2, d = ev("c", 0), ev("a", 1), ev("b", 2), ev("a", 3), ev("b", 4), ev("d", 5)
    group = Pattern.begin("middle1").where(name_is("a")).followed_by("middle2").where(name_is("b"))
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by(group).times(2)
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    assert feed_nfa(pattern, at(c, a1, b1, a2, b2, d)) == [[c, a1, a2, b1, b2, d]]


def test_group_optional() -> None:
    """GroupITCase#testGroupFollowedByOptional: the group may be absent."""
    c, a1, b1, d = ev("c", 0), ev("a", 1), ev("b", 2), ev("d", 3)
    group = Pattern.begin("middle1").where(name_is("a")).next("middle2").where(name_is("b"))
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by(group).optional()
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(c, a1, b1, d))
    assert as_sorted(got) == as_sorted([[c, a1, b1, d], [c, d]])


def test_group_one_or_more() -> None:
    """GroupITCase#testGroupFollowedByOneOrMore: (a b)+ between c and d."""
    c, a1, b1, a2, b2, d = ev("c", 0), ev("a", 1), ev("b", 2), ev("a", 3), ev("b", 4), ev("d", 5)
    group = Pattern.begin("middle1").where(name_is("a")).next("middle2").where(name_is("b"))
    pattern = (
        Pattern.begin("start").where(name_is("c"))
        .followed_by(group).one_or_more()
        .followed_by("end").where(name_is("d"))
    )  # fmt: skip
    got = feed_nfa(pattern, at(c, a1, b1, a2, b2, d))
    assert as_sorted(got) == as_sorted([[c, a1, a2, b1, b2, d], [c, a1, b1, d]])


def test_begin_with_group() -> None:
    """GroupITCase#testGroupBeginWith...: Pattern.begin(group)."""
    a1, b1, c1 = ev("a", 1), ev("b", 2), ev("c", 3)
    group = Pattern.begin("g1").where(name_is("a")).next("g2").where(name_is("b"))
    pattern = Pattern.begin(group).next("end").where(name_is("c"))
    assert feed_nfa(pattern, at(a1, b1, c1)) == [[a1, b1, c1]]
