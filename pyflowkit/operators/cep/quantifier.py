"""How often and how contiguously a pattern matches (Flink's ``org.apache.flink.cep.pattern.Quantifier``)."""

from __future__ import annotations

from enum import Enum

from pyflowkit.errors import IllegalArgumentException, MalformedPatternException


class QuantifierProperty(Enum):
    """Flink's ``Quantifier.QuantifierProperty`` (declaration order is Java's EnumSet order)."""

    SINGLE = 0
    LOOPING = 1
    TIMES = 2
    OPTIONAL = 3
    GREEDY = 4


class ConsumingStrategy(Enum):
    """Flink's ``Quantifier.ConsumingStrategy``."""

    STRICT = 0
    SKIP_TILL_NEXT = 1
    SKIP_TILL_ANY = 2
    NOT_FOLLOW = 3
    NOT_NEXT = 4


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise MalformedPatternException(message)


class Quantifier:
    """Flink's ``Quantifier``: properties, the consuming strategy and the inner one (loops/times)."""

    def __init__(self, consuming_strategy: ConsumingStrategy, first: QuantifierProperty) -> None:
        self.properties: set[QuantifierProperty] = {first}
        self.consuming_strategy = consuming_strategy
        self.inner_consuming_strategy = ConsumingStrategy.SKIP_TILL_NEXT

    @staticmethod
    def one(consuming_strategy: ConsumingStrategy) -> Quantifier:
        return Quantifier(consuming_strategy, QuantifierProperty.SINGLE)

    @staticmethod
    def looping(consuming_strategy: ConsumingStrategy) -> Quantifier:
        return Quantifier(consuming_strategy, QuantifierProperty.LOOPING)

    @staticmethod
    def times(consuming_strategy: ConsumingStrategy) -> Quantifier:
        return Quantifier(consuming_strategy, QuantifierProperty.TIMES)

    def has_property(self, prop: QuantifierProperty) -> bool:
        return prop in self.properties

    def combinations(self) -> None:
        _check(
            not self.has_property(QuantifierProperty.SINGLE),
            f"Combinations not applicable to {self}!",
        )
        _check(
            self.inner_consuming_strategy != ConsumingStrategy.STRICT,
            "You can apply either combinations or consecutive, not both!",
        )
        _check(
            self.inner_consuming_strategy != ConsumingStrategy.SKIP_TILL_ANY,
            "Combinations already applied!",
        )
        self.inner_consuming_strategy = ConsumingStrategy.SKIP_TILL_ANY

    def consecutive(self) -> None:
        _check(
            self.has_property(QuantifierProperty.LOOPING)
            or self.has_property(QuantifierProperty.TIMES),
            f"Consecutive not applicable to {self}!",
        )
        _check(
            self.inner_consuming_strategy != ConsumingStrategy.SKIP_TILL_ANY,
            "You can apply either combinations or consecutive, not both!",
        )
        _check(
            self.inner_consuming_strategy != ConsumingStrategy.STRICT,
            "Consecutive already applied!",
        )
        self.inner_consuming_strategy = ConsumingStrategy.STRICT

    def optional(self) -> None:
        _check(not self.has_property(QuantifierProperty.OPTIONAL), "Optional already applied!")
        _check(
            self.consuming_strategy
            not in (ConsumingStrategy.NOT_NEXT, ConsumingStrategy.NOT_FOLLOW),
            "NOT pattern cannot be optional",
        )
        self.properties.add(QuantifierProperty.OPTIONAL)

    def greedy(self) -> None:
        _check(
            self.inner_consuming_strategy != ConsumingStrategy.SKIP_TILL_ANY,
            "Option not applicable to FollowedByAny pattern",
        )
        _check(
            not self.has_property(QuantifierProperty.SINGLE),
            "Option not applicable to singleton quantifier",
        )
        self.properties.add(QuantifierProperty.GREEDY)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Quantifier)
            and self.properties == other.properties
            and self.consuming_strategy == other.consuming_strategy
            and self.inner_consuming_strategy == other.inner_consuming_strategy
        )

    def __hash__(self) -> int:
        return hash((frozenset(self.properties), self.consuming_strategy))

    def __repr__(self) -> str:
        props = ", ".join(p.name for p in sorted(self.properties, key=lambda p: p.value))
        return (
            f"Quantifier{{properties=[{props}], consumingStrategy={self.consuming_strategy.name}, "
            f"innerConsumingStrategy={self.inner_consuming_strategy.name}}}"
        )


class Times:
    """Flink's ``Quantifier.Times``: ``from`` to ``to`` occurrences."""

    def __init__(self, from_: int, to: int) -> None:
        if not from_ > 0:
            raise IllegalArgumentException("The from should be a positive number greater than 0.")
        if not to >= from_:
            raise IllegalArgumentException(
                f"The to should be a number greater than or equal to from: {from_}."
            )
        self.from_ = from_
        self.to = to

    @staticmethod
    def of(from_: int, to: int | None = None) -> Times:
        return Times(from_, from_ if to is None else to)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Times) and (self.from_, self.to) == (other.from_, other.to)

    def __hash__(self) -> int:
        return hash((self.from_, self.to))

    def __repr__(self) -> str:
        return f"Times{{from={self.from_}, to={self.to}}}"
