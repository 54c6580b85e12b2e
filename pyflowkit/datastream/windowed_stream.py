"""``WindowedStream`` and ``AllWindowedStream`` (PyFlink's / Flink's classes of those names).

Operator names follow Flink 1.11 (reference §2.1): keyed windows are
``Window(<assigner>, <Trigger class>, [<Evictor class>, ]<fn1>[, <fn2>])``; non-keyed windows are
``TriggerWindow(<assigner>, <state descriptor>, <trigger>, [<evictor>, ]AllWindowedStream.<call
location>)`` with forced parallelism 1. Assigners, triggers and evictors come from
``pyflowkit.datastream.window``.
"""

from __future__ import annotations

import inspect
import os
from typing import TYPE_CHECKING, Any

from pyflowkit.common.typeinfo import TypeInformation
from pyflowkit.datastream._util import (
    check_function,
    check_type_info,
    function_name,
    has_class_in_mro,
    resolve_field,
    validate_field,
)
from pyflowkit.datastream.aggregations import PositionAggregations, aggregation_spec
from pyflowkit.datastream.data_stream import DataStream, _display_name
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException

if TYPE_CHECKING:
    from pyflowkit.datastream.keyed_stream import KeyedStream

_AGGREGATOR_NAMES = {
    "sum": "SumAggregator",
    "min": "ComparableAggregator",
    "max": "ComparableAggregator",
    "min_by": "ComparableAggregator",
    "max_by": "ComparableAggregator",
}


def count_window_parts(size: int, slide: int, api: str) -> tuple[Any, Any, Any]:
    """(assigner, trigger, evictor) of Flink's ``countWindow(size[, slide])``."""
    for what, value, low in (("size", size, 1), ("slide", slide, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise IllegalArgumentException(f"{api}: {what} must be an int >= {low}, got {value!r}.")
    from pyflowkit.datastream.window import (
        CountEvictor,
        CountTrigger,
        GlobalWindows,
        PurgingTrigger,
    )

    if slide == 0:
        return GlobalWindows.create(), PurgingTrigger.of(CountTrigger.of(size)), None
    return GlobalWindows.create(), CountTrigger.of(slide), CountEvictor.of(size)


def _default_trigger(assigner: Any, env: Any) -> Any:
    get = assigner.get_default_trigger
    try:
        takes_env = len(inspect.signature(get).parameters) > 0
    except (TypeError, ValueError):
        takes_env = True
    return get(env) if takes_env else get()


def _window_function_type(fn: Any) -> str:
    if fn is None:
        return "pass_through"
    if has_class_in_mro(fn, "ProcessWindowFunction") or has_class_in_mro(
        fn, "ProcessAllWindowFunction"
    ):
        return "process"
    return "apply"


class WindowedStream(PositionAggregations):
    """Flink's ``WindowedStream``: a KeyedStream with a window assigner (+ trigger, evictor)."""

    _keyed = True

    def __init__(self, keyed_stream: DataStream, window_assigner: Any) -> None:
        if window_assigner is None or not callable(
            getattr(window_assigner, "assign_windows", None)
        ):
            raise IllegalArgumentException(
                f"{self._api('window')} needs a WindowAssigner (e.g. "
                f"TumblingEventTimeWindows.of(Time.seconds(5))), got {window_assigner!r}."
            )
        self._input = keyed_stream
        self._assigner = window_assigner
        self._trigger = _default_trigger(window_assigner, keyed_stream._env)
        self._evictor: Any = None
        self._allowed_lateness = 0
        self._late_data_output_tag: OutputTag | None = None

    def _api(self, method: str) -> str:
        return f"{'WindowedStream' if self._keyed else 'AllWindowedStream'}.{method}()"

    def get_execution_environment(self) -> Any:
        return self._input._env

    def get_input_type(self) -> TypeInformation:
        return self._input.get_type()

    # --- configuration ------------------------------------------------------------------------
    def trigger(self, trigger: Any) -> WindowedStream:
        if trigger is None or not callable(getattr(trigger, "on_element", None)):
            raise IllegalArgumentException(
                f"{self._api('trigger')} needs a Trigger, got {trigger!r}."
            )
        merging = has_class_in_mro(self._assigner, "MergingWindowAssigner")
        can_merge = getattr(trigger, "can_merge", None)
        if merging and callable(can_merge) and not can_merge():
            raise UnsupportedOperationException(
                "A merging window assigner cannot be used with a trigger that does not support "
                f"merging. ({self._assigner} with {type(trigger).__name__})"
            )
        self._trigger = trigger
        return self

    def evictor(self, evictor: Any) -> WindowedStream:
        if evictor is None or not callable(getattr(evictor, "evict_before", None)):
            raise IllegalArgumentException(
                f"{self._api('evictor')} needs an Evictor, got {evictor!r}."
            )
        self._evictor = evictor
        return self

    def allowed_lateness(self, time_ms: Any) -> WindowedStream:
        ms = time_ms.to_milliseconds() if hasattr(time_ms, "to_milliseconds") else time_ms
        if isinstance(ms, bool) or not isinstance(ms, int):
            raise IllegalArgumentException(
                f"{self._api('allowed_lateness')} needs milliseconds (int) or a Time, got "
                f"{time_ms!r}."
            )
        if ms < 0:
            raise IllegalArgumentException("The allowed lateness cannot be negative.")
        self._allowed_lateness = ms
        return self

    def side_output_late_data(self, output_tag: OutputTag) -> WindowedStream:
        if not isinstance(output_tag, OutputTag):
            raise IllegalArgumentException(
                f"{self._api('side_output_late_data')} needs an OutputTag, got {output_tag!r}."
            )
        self._late_data_output_tag = output_tag
        return self

    # --- naming -------------------------------------------------------------------------------
    def _operator_name(self, fn1: str, fn2: str | None, state_descriptor: str, method: str) -> str:
        evictor = f"{type(self._evictor).__name__}, " if self._evictor is not None else ""
        fns = fn1 if fn2 is None else f"{fn1}, {fn2}"
        return f"Window({self._assigner}, {type(self._trigger).__name__}, {evictor}{fns})"

    # --- terminal operations ------------------------------------------------------------------
    def _build(
        self,
        kind: str,
        function: Any,
        window_function: Any,
        output_type: TypeInformation | None,
        fn_names: tuple[str, str | None],
        state_descriptor: str,
        method: str,
        aggregation: dict[str, Any] | None = None,
    ) -> DataStream:
        check_type_info(output_type, self._api(method))
        evicting = self._evictor is not None
        if evicting:
            state_descriptor = "ListStateDescriptor"
        if kind in ("apply", "process"):
            fn_type = _window_function_type(function) if kind == "apply" else "process"
        else:
            fn_type = _window_function_type(window_function)
        params = {
            "window_assigner": self._assigner,
            "trigger": self._trigger,
            "evictor": self._evictor,
            "allowed_lateness": self._allowed_lateness,
            "late_data_output_tag": self._late_data_output_tag,
            "function": function,
            "window_function_kind": kind,
            "window_function": window_function,
            "window_function_type": fn_type,
            "aggregation": aggregation,
        }
        name = self._operator_name(fn_names[0], fn_names[1], state_descriptor, method)
        operator_class = "EvictingWindowOperator" if evicting else "WindowOperator"
        t = self._input._one_input(
            name, operator_class, params, output_type, parallelism=self._parallelism()
        )
        stream = DataStream(self._input._env, t)
        if not self._keyed:  # AllWindowedStream: forceNonParallel
            t.max_parallelism = 1
            t.parallelism_configured = True
        return stream

    def _parallelism(self) -> int | None:
        return None

    def _input_type_info(self) -> TypeInformation | None:
        return self._input._transformation.output_type

    def _second_function_name(self, window_function: Any, method: str) -> str:
        """The window function after an incremental reduce/aggregate, checked and named;
        ``PassThroughWindowFunction`` when there is none (as Flink fills in)."""
        if window_function is None:
            return "PassThroughWindowFunction"
        check_function(
            window_function,
            ("apply", "process"),
            self._api(method),
            "WindowFunction or ProcessWindowFunction",
        )
        return function_name(window_function, "WindowFunction")

    def reduce(
        self,
        reduce_function: Any,
        window_function: Any = None,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        check_function(reduce_function, ("reduce",), self._api("reduce"), "ReduceFunction")
        fn2 = self._second_function_name(window_function, "reduce")
        out = output_type if window_function is not None else self._input_type_info()
        names = (function_name(reduce_function, "ReduceFunction"), fn2)
        return self._build(
            "reduce",
            reduce_function,
            window_function,
            out,
            names,
            "ReducingStateDescriptor",
            "reduce",
        )

    def aggregate(
        self,
        aggregate_function: Any,
        window_function: Any = None,
        accumulator_type: TypeInformation | None = None,
        output_type: TypeInformation | None = None,
    ) -> DataStream:
        check_function(aggregate_function, ("add",), self._api("aggregate"), "AggregateFunction")
        if callable(aggregate_function) and not hasattr(aggregate_function, "add"):
            raise IllegalArgumentException(
                f"{self._api('aggregate')} needs an AggregateFunction (create_accumulator, add, "
                f"get_result, merge), got {aggregate_function!r}."
            )
        check_type_info(accumulator_type, self._api("aggregate"))
        fn2 = self._second_function_name(window_function, "aggregate")
        names = (function_name(aggregate_function, "AggregateFunction"), fn2)
        return self._build(
            "aggregate",
            aggregate_function,
            window_function,
            output_type,
            names,
            "AggregatingStateDescriptor",
            "aggregate",
        )

    def apply(self, window_function: Any, output_type: TypeInformation | None = None) -> DataStream:
        check_function(window_function, ("apply",), self._api("apply"), "WindowFunction")
        names = (function_name(window_function, "WindowFunction"), None)
        return self._build(
            "apply", window_function, None, output_type, names, "ListStateDescriptor", "apply"
        )

    def process(
        self, process_window_function: Any, output_type: TypeInformation | None = None
    ) -> DataStream:
        fn = process_window_function
        check_function(fn, ("process",), self._api("process"), "ProcessWindowFunction")
        names = (function_name(fn, "ProcessWindowFunction"), None)
        return self._build(
            "process", fn, None, output_type, names, "ListStateDescriptor", "process"
        )

    def _aggregation(self, kind: str, field: int | str) -> DataStream:
        validate_field(
            field,
            self._input_type_info(),
            self._api(kind),
            _display_name(self._input._transformation),
        )
        type_info = self._input_type_info()
        aggregation = aggregation_spec(kind, resolve_field(field, type_info), type_info)
        names = (_AGGREGATOR_NAMES[kind], "PassThroughWindowFunction")
        return self._build(
            "reduce",
            None,
            None,
            self._input_type_info(),
            names,
            "ReducingStateDescriptor",
            kind,
            aggregation,
        )


def _call_location() -> str:
    """Flink's ``Utils.getCallLocationName()``: the user's frame as ``func(file:line)``."""
    here = os.path.dirname(os.path.abspath(__file__))
    frame = inspect.currentframe()
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if os.path.dirname(filename) != here:
            return f"{frame.f_code.co_name}({os.path.basename(filename)}:{frame.f_lineno})"
        frame = frame.f_back
    return "<unknown>"


class AllWindowedStream(WindowedStream):
    """Flink's ``AllWindowedStream``: windows over a non-keyed stream, forced parallelism 1.

    As Flink, the input is keyed by a constant key (``NullByteKeySelector``), so the edge is HASH.
    """

    _keyed = False

    def __init__(self, data_stream: DataStream, window_assigner: Any) -> None:
        from pyflowkit.datastream.keyed_stream import KeyedStream

        if isinstance(data_stream, KeyedStream):
            raise UnsupportedOperationException(
                "window_all() is for non-keyed streams; use window() on a KeyedStream."
            )
        keyed: KeyedStream = data_stream.key_by(_null_byte_key)
        super().__init__(keyed, window_assigner)

    def _parallelism(self) -> int | None:
        return 1

    def _operator_name(self, fn1: str, fn2: str | None, state_descriptor: str, method: str) -> str:
        desc = f"{state_descriptor}{{name=window-contents}}"
        evictor = f"{self._evictor}, " if self._evictor is not None else ""
        return (
            f"TriggerWindow({self._assigner}, {desc}, {self._trigger}, {evictor}"
            f"AllWindowedStream.{_call_location()})"
        )


def _null_byte_key(value: Any) -> int:
    """Flink's ``NullByteKeySelector``: every record has the key ``(byte) 0``."""
    return 0
