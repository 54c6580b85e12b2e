"""What a CEP operator does with matches (Flink's ``PatternProcessFunction``, its adapters and
``TimedOutPartialMatchHandler``).

A match is ``{pattern name: [event, ...]}`` in pattern order. Functions yield or return their
outputs (PyFlink's convention); a yielded ``(OutputTag, value)`` goes to that side output, as does
``ctx.output(tag, value)``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class PatternProcessFunction:
    """Flink's ``PatternProcessFunction``: ``process_match(match, ctx)`` yields the outputs."""

    def open(self, runtime_context: Any) -> None:
        """``RichFunction.open``."""

    def close(self) -> None:
        """``RichFunction.close``."""

    def process_match(self, match: dict[str, list[Any]], ctx: Any) -> Iterable[Any] | None:
        raise NotImplementedError(
            f"{type(self).__name__} must implement process_match(match, ctx)."
        )


class TimedOutPartialMatchHandler:
    """Flink's ``TimedOutPartialMatchHandler``: ``process_timed_out_match(match, ctx)`` sees partial
    matches that ran out of ``within``; it emits through ``ctx.output(tag, value)``."""

    def process_timed_out_match(self, match: dict[str, list[Any]], ctx: Any) -> None:
        raise NotImplementedError


def _method(function: Any, name: str) -> Any:
    method = getattr(function, name, None)
    return method if callable(method) else function


class _UserFunctionAdapter(PatternProcessFunction):
    """Opens and closes the wrapped user function(s) (``RichFunction`` forwarding)."""

    def __init__(self, *functions: Any) -> None:
        self.functions = [f for f in functions if f is not None]

    def open(self, runtime_context: Any) -> None:
        for f in self.functions:
            opener = getattr(f, "open", None)
            if callable(opener) and not isinstance(f, type):
                opener(runtime_context)

    def close(self) -> None:
        for f in self.functions:
            closer = getattr(f, "close", None)
            if callable(closer) and not isinstance(f, type):
                closer()


class PatternSelectAdapter(_UserFunctionAdapter):
    """Flink's ``PatternSelectAdapter``: one output per match, ``select(match)``."""

    def __init__(self, select_function: Any) -> None:
        super().__init__(select_function)
        self.select_function = _method(select_function, "select")

    def process_match(self, match: dict[str, list[Any]], ctx: Any) -> Iterable[Any]:
        return (self.select_function(match),)


class PatternFlatSelectAdapter(_UserFunctionAdapter):
    """Flink's ``PatternFlatSelectAdapter``: ``flat_select(match)`` yields any number of outputs."""

    def __init__(self, flat_select_function: Any) -> None:
        super().__init__(flat_select_function)
        self._flat_select = _method(flat_select_function, "flat_select")

    def process_match(self, match: dict[str, list[Any]], ctx: Any) -> Iterable[Any] | None:
        return self._flat_select(match)


class PatternTimeoutSelectAdapter(PatternSelectAdapter, TimedOutPartialMatchHandler):
    """Flink's ``PatternTimeoutSelectAdapter``: ``timeout(match, timeout_timestamp)`` → side output."""

    def __init__(self, select_function: Any, output_tag: Any, timeout_function: Any) -> None:
        super().__init__(select_function)
        self.functions.append(timeout_function)
        self.output_tag = output_tag
        self._timeout = _method(timeout_function, "timeout")

    def process_timed_out_match(self, match: dict[str, list[Any]], ctx: Any) -> None:
        ctx.output(self.output_tag, self._timeout(match, ctx.timestamp()))


class PatternTimeoutFlatSelectAdapter(PatternFlatSelectAdapter, TimedOutPartialMatchHandler):
    """Flink's ``PatternTimeoutFlatSelectAdapter``: a flat timeout function → side output."""

    def __init__(self, flat_select_function: Any, output_tag: Any, timeout_function: Any) -> None:
        super().__init__(flat_select_function)
        self.functions.append(timeout_function)
        self.output_tag = output_tag
        self._timeout = _method(timeout_function, "timeout")

    def process_timed_out_match(self, match: dict[str, list[Any]], ctx: Any) -> None:
        for value in self._timeout(match, ctx.timestamp()) or ():
            ctx.output(self.output_tag, value)
