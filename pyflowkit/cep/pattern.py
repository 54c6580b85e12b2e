"""Pattern definitions (Flink's ``org.apache.flink.cep.pattern.Pattern`` and ``GroupPattern``).

A pattern is a chain of named parts, each knowing its ``previous``: ``Pattern.begin("a").where(...)
.next("b")...``. Quantifiers (``times``, ``one_or_more``, ``optional``, ...) change the part they
are called on; contiguity is chosen by how a part is appended (``next`` strict, ``followed_by``
relaxed, ``followed_by_any`` non-deterministic relaxed, ``not_next``/``not_followed_by`` negative).
"""

from __future__ import annotations

from typing import Any

from pyflowkit.errors import (
    IllegalArgumentException,
    MalformedPatternException,
    UnsupportedOperationException,
)
from pyflowkit.operators.cep.after_match_skip_strategy import AfterMatchSkipStrategy
from pyflowkit.operators.cep.conditions import RichAndCondition, RichOrCondition, SubtypeCondition
from pyflowkit.operators.cep.conditions import as_condition as _as_condition
from pyflowkit.operators.cep.quantifier import (
    ConsumingStrategy,
    Quantifier,
    QuantifierProperty,
    Times,
)

_OPTIONAL_NOT = (
    "Specifying a pattern with an optional path to NOT condition is not supported yet. You can "
    "simulate such pattern with two independent patterns, one with and the other without the "
    "optional part."
)


def _window_millis(window_time: Any) -> int:
    to_ms = getattr(window_time, "to_milliseconds", None)
    if callable(to_ms):
        return int(to_ms())
    if isinstance(window_time, int) and not isinstance(window_time, bool):
        return window_time
    raise IllegalArgumentException(
        f"within() needs a Time (e.g. Time.minutes(15)) or milliseconds, got {window_time!r}."
    )


class Pattern:
    """Flink's ``Pattern``: one named part of a pattern sequence and everything before it."""

    def __init__(
        self,
        name: str | None,
        previous: Pattern | None,
        consuming_strategy: ConsumingStrategy,
        after_match_skip_strategy: AfterMatchSkipStrategy,
    ) -> None:
        self.name = name
        self.previous = previous
        self.condition: Any = None
        self.window_time: int | None = None
        self.quantifier = Quantifier.one(consuming_strategy)
        self.until_condition: Any = None
        self._times: Times | None = None
        self.after_match_skip_strategy = after_match_skip_strategy

    # ---- starting ----
    @staticmethod
    def begin(
        name: str | Pattern, after_match_skip_strategy: AfterMatchSkipStrategy | None = None
    ) -> Pattern:
        """``Pattern.begin(name)`` or, given a pattern, ``Pattern.begin(group)`` (a GroupPattern)."""
        strategy = after_match_skip_strategy or AfterMatchSkipStrategy.no_skip()
        if not isinstance(strategy, AfterMatchSkipStrategy):
            raise IllegalArgumentException(
                f"Pattern.begin() needs an AfterMatchSkipStrategy, got {strategy!r}."
            )
        if isinstance(name, Pattern):
            return GroupPattern(None, name, ConsumingStrategy.STRICT, strategy)
        return Pattern(_check_name(name, "begin"), None, ConsumingStrategy.STRICT, strategy)

    # ---- conditions ----
    def _where_name(self, what: str) -> str:
        return f"Pattern '{self.name}'.{what}()"

    def where(self, condition: Any) -> Pattern:
        """``where``: AND a condition (a callable is a ``SimpleCondition``)."""
        c = _as_condition(condition, self._where_name("where"))
        self.condition = c if self.condition is None else RichAndCondition(self.condition, c)
        return self

    def or_(self, condition: Any) -> Pattern:
        """``or``: OR a condition with the ones set so far."""
        c = _as_condition(condition, self._where_name("or_"))
        self.condition = c if self.condition is None else RichOrCondition(self.condition, c)
        return self

    def subtype(self, subtype_class: type) -> Pattern:
        """``subtype``: the event must be an instance of ``subtype_class``."""
        if not isinstance(subtype_class, type):
            raise IllegalArgumentException(
                f"{self._where_name('subtype')} needs a class, got {subtype_class!r}."
            )
        c = SubtypeCondition(subtype_class)
        self.condition = c if self.condition is None else RichAndCondition(self.condition, c)
        return self

    def until(self, until_condition: Any) -> Pattern:
        """``until``: stop a looping part when the condition holds."""
        c = _as_condition(until_condition, self._where_name("until"))
        if self.until_condition is not None:
            raise MalformedPatternException("Only one until condition can be applied.")
        if not self.quantifier.has_property(QuantifierProperty.LOOPING):
            raise MalformedPatternException(
                "The until condition is only applicable to looping states."
            )
        self.until_condition = c
        return self

    def within(self, window_time: Any) -> Pattern:
        """``within``: the whole match must fit in ``window_time`` (first to last event)."""
        if window_time is not None:
            self.window_time = _window_millis(window_time)
        return self

    # ---- appending ----
    def _append(self, name: Any, strategy: ConsumingStrategy, what: str) -> Pattern:
        if isinstance(name, Pattern):
            if strategy in (ConsumingStrategy.NOT_NEXT, ConsumingStrategy.NOT_FOLLOW):
                raise IllegalArgumentException(f"{what}() takes a pattern name, not a group.")
            return GroupPattern(self, name, strategy, self.after_match_skip_strategy)
        return Pattern(_check_name(name, what), self, strategy, self.after_match_skip_strategy)

    def next(self, name: str | Pattern) -> Pattern:
        """``next``: strict contiguity (no event in between)."""
        return self._append(name, ConsumingStrategy.STRICT, "next")

    def followed_by(self, name: str | Pattern) -> Pattern:
        """``followedBy``: relaxed contiguity (non-matching events in between are skipped)."""
        return self._append(name, ConsumingStrategy.SKIP_TILL_NEXT, "followed_by")

    def followed_by_any(self, name: str | Pattern) -> Pattern:
        """``followedByAny``: non-deterministic relaxed contiguity (any later event)."""
        return self._append(name, ConsumingStrategy.SKIP_TILL_ANY, "followed_by_any")

    def not_next(self, name: str) -> Pattern:
        """``notNext``: the next event must not match this part."""
        if self.quantifier.has_property(QuantifierProperty.OPTIONAL):
            raise UnsupportedOperationException(_OPTIONAL_NOT)
        return self._append(name, ConsumingStrategy.NOT_NEXT, "not_next")

    def not_followed_by(self, name: str) -> Pattern:
        """``notFollowedBy``: no event matching this part until the next part matches."""
        if self.quantifier.has_property(QuantifierProperty.OPTIONAL):
            raise UnsupportedOperationException(_OPTIONAL_NOT)
        return self._append(name, ConsumingStrategy.NOT_FOLLOW, "not_followed_by")

    # ---- quantifiers ----
    def optional(self) -> Pattern:
        """``optional``: this part may be absent."""
        self._check_if_previous_pattern_greedy()
        self.quantifier.optional()
        return self

    def one_or_more(self) -> Pattern:
        """``oneOrMore``: one or more events (a looping part)."""
        self._check_if_no_not_pattern()
        self._check_if_quantifier_applied()
        self.quantifier = Quantifier.looping(self.quantifier.consuming_strategy)
        self._times = Times.of(1)
        return self

    def greedy(self) -> Pattern:
        """``greedy``: a looping/times part takes as many events as it can."""
        self._check_if_no_not_pattern()
        self._check_if_no_group_pattern()
        self.quantifier.greedy()
        return self

    def times(self, times: int, to: int | None = None) -> Pattern:
        """``times(n)`` exactly ``n`` events; ``times(from, to)`` between ``from`` and ``to``."""
        self._check_if_no_not_pattern()
        self._check_if_quantifier_applied()
        _check_int(times, "times")
        if to is None:
            if not times > 0:
                raise IllegalArgumentException("You should give a positive number greater than 0.")
            self.quantifier = Quantifier.times(self.quantifier.consuming_strategy)
            self._times = Times.of(times)
            return self
        _check_int(to, "times")
        self.quantifier = Quantifier.times(self.quantifier.consuming_strategy)
        if times == 0:
            self.quantifier.optional()
            times = 1
        self._times = Times.of(times, to)
        return self

    def times_or_more(self, times: int) -> Pattern:
        """``timesOrMore``: at least ``times`` events (a looping part)."""
        self._check_if_no_not_pattern()
        self._check_if_quantifier_applied()
        _check_int(times, "times_or_more")
        self.quantifier = Quantifier.looping(self.quantifier.consuming_strategy)
        self._times = Times.of(times)
        return self

    def allow_combinations(self) -> Pattern:
        """``allowCombinations``: non-deterministic relaxed contiguity inside a looping part."""
        self.quantifier.combinations()
        return self

    def consecutive(self) -> Pattern:
        """``consecutive``: strict contiguity inside a looping/times part."""
        self.quantifier.consecutive()
        return self

    # ---- checks ----
    def _check_if_no_not_pattern(self) -> None:
        if self.quantifier.consuming_strategy in (
            ConsumingStrategy.NOT_FOLLOW,
            ConsumingStrategy.NOT_NEXT,
        ):
            raise MalformedPatternException("Option not applicable to NOT pattern")

    def _check_if_quantifier_applied(self) -> None:
        if not self.quantifier.has_property(QuantifierProperty.SINGLE):
            raise MalformedPatternException(
                "Already applied quantifier to this Pattern. Current quantifier is: "
                f"{self.quantifier}"
            )

    def _check_if_no_group_pattern(self) -> None:
        if isinstance(self, GroupPattern):
            raise MalformedPatternException("Option not applicable to group pattern")

    def _check_if_previous_pattern_greedy(self) -> None:
        prev = self.previous
        if prev is not None and prev.quantifier.has_property(QuantifierProperty.GREEDY):
            raise MalformedPatternException("Optional pattern cannot be preceded by greedy pattern")

    # ---- inspection ----
    def get_name(self) -> str | None:
        return self.name

    def get_previous(self) -> Pattern | None:
        return self.previous

    def get_quantifier(self) -> Quantifier:
        return self.quantifier

    def get_times(self) -> Times | None:
        return self._times

    def get_window_time(self) -> int | None:
        return self.window_time

    def get_after_match_skip_strategy(self) -> AfterMatchSkipStrategy:
        return self.after_match_skip_strategy

    def __repr__(self) -> str:
        return (
            f"Pattern{{name='{self.name}', previous={self.previous!r}, condition="
            f"{self.condition!r}, windowTime={self.window_time}, quantifier={self.quantifier}, "
            f"untilCondition={self.until_condition!r}, times={self._times}}}"
        )


class GroupPattern(Pattern):
    """Flink's ``GroupPattern``: a whole pattern used as one part (``begin/next/followed_by(pattern)``)."""

    def __init__(
        self,
        previous: Pattern | None,
        group_pattern: Pattern,
        consuming_strategy: ConsumingStrategy,
        after_match_skip_strategy: AfterMatchSkipStrategy,
    ) -> None:
        super().__init__("GroupPattern", previous, consuming_strategy, after_match_skip_strategy)
        self.raw_pattern = group_pattern

    def where(self, condition: Any) -> Pattern:
        raise UnsupportedOperationException("GroupPattern does not support where clause.")

    def or_(self, condition: Any) -> Pattern:
        raise UnsupportedOperationException("GroupPattern does not support or clause.")

    def subtype(self, subtype_class: type) -> Pattern:
        raise UnsupportedOperationException("GroupPattern does not support subtype clause.")

    def get_raw_pattern(self) -> Pattern:
        return self.raw_pattern


def _check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise IllegalArgumentException(
            f"Pattern.{what}() needs a non-empty pattern name (str), got {name!r}."
        )
    return name


def _check_int(value: Any, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise IllegalArgumentException(f"{what}() needs an int, got {value!r}.")
