"""``CEP.pattern(stream, pattern)`` and ``PatternStream`` (Flink's ``CEP``, ``PatternStream`` and
``PatternStreamBuilder``).

``select``/``flat_select`` and their timeout forms are adapters to ``process(PatternProcessFunction)``;
building compiles the pattern (malformed patterns fail here, as in Flink) and adds a ``CepOperator``:
on a keyed stream ``transform("CepOperator")``, on any other stream ``key_by(NullByteKeySelector)``
then ``transform("GlobalCepOperator")`` forced to parallelism 1.
"""

from __future__ import annotations

from typing import Any

from pyflowkit.common.typeinfo import TypeInformation
from pyflowkit.datastream._util import check_type_info
from pyflowkit.datastream.data_stream import DataStream
from pyflowkit.datastream.keyed_stream import KeyedStream
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.datastream.time_characteristic import TimeCharacteristic
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.graph.transformations import ChainingStrategy
from pyflowkit.operators.cep.functions import (
    PatternFlatSelectAdapter,
    PatternProcessFunction,
    PatternSelectAdapter,
    PatternTimeoutFlatSelectAdapter,
    PatternTimeoutSelectAdapter,
    TimedOutPartialMatchHandler,
)
from pyflowkit.operators.cep.nfa_compiler import compile_states


class NullByteKeySelector:
    """Flink's ``NullByteKeySelector``: every record has the key ``0`` (one NFA for the stream)."""

    def get_key(self, value: Any) -> int:
        return 0

    def __call__(self, value: Any) -> int:
        return 0


def _check_callable(function: Any, method: str, what: str, kind: str) -> None:
    target = getattr(function, method, None)
    if callable(target) or (callable(function) and not isinstance(function, type)):
        return
    raise IllegalArgumentException(
        f"PatternStream.{what}() needs a {kind} (an object with {method}() or a callable), got "
        f"{function!r} of type {type(function).__name__}."
    )


def _check_tag(tag: Any, what: str) -> None:
    if not isinstance(tag, OutputTag):
        raise IllegalArgumentException(
            f"PatternStream.{what}() needs an OutputTag for the timed-out partial matches, got "
            f"{tag!r}."
        )


def _select_args(
    args: tuple[Any, ...], kwargs: dict[str, Any], what: str
) -> tuple[Any, Any, Any, Any]:
    """(timeout tag, timeout function, select function, output type) from Flink's argument forms."""
    unknown = set(kwargs) - {"output_type", "timeout_output_tag", "timeout_function"}
    if unknown:
        raise IllegalArgumentException(
            f"PatternStream.{what}() got unexpected keyword(s): {', '.join(sorted(unknown))}."
        )
    tag = kwargs.get("timeout_output_tag")
    timeout_fn = kwargs.get("timeout_function")
    out_type = kwargs.get("output_type")
    if args and isinstance(args[0], OutputTag):
        if len(args) not in (3, 4):
            raise IllegalArgumentException(
                f"PatternStream.{what}(output_tag, timeout_function, {what}_function"
                "[, output_type]) takes 3 or 4 arguments."
            )
        tag, timeout_fn, fn = args[:3]
        if len(args) == 4:
            out_type = args[3]
        return tag, timeout_fn, fn, out_type
    if not args or len(args) > 2:
        raise IllegalArgumentException(
            f"PatternStream.{what}({what}_function[, output_type]) takes 1 or 2 arguments."
        )
    if len(args) == 2:
        out_type = args[1]
    return tag, timeout_fn, args[0], out_type


class PatternStream:
    """Flink's ``PatternStream``: a stream with a pattern, turned into results by ``select`` & co."""

    def __init__(
        self,
        input_stream: DataStream,
        pattern: Any,
        comparator: Any = None,
        late_data_output_tag: OutputTag | None = None,
        time_behaviour: str | None = None,
    ) -> None:
        self._input = input_stream
        self._pattern = pattern
        self._comparator = comparator
        self._late_data_output_tag = late_data_output_tag
        self._time_behaviour = time_behaviour  # None: the environment's time characteristic

    def _with(self, **changes: Any) -> PatternStream:
        args = {
            "comparator": self._comparator,
            "late_data_output_tag": self._late_data_output_tag,
            "time_behaviour": self._time_behaviour,
        }
        args.update(changes)
        return PatternStream(self._input, self._pattern, **args)

    def side_output_late_data(self, late_data_output_tag: OutputTag) -> PatternStream:
        """``sideOutputLateData``: late elements (event time) go to this side output."""
        if not isinstance(late_data_output_tag, OutputTag):
            raise IllegalArgumentException(
                f"side_output_late_data() needs an OutputTag, got {late_data_output_tag!r}."
            )
        return self._with(late_data_output_tag=late_data_output_tag)

    def in_processing_time(self) -> PatternStream:
        """``inProcessingTime`` (Flink 1.12): match in processing time whatever the environment says."""
        return self._with(time_behaviour="processing")

    def in_event_time(self) -> PatternStream:
        """``inEventTime`` (Flink 1.12): match in event time whatever the environment says."""
        return self._with(time_behaviour="event")

    # ---- results ----
    def process(
        self, pattern_process_function: Any, output_type: TypeInformation | None = None
    ) -> DataStream:
        """``process(PatternProcessFunction)``: the CEP operator with this function."""
        if not callable(getattr(pattern_process_function, "process_match", None)):
            raise IllegalArgumentException(
                "PatternStream.process() needs a PatternProcessFunction (an object with "
                f"process_match(match, ctx)), got {pattern_process_function!r}."
            )
        check_type_info(output_type, "PatternStream.process()")
        return self._build(pattern_process_function, output_type)

    def select(self, *args: Any, **kwargs: Any) -> DataStream:
        """``select``: one result per match, ``select(select_function[, output_type])``.

        Timed-out partial matches: ``select(output_tag, timeout_function, select_function[,
        output_type])`` as in Flink, or the keywords ``timeout_output_tag`` / ``timeout_function``;
        ``timeout(match, timeout_timestamp)`` gives the side-output value.
        """
        tag, timeout_fn, fn, out_type = _select_args(args, kwargs, "select")
        _check_callable(fn, "select", "select", "PatternSelectFunction")
        check_type_info(out_type, "PatternStream.select()")
        if tag is None and timeout_fn is None:
            return self._build(PatternSelectAdapter(fn), out_type)
        _check_tag(tag, "select")
        _check_callable(timeout_fn, "timeout", "select", "PatternTimeoutFunction")
        return self._build(PatternTimeoutSelectAdapter(fn, tag, timeout_fn), out_type)

    def flat_select(self, *args: Any, **kwargs: Any) -> DataStream:
        """``flatSelect``: any number of results per match (``flat_select(match)`` yields them);
        the timeout forms as for ``select``, with ``timeout(match, timestamp)`` yielding."""
        tag, timeout_fn, fn, out_type = _select_args(args, kwargs, "flat_select")
        _check_callable(fn, "flat_select", "flat_select", "PatternFlatSelectFunction")
        check_type_info(out_type, "PatternStream.flat_select()")
        if tag is None and timeout_fn is None:
            return self._build(PatternFlatSelectAdapter(fn), out_type)
        _check_tag(tag, "flat_select")
        _check_callable(timeout_fn, "timeout", "flat_select", "PatternFlatTimeoutFunction")
        return self._build(PatternTimeoutFlatSelectAdapter(fn, tag, timeout_fn), out_type)

    # ---- PatternStreamBuilder.build ----
    def _is_processing_time(self) -> bool:
        if self._time_behaviour is not None:
            return self._time_behaviour == "processing"
        env = self._input.get_execution_environment()
        in_processing_time = (
            env.get_stream_time_characteristic() == TimeCharacteristic.ProcessingTime
        )
        # the profile's CEP_TIME_BEHAVIOUR: 1.11 follows the environment, 1.12+ is event time
        return env.get_flink_version_profile().cep_time.is_processing_time(in_processing_time)

    def _build(self, function: PatternProcessFunction, output_type: Any) -> DataStream:
        compile_states(self._pattern)  # MalformedPatternException before anything is added
        params = {
            "function": function,
            "pattern": self._pattern,
            "is_processing_time": self._is_processing_time(),
            "comparator": self._comparator,
            "late_data_output_tag": self._late_data_output_tag,
            "timeout_handling": isinstance(function, TimedOutPartialMatchHandler),
        }
        if isinstance(self._input, KeyedStream):
            t = self._input._one_input(
                "CepOperator", "CepOperator", params, output_type, ChainingStrategy.HEAD
            )
            return DataStream(self._input._env, t)
        keyed = self._input.key_by(NullByteKeySelector())
        t = keyed._one_input(
            "GlobalCepOperator", "CepOperator", params, output_type, ChainingStrategy.HEAD
        )
        return DataStream(self._input._env, t).force_non_parallel()


class CEP:
    """Flink's ``CEP``: the entry point."""

    @staticmethod
    def pattern(input_stream: DataStream, pattern: Any, comparator: Any = None) -> PatternStream:
        """``CEP.pattern(input, pattern[, comparator])``: a ``PatternStream``."""
        from pyflowkit.cep.pattern import Pattern

        if not isinstance(input_stream, DataStream):
            raise IllegalArgumentException(
                f"CEP.pattern() needs a DataStream, got {input_stream!r}."
            )
        if not isinstance(pattern, Pattern):
            raise IllegalArgumentException(
                f"CEP.pattern() needs a Pattern (Pattern.begin(...)), got {pattern!r}."
            )
        if comparator is not None and not (
            callable(getattr(comparator, "compare", None)) or callable(comparator)
        ):
            raise IllegalArgumentException(
                "CEP.pattern() needs an EventComparator (an object with compare(a, b) or a "
                f"callable (a, b) -> int) as comparator, got {comparator!r}."
            )
        return PatternStream(input_stream, pattern, comparator)
