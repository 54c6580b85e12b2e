"""Sinks: Flink's ``StreamSink`` hosting the print sink, the collect sink or a user ``SinkFunction``.

Params (``OperatorFactory.params``): ``sink_identifier``/``print_to_err`` → print sink
(``PrintSinkFunction``); ``collect=True`` → the collect sink of ``execute_and_collect``;
``function`` → a user ``SinkFunction`` (``invoke(value, context)``) or a plain callable.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pyflowkit.common.flink_version import profile_for
from pyflowkit.datastream.functions import SinkFunction
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import java_float_to_string
from pyflowkit.operators.base import AbstractUdfStreamOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.print_format import print_batch_formatter, print_prefix
from pyflowkit.operators.registry import register_operator


def _consume(calls: Any) -> None:
    """Run an iterator of calls to the end in C (``deque(maxlen=0)``), discarding results."""
    deque(calls, maxlen=0)


class PrintSinkFunction(SinkFunction):
    """Flink's ``PrintSinkFunction`` + ``PrintSinkOutputWriter``: one line per record."""

    def __init__(self, sink_identifier: str | None = None, print_to_err: bool = False) -> None:
        self.sink_identifier = sink_identifier
        self.print_to_err = print_to_err
        self.prefix = ""

    def open(self, runtime_context: Any) -> None:
        self.prefix = print_prefix(
            self.sink_identifier,
            runtime_context.get_index_of_this_subtask(),
            runtime_context.get_number_of_parallel_subtasks(),
        )

    def invoke(self, value: Any, context: Any) -> None:  # pragma: no cover - StreamSink inlines it
        raise NotImplementedError("StreamSink writes print lines itself.")

    def __str__(self) -> str:
        return "Print to Std. Err" if self.print_to_err else "Print to Std. Out"


class CollectSinkFunction(SinkFunction):
    """The sink of ``execute_and_collect`` (Flink's ``CollectSinkFunction``): values to the host."""

    def invoke(self, value: Any, context: Any) -> None:  # pragma: no cover - StreamSink inlines it
        raise NotImplementedError("StreamSink hands collected values to the host itself.")


class CacheWriteSinkFunction(CollectSinkFunction):
    """The ``CacheWrite`` node of ``DataStream.cache()`` (Flink's ``NoOpStreamOperator`` writing a
    cluster dataset): each record goes to the host tagged with its subtask, so the environment
    keeps one partition per producer subtask."""


class _SinkContext(SinkFunction.Context):
    """``SinkFunction.Context`` of ``StreamSink``: clocks and the record's timestamp."""

    def __init__(self, operator: StreamSink) -> None:
        self.operator = operator
        self.current_timestamp: int | None = None

    def current_processing_time(self) -> int:
        return self.operator.get_processing_time()

    def current_watermark(self) -> int:
        return self.operator.current_watermark

    def timestamp(self) -> int | None:
        return self.current_timestamp


class StreamSink(AbstractUdfStreamOperator):
    """Flink's ``StreamSink``: calls the sink function per record; emits nothing downstream."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self._plain: Any = None  # a plain callable sink: called with the value only
        if isinstance(function, PrintSinkFunction | CollectSinkFunction):
            self._invoke = None
        else:
            invoke = getattr(function, "invoke", None)
            if invoke is None and callable(function):
                user = self._plain = function

                def invoke(value: Any, context: Any) -> None:
                    user(value)

            if invoke is None:
                raise IllegalArgumentException(
                    f"Sink needs a SinkFunction (with invoke(value, context)) or a callable, got "
                    f"{function!r}."
                )
            self._invoke = invoke
        self._ctx = _SinkContext(self)
        self.lines: int = 0
        self._print_batch: Any = None  # print sink: values → lines, compiled at open()

    def batch_keys_itself(self) -> bool:
        """Print, collect and cache sinks read no keyed state; a user's sink function might."""
        fn = self.user_function
        if isinstance(fn, PrintSinkFunction | CollectSinkFunction | CacheWriteSinkFunction):
            return True
        return not self.function_reaches_keyed_state

    def end_input(self) -> None:
        """End of input: the function's ``finish()`` if it has one (Flink 1.14's
        ``SinkFunction.finish``; a two-phase-commit sink pre-commits its final transaction)."""
        finisher = getattr(self.user_function, "finish", None)
        if callable(finisher) and not isinstance(self.user_function, type):
            finisher()

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        if params.get("cache_write"):
            return cls(CacheWriteSinkFunction())
        if params.get("collect"):
            return cls(CollectSinkFunction())
        if params.get("function") is not None:
            return cls(params["function"])
        return cls(
            PrintSinkFunction(params.get("sink_identifier"), bool(params.get("print_to_err")))
        )

    def open(self) -> None:
        super().open()
        fn = self.user_function
        env = self._env
        in_type = self.config.input_types[0] if self.config.input_types else None
        if isinstance(fn, PrintSinkFunction):
            to_err, write = fn.print_to_err, env.print_lines
            row_print = profile_for(self.config.flink_version).row_print
            lines_of = print_batch_formatter(in_type, fn.prefix, row_print)

            def print_batch(values: Sequence[Any]) -> None:  # one write per batch
                if values:
                    write(lines_of(values), to_err)

            def print_record(value: Any, timestamp: int | None) -> None:
                write(lines_of((value,)), to_err)

            self._print_batch = print_batch
            self._write = print_record
        elif isinstance(fn, CacheWriteSinkFunction):
            node_id, collect, subtask = self.config.node_id, env.collect, env.subtask_index

            def cache_record(value: Any, timestamp: int | None) -> None:
                collect(node_id, (subtask, value))

            self._write = cache_record
        elif isinstance(fn, CollectSinkFunction):
            node_id, collect = self.config.node_id, env.collect
            as_float = _is_float(in_type)  # PyFlink hands a collected Java float back by its text

            def collect_record(value: Any, timestamp: int | None) -> None:
                if as_float and type(value) is float:
                    value = float(java_float_to_string(value))
                collect(node_id, value)

            self._write = collect_record

    def _write(self, value: Any, timestamp: int | None) -> None:
        ctx = self._ctx
        ctx.current_timestamp = timestamp
        self._invoke(value, ctx)  # type: ignore[misc]

    def process_element(self, value: Any, timestamp: int | None) -> None:
        self._write(value, timestamp)

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        if self._print_batch is not None:
            self._print_batch(values)
            return
        plain = self._plain
        if plain is not None:  # no context to fill in: call the function straight, in order
            _consume(map(plain, values))
            return
        invoke = self._invoke
        if invoke is not None:  # a SinkFunction: the context carries each record's timestamp
            ctx = self._ctx
            if timestamps is None:
                ctx.current_timestamp = None
                for v in values:
                    invoke(v, ctx)
            else:
                for v, ts in zip(values, timestamps, strict=False):
                    ctx.current_timestamp = ts
                    invoke(v, ctx)
            return
        process = self._write
        if timestamps is None:
            for v in values:
                process(v, None)
        else:
            for v, ts in zip(values, timestamps, strict=False):
                process(v, ts)

    def process_watermark(self, watermark: int) -> None:
        self.current_watermark = watermark


register_operator("StreamSink", StreamSink)


def _is_float(type_info: Any) -> bool:
    """A declared ``Types.FLOAT()``: PyFlink 1.20's ``execute_and_collect`` returns such a value as
    the Python float of Java's ``Float.toString`` (110.1, not the 32-bit 110.0999984741211)."""
    basic = getattr(type_info, "basic_type", None)
    return getattr(basic, "value", None) == "Float"
