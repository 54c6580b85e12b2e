"""Malformed patterns and bad conditions fail with Flink's exceptions and messages
(``PatternTest``, ``NFACompilerTest``, ``Quantifier``, ``Pattern`` of flink-cep 1.11)."""

from __future__ import annotations

import pytest

from pyflowkit.cep import AfterMatchSkipStrategy, Pattern
from pyflowkit.errors import (
    IllegalArgumentException,
    MalformedPatternException,
    UnsupportedOperationException,
)
from pyflowkit.operators.cep.nfa_compiler import compile_states

M, IA, U = MalformedPatternException, IllegalArgumentException, UnsupportedOperationException
ALL = lambda e: True  # noqa: E731


def a() -> Pattern:
    return Pattern.begin("a").where(ALL)


def test_duplicate_names() -> None:
    """NFACompilerTest#testNFACompilerUniquePatternName."""
    p = a().followed_by("b").followed_by("a")
    with pytest.raises(
        MalformedPatternException, match=r"^Duplicate pattern name: a\. Names must be unique\.$"
    ):
        compile_states(p)


def test_reserved_end_state_name() -> None:
    """NFACompilerTest#testNFACompilerPatternEndsWithNotFollowedBy... reserved "$endState$"."""
    with pytest.raises(MalformedPatternException, match=r"Duplicate pattern name: \$endState\$"):
        compile_states(a().next("$endState$"))


def test_not_followed_by_at_the_end() -> None:
    """NFACompilerTest#testNFACompilerPatternEndsWithNotFollowedBy (1.11: no `within` exception)."""
    with pytest.raises(
        MalformedPatternException,
        match="NotFollowedBy is not supported as a last part of a Pattern!",
    ):
        compile_states(a().not_followed_by("b").where(ALL))


def test_skip_strategy_names_unknown_pattern() -> None:
    """NFACompilerTest#testCheckingEmptyMatches... checkPatternSkipStrategy."""
    p = Pattern.begin("a", AfterMatchSkipStrategy.skip_to_first("zzz")).next("b")
    with pytest.raises(
        MalformedPatternException,
        match="The pattern name specified in AfterMatchSkipStrategy can not be found in the given Pattern",
    ):
        compile_states(p)


_OPT_NOT = "Specifying a pattern with an optional path to NOT condition is not supported yet."


@pytest.mark.parametrize(
    ("build", "exc", "message"),
    [
        (lambda: a().not_next("n").optional(), M, "NOT pattern cannot be optional"),
        (lambda: a().not_followed_by("n").one_or_more(), M, "Option not applicable to NOT pattern"),
        (lambda: a().not_next("n").times(2), M, "Option not applicable to NOT pattern"),
        (lambda: a().optional().optional(), M, "Optional already applied!"),
        (lambda: a().times(0), IA, "You should give a positive number greater than 0."),
        (
            lambda: a().times(3, 2),
            IA,
            "The to should be a number greater than or equal to from: 3.",
        ),
        (lambda: a().times_or_more(0), IA, "The from should be a positive number greater than 0."),
        (
            lambda: a().one_or_more().times(2),
            M,
            "Already applied quantifier to this Pattern. Current quantifier is: Quantifier{"
            "properties=[LOOPING], consumingStrategy=STRICT, innerConsumingStrategy=SKIP_TILL_NEXT}",
        ),
        (
            lambda: a().allow_combinations(),
            M,
            "Combinations not applicable to Quantifier{properties=[SINGLE]",
        ),
        (
            lambda: a().consecutive(),
            M,
            "Consecutive not applicable to Quantifier{properties=[SINGLE]",
        ),
        (
            lambda: a().one_or_more().consecutive().allow_combinations(),
            M,
            "You can apply either combinations or consecutive, not both!",
        ),
        (
            lambda: a().one_or_more().allow_combinations().allow_combinations(),
            M,
            "Combinations already applied!",
        ),
        (lambda: a().greedy(), M, "Option not applicable to singleton quantifier"),
        (
            lambda: a().one_or_more().allow_combinations().greedy(),
            M,
            "Option not applicable to FollowedByAny pattern",
        ),
        (
            lambda: a().one_or_more().greedy().next("b").optional(),
            M,
            "Optional pattern cannot be preceded by greedy pattern",
        ),
        (lambda: a().until(ALL), M, "The until condition is only applicable to looping states."),
        (
            lambda: a().one_or_more().until(ALL).until(ALL),
            M,
            "Only one until condition can be applied.",
        ),
        (lambda: a().optional().not_next("n"), U, _OPT_NOT),
        (lambda: a().optional().not_followed_by("n"), U, _OPT_NOT),
        (lambda: Pattern.begin(a()).where(ALL), U, "GroupPattern does not support where clause."),
        (lambda: Pattern.begin(a()).or_(ALL), U, "GroupPattern does not support or clause."),
        (lambda: Pattern.begin(a()).times(2).greedy(), M, "Option not applicable to group pattern"),
    ],
)
def test_malformed_pattern_messages(build, exc, message) -> None:  # noqa: ANN001
    """Pattern/Quantifier checks with Flink's exception types and messages."""
    with pytest.raises(exc) as info:
        build()
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("bad", [None, 5, "name == 'a'", object()])
def test_non_callable_condition(bad) -> None:  # noqa: ANN001
    """``where`` refuses what is not a condition, naming the pattern part."""
    with pytest.raises(
        IllegalArgumentException, match=r"Pattern 'a'\.where\(\)|condition cannot be null"
    ):
        Pattern.begin("a").where(bad)


def test_condition_class_instead_of_instance() -> None:
    from pyflowkit.cep import SimpleCondition

    class IsA(SimpleCondition):
        def filter(self, value) -> bool:  # noqa: ANN001
            return True

    with pytest.raises(IllegalArgumentException, match=r"instantiate it: IsA\(\)"):
        Pattern.begin("a").where(IsA)
