"""Pattern conditions (Flink's ``org.apache.flink.cep.pattern.conditions``).

``IterativeCondition.filter(value, ctx)`` sees the events matched so far through
``ctx.get_events_for_pattern(name)``; ``SimpleCondition.filter(value)`` sees only the event. A plain
callable is a ``SimpleCondition``. Every condition exposes ``test(value, ctx)``, which the NFA calls.

A condition must return a bool: Java's ``IterativeCondition.filter`` returns ``boolean``, so a
Flink condition cannot return ``"false"`` (which Python's truth test would take for True and match
every event) or ``null`` (False: no event); a Python condition doing so is refused with the
pattern state and the condition named (PyFlink 1.20 has no Python CEP to compare with).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyflowkit.errors import IllegalArgumentException


def _numpy_bool(result: Any) -> bool:
    kind = type(result)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")


def as_bool(result: Any) -> bool:
    """A condition's result as Java's ``boolean``: True/False (a numpy bool too), else refused."""
    if result is True or result is False:
        return result
    if _numpy_bool(result):
        return bool(result)
    raise TypeError(
        f"the condition returned {result!r} of type {type(result).__name__}, not a bool: a CEP "
        "condition must return True or False, as Flink's IterativeCondition.filter returns a "
        "boolean (Python's truth test would take a non-empty str such as 'false' for True and "
        "match every event, None for False and match none)"
    )


def _checked(call: Callable[..., Any]) -> Callable[..., bool]:
    """``call`` whose result must be a bool (``as_bool``); True/False pass at one ``is`` test."""

    def checked(*args: Any) -> bool:
        result = call(*args)
        if result is True or result is False:
            return result
        return as_bool(result)

    checked.__wrapped__ = call  # type: ignore[attr-defined]
    return checked


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
        self.test = lambda value, ctx: as_bool(function(value))  # type: ignore[method-assign]

    def filter(self, value: Any) -> bool:  # type: ignore[override]
        return as_bool(self.function(value))

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
        return as_bool(left.test(value, ctx)) and as_bool(right.test(value, ctx))


class RichOrCondition(RichCompositeIterativeCondition):
    """Flink's ``RichOrCondition``: either condition holds."""

    def filter(self, value: Any, ctx: Any) -> bool:
        left, right = self.nested
        return as_bool(left.test(value, ctx)) or as_bool(right.test(value, ctx))


class RichNotCondition(RichCompositeIterativeCondition):
    """Flink's ``RichNotCondition``: the condition does not hold."""

    def filter(self, value: Any, ctx: Any) -> bool:
        return not as_bool(self.nested[0].test(value, ctx))


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
    ``test(value, ctx)``; an edge without a condition is (None, True), always true. A user's
    condition is called through ``_checked``: its result must be a bool (module docstring)."""
    if condition is None:
        return None, True
    if type(condition) in _BUILT_IN:
        if isinstance(condition, SimpleCondition):
            return condition.filter, True
        return condition.test, False
    if isinstance(condition, _CallableCondition):
        return _checked(condition.function), True
    if isinstance(condition, SimpleCondition) and type(condition).test is SimpleCondition.test:
        return _checked(condition.filter), True
    return _checked(condition.test), False


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


#: conditions of pyflowkit's own that always return a bool: called without the check
_BUILT_IN = (
    _TrueCondition,
    _FalseCondition,
    SubtypeCondition,
    RichAndCondition,
    RichOrCondition,
    RichNotCondition,
)
