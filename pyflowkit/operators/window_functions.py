"""Internal window functions: how the window operator calls the user's function for one pane.

Stands for Flink's ``InternalWindowFunction`` family (``InternalSingleValueWindowFunction``,
``InternalIterableProcessWindowFunction``, …) plus ``PassThroughWindowFunction``,
``ReduceApplyWindowFunction`` and ``AggregateApplyWindowFunction``. Every function here receives
the pane's inputs as a list and returns the outputs as a list.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

from pyflowkit.datastream.functions import (
    AllWindowFunction,
    ProcessAllWindowFunction,
    ProcessWindowFunction,
    WindowFunction,
)
from pyflowkit.errors import IllegalArgumentException


def _as_list(result: Iterable[Any] | None) -> list[Any]:
    """PyFlink functions yield (or return) their outputs; ``None`` means no output."""
    if result is None:
        return []
    return list(result)


def reduce_callable(function: Any, operator: str) -> Callable[[Any, Any], Any]:
    """The ``reduce(value1, value2)`` of a ReduceFunction or a plain callable."""
    fn = getattr(function, "reduce", function)
    if not callable(fn):
        raise IllegalArgumentException(
            f"{operator}: reduce() needs a ReduceFunction or a callable (a, b) -> c, got "
            f"{function!r}."
        )
    return fn


def check_aggregate_function(function: Any, operator: str) -> None:
    for method in ("create_accumulator", "add", "get_result"):
        if not callable(getattr(function, method, None)):
            raise IllegalArgumentException(
                f"{operator}: aggregate() needs an AggregateFunction; {function!r} has no "
                f"'{method}' method."
            )


class InternalWindowFunction:
    """Calls a user window function for one pane (Flink's ``InternalWindowFunction``)."""

    #: The user function object (opened/closed with the operator), or None.
    user_function: Any = None

    def process(self, key: Any, window: Any, context: Any, inputs: list[Any]) -> list[Any]:
        raise NotImplementedError

    def clear(self, window: Any, context: Any) -> None:
        """Called when a window is purged for good (cleanup time)."""


class PassThroughWindowFunction(InternalWindowFunction):
    """Emits the pane's values unchanged (Flink's ``PassThroughWindowFunction``)."""

    def process(self, key, window, context, inputs) -> list[Any]:
        return list(inputs)


class ApplyWindowFunction(InternalWindowFunction):
    """Calls ``WindowFunction.apply(key, window, inputs)`` (``InternalIterableWindowFunction``)."""

    def __init__(self, function: Any, operator: str) -> None:
        fn = getattr(function, "apply", None)
        if fn is None and isinstance(function, WindowFunction):
            fn = function.apply
        if fn is None:
            fn = function
        if not callable(fn):
            raise IllegalArgumentException(
                f"{operator}: apply() needs a WindowFunction or a callable (key, window, inputs), "
                f"got {function!r}."
            )
        self.user_function = function
        self._apply = fn

    def process(self, key, window, context, inputs) -> list[Any]:
        return _as_list(self._apply(key, window, inputs))


class AllApplyWindowFunction(InternalWindowFunction):
    """Calls ``AllWindowFunction.apply(window, inputs)`` (``InternalIterableAllWindowFunction``)."""

    def __init__(self, function: Any, operator: str) -> None:
        fn = getattr(function, "apply", function)
        if not callable(fn):
            raise IllegalArgumentException(
                f"{operator}: apply() needs an AllWindowFunction or a callable (window, inputs), "
                f"got {function!r}."
            )
        self.user_function = function
        self._apply = fn

    def process(self, key, window, context, inputs) -> list[Any]:
        return _as_list(self._apply(window, inputs))


class ProcessWindowFunctionAdapter(InternalWindowFunction):
    """Calls ``ProcessWindowFunction.process(key, ctx, elements)``.

    Flink's ``InternalIterableProcessWindowFunction``.
    """

    def __init__(self, function: Any, operator: str) -> None:
        if not callable(getattr(function, "process", None)):
            raise IllegalArgumentException(
                f"{operator}: process() needs a ProcessWindowFunction, got {function!r}."
            )
        self.user_function = function

    def process(self, key, window, context, inputs) -> list[Any]:
        return _as_list(self.user_function.process(key, context, inputs))

    def clear(self, window, context) -> None:
        self.user_function.clear(context)


class ProcessAllWindowFunctionAdapter(ProcessWindowFunctionAdapter):
    """Calls ``ProcessAllWindowFunction.process(ctx, elements)``.

    Flink's ``InternalIterableProcessAllWindowFunction``.
    """

    def process(self, key, window, context, inputs) -> list[Any]:
        return _as_list(self.user_function.process(context, inputs))


class ReduceApplyWindowFunction(InternalWindowFunction):
    """Reduces all inputs, then calls the wrapped function (Flink's ``ReduceApplyWindowFunction``).

    Used by the evicting operator, which keeps every element and reduces at firing time.
    """

    def __init__(self, reduce: Callable[[Any, Any], Any], wrapped: InternalWindowFunction) -> None:
        self._reduce = reduce
        self.wrapped = wrapped
        self.user_function = wrapped.user_function

    def process(self, key, window, context, inputs) -> list[Any]:
        if not inputs:
            return []
        return self.wrapped.process(key, window, context, [functools.reduce(self._reduce, inputs)])

    def clear(self, window, context) -> None:
        self.wrapped.clear(window, context)


class AggregateApplyWindowFunction(InternalWindowFunction):
    """Aggregates all inputs, then calls the wrapped function (``AggregateApplyWindowFunction``)."""

    def __init__(self, aggregate: Any, wrapped: InternalWindowFunction) -> None:
        self._aggregate = aggregate
        self.wrapped = wrapped
        self.user_function = wrapped.user_function

    def process(self, key, window, context, inputs) -> list[Any]:
        acc = self._aggregate.create_accumulator()
        for value in inputs:
            acc = self._aggregate.add(value, acc)
        return self.wrapped.process(key, window, context, [self._aggregate.get_result(acc)])

    def clear(self, window, context) -> None:
        self.wrapped.clear(window, context)


def second_stage(function: Any, kind: str | None, operator: str) -> InternalWindowFunction:
    """The function called with a pane's contents: pass-through, apply or process."""
    if function is None or kind == "pass_through":
        return PassThroughWindowFunction()
    if kind is None:
        kind = infer_kind(function)
    if kind == "apply":
        if isinstance(function, AllWindowFunction):
            return AllApplyWindowFunction(function, operator)
        return ApplyWindowFunction(function, operator)
    if kind == "process":
        if isinstance(function, ProcessAllWindowFunction):
            return ProcessAllWindowFunctionAdapter(function, operator)
        return ProcessWindowFunctionAdapter(function, operator)
    raise IllegalArgumentException(
        f"{operator}: unknown window function type {kind!r} (expected 'apply', 'process' or "
        "'pass_through')."
    )


def infer_kind(function: Any) -> str:
    """``process`` for (All)ProcessWindowFunctions, else ``apply``."""
    if isinstance(function, ProcessWindowFunction | ProcessAllWindowFunction):
        return "process"
    return "apply"
