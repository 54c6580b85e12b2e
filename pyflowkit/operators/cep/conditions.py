"""Pattern conditions (Flink's ``org.apache.flink.cep.pattern.conditions``).

``IterativeCondition.filter(value, ctx)`` sees the events matched so far through
``ctx.get_events_for_pattern(name)``; ``SimpleCondition.filter(value)`` sees only the event. A plain
callable is a ``SimpleCondition``. Every condition exposes ``test(value, ctx)``, which the NFA calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflowkit.errors import IllegalArgumentException


class IterativeCondition:
    """Flink's ``IterativeCondition``: ``filter(value, ctx)`` with the partial match in ``ctx``."""

    def filter(self, value: Any, ctx: Any) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must implement filter(value, ctx).")

    def test(self, value: Any, ctx: Any) -> bool:
        return self.filter(value, ctx)

    def open(self, runtime_context: Any) -> None:
        """``RichIterativeCondition.open``."""

    def close(self) -> None:
        """``RichIterativeCondition.close``."""


class SimpleCondition(IterativeCondition):
    """Flink's ``SimpleCondition``: ``filter(value)``, no access to the partial match."""

    def filter(self, value: Any) -> bool:  # type: ignore[override]
        raise NotImplementedError(f"{type(self).__name__} must implement filter(value).")

    def test(self, value: Any, ctx: Any) -> bool:
        return self.filter(value)


class _CallableCondition(SimpleCondition):
    """A plain callable used as a ``SimpleCondition``."""

    def __init__(self, function: Callable[[Any], Any]) -> None:
        self.function = function
        self.test = lambda value, ctx: function(value)  # type: ignore[method-assign]

    def filter(self, value: Any) -> bool:  # type: ignore[override]
        return self.function(value)

    def __repr__(self) -> str:
        return getattr(self.function, "__qualname__", repr(self.function))

    def __deepcopy__(self, memo: dict[int, Any]) -> _CallableCondition:
        import copy

        return _CallableCondition(copy.deepcopy(self.function, memo))


class RichCompositeIterativeCondition(IterativeCondition):
    """Flink's ``RichCompositeIterativeCondition``: opens and closes its nested conditions."""

    def __init__(self, *nested: IterativeCondition) -> None:
        self.nested = list(nested)

    def open(self, runtime_context: Any) -> None:
        for c in self.nested:
            c.open(runtime_context)

    def close(self) -> None:
        for c in self.nested:
            c.close()


class RichAndCondition(RichCompositeIterativeCondition):
    """Flink's ``RichAndCondition``: both conditions hold (the right one is not evaluated otherwise)."""

    def filter(self, value: Any, ctx: Any) -> bool:
        left, right = self.nested
        return bool(left.test(value, ctx)) and bool(right.test(value, ctx))


class RichOrCondition(RichCompositeIterativeCondition):
    """Flink's ``RichOrCondition``: either condition holds."""

    def filter(self, value: Any, ctx: Any) -> bool:
        left, right = self.nested
        return bool(left.test(value, ctx)) or bool(right.test(value, ctx))


class RichNotCondition(RichCompositeIterativeCondition):
    """Flink's ``RichNotCondition``: the condition does not hold."""

    def filter(self, value: Any, ctx: Any) -> bool:
        return not self.nested[0].test(value, ctx)


class SubtypeCondition(SimpleCondition):
    """Flink's ``SubtypeCondition``: the event is an instance of ``subtype``."""

    def __init__(self, subtype: type) -> None:
        self.subtype = subtype

    def filter(self, value: Any) -> bool:  # type: ignore[override]
        return isinstance(value, self.subtype)


class _TrueCondition(SimpleCondition):
    def filter(self, value: Any) -> bool:  # type: ignore[override]
        return True

    def test(self, value: Any, ctx: Any) -> bool:
        return True


class _FalseCondition(SimpleCondition):
    def filter(self, value: Any) -> bool:  # type: ignore[override]
        return False


class BooleanConditions:
    """Flink's ``BooleanConditions``."""

    @staticmethod
    def true_function() -> IterativeCondition:
        return _TrueCondition()

    @staticmethod
    def false_function() -> IterativeCondition:
        return _FalseCondition()


def condition_call(condition: Any) -> tuple[Any, bool]:
    """How the NFA calls a condition: (callable, simple). A ``SimpleCondition`` is called as
    ``filter(value)`` (a plain callable's function itself, without the wrapper), any other as
    ``test(value, ctx)``; an edge without a condition is (None, True), always true."""
    if condition is None:
        return None, True
    if isinstance(condition, _CallableCondition):
        return condition.function, True
    if isinstance(condition, SimpleCondition) and type(condition).test is SimpleCondition.test:
        return condition.filter, True
    return condition.test, False


def as_condition(condition: Any, where: str) -> IterativeCondition:
    """A user's condition as an ``IterativeCondition``: conditions pass, callables become
    ``SimpleCondition``s; anything else is refused naming ``where`` (e.g. ``Pattern 'first'.where()``)."""
    if condition is None:
        raise IllegalArgumentException(f"The condition cannot be null. ({where})")
    if isinstance(condition, IterativeCondition):
        return condition
    if isinstance(condition, type):
        raise IllegalArgumentException(
            f"{where} needs a condition instance or a callable, got the class "
            f"{condition.__name__} (instantiate it: {condition.__name__}())."
        )
    if callable(condition):
        return _CallableCondition(condition)
    raise IllegalArgumentException(
        f"{where} needs a condition: a callable (value) -> bool, a SimpleCondition or an "
        f"IterativeCondition; got {condition!r} of type {type(condition).__name__}."
    )
