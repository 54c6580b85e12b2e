"""User function classes, named and shaped as PyFlink's ``pyflink.datastream.functions``.

Generator convention (PyFlink's): ``flat_map``/``process_element``/``on_timer`` ``yield`` outputs;
a ``(output_tag, value)`` pair yielded by a process function goes to that side output.
Plain callables are accepted wherever PyFlink accepts them (``resolve_method`` adapts both).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any, Generic, TypeVar

__all__ = [
    "AggregateFunction",
    "BaseBroadcastProcessFunction",
    "BroadcastProcessFunction",
    "KeyedBroadcastProcessFunction",
    "AllWindowFunction",
    "CheckpointListener",
    "CoFlatMapFunction",
    "CoMapFunction",
    "CoProcessFunction",
    "FilterFunction",
    "FlatMapFunction",
    "Function",
    "KeySelector",
    "KeyedCoProcessFunction",
    "KeyedProcessFunction",
    "MapFunction",
    "Partitioner",
    "ProcessAllWindowFunction",
    "ProcessFunction",
    "ProcessWindowFunction",
    "ReduceFunction",
    "RuntimeContext",
    "SinkFunction",
    "SourceFunction",
    "TimeDomain",
    "TimerService",
    "WindowFunction",
]


W = TypeVar("W")
W2 = TypeVar("W2")
IN = TypeVar("IN")
IN1 = TypeVar("IN1")
IN2 = TypeVar("IN2")
OUT = TypeVar("OUT")
KEY = TypeVar("KEY")


class TimeDomain(Enum):
    """PyFlink's ``TimeDomain``: which clock fired a timer."""

    EVENT_TIME = 0
    PROCESSING_TIME = 1


class RuntimeContext(ABC):
    """PyFlink's ``RuntimeContext``: what a function sees of its parallel instance.

    Mirrors Flink's ``RuntimeContext``; ``pyflowkit.operators.runtime_context`` implements it.
    """

    @abstractmethod
    def get_task_name(self) -> str: ...

    @abstractmethod
    def get_number_of_parallel_subtasks(self) -> int: ...

    @abstractmethod
    def get_max_number_of_parallel_subtasks(self) -> int: ...

    @abstractmethod
    def get_index_of_this_subtask(self) -> int: ...

    @abstractmethod
    def get_attempt_number(self) -> int: ...

    @abstractmethod
    def get_task_name_with_subtasks(self) -> str: ...

    @abstractmethod
    def get_job_parameter(self, key: str, default_value: str) -> str: ...

    @abstractmethod
    def get_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_list_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_map_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_reducing_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_aggregating_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_metrics_group(self) -> Any:
        """This operator subtask's ``MetricGroup`` (counters, gauges, meters, distributions)."""


class Function(ABC):
    """PyFlink's ``Function`` (rich function): ``open(runtime_context)`` and ``close()``."""

    def open(self, runtime_context: RuntimeContext) -> None:
        pass

    def close(self) -> None:
        pass


class CheckpointListener(ABC):
    """Flink's ``CheckpointListener``: told when a checkpoint completes (or is aborted)."""

    @abstractmethod
    def notify_checkpoint_complete(self, checkpoint_id: int) -> None: ...

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        pass


class CheckpointedFunction(ABC):
    """Flink's ``CheckpointedFunction``: a function with its own operator (or keyed) state,
    snapshotted with each checkpoint and initialized before ``open``."""

    @abstractmethod
    def snapshot_state(self, context: Any) -> None:
        """``snapshotState(FunctionSnapshotContext)``: write the function's state."""

    @abstractmethod
    def initialize_state(self, context: Any) -> None:
        """``initializeState(FunctionInitializationContext)``: create / restore the state."""


class MapFunction(Function):
    """PyFlink's ``MapFunction``: one output per input."""

    @abstractmethod
    def map(self, value: Any) -> Any: ...


class FlatMapFunction(Function):
    """PyFlink's ``FlatMapFunction``: ``flat_map`` yields zero or more outputs."""

    @abstractmethod
    def flat_map(self, value: Any) -> Iterable[Any] | None: ...


class FilterFunction(Function):
    """PyFlink's ``FilterFunction``: keeps the inputs for which ``filter`` is true."""

    @abstractmethod
    def filter(self, value: Any) -> bool: ...


class ReduceFunction(Function):
    """PyFlink's ``ReduceFunction``: combines two values of the same type."""

    @abstractmethod
    def reduce(self, value1: Any, value2: Any) -> Any: ...


class AggregateFunction(Function):
    """PyFlink's ``AggregateFunction``: accumulator-based aggregation."""

    @abstractmethod
    def create_accumulator(self) -> Any: ...

    @abstractmethod
    def add(self, value: Any, accumulator: Any) -> Any: ...

    @abstractmethod
    def get_result(self, accumulator: Any) -> Any: ...

    def merge(self, acc_a: Any, acc_b: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement merge().")


class KeySelector(Function):
    """PyFlink's ``KeySelector``: extracts the key of a record."""

    @abstractmethod
    def get_key(self, value: Any) -> Any: ...


class NullByteKeySelector(KeySelector):
    """Keys every element with 0, so a non-keyed stream can run a keyed operator.

    Mirrors PyFlink's ``NullByteKeySelector`` (Flink's; the key of ``window_all``)."""

    def get_key(self, value: Any) -> int:
        return 0


class Partitioner(Function):
    """PyFlink's ``Partitioner``: picks a channel for a key (``partition_custom``)."""

    @abstractmethod
    def partition(self, key: Any, num_partitions: int) -> int: ...


class _Clocks(ABC):
    """The two clocks every function context exposes (processing time and watermark)."""

    @abstractmethod
    def current_processing_time(self) -> int: ...

    @abstractmethod
    def current_watermark(self) -> int: ...


class TimerService(_Clocks):
    """PyFlink's ``TimerService``: clocks and timer registration of a process function."""

    @abstractmethod
    def register_processing_time_timer(self, timestamp: int) -> None: ...

    @abstractmethod
    def register_event_time_timer(self, timestamp: int) -> None: ...

    @abstractmethod
    def delete_processing_time_timer(self, timestamp: int) -> None: ...

    @abstractmethod
    def delete_event_time_timer(self, timestamp: int) -> None: ...


class ProcessFunction(Function):
    """PyFlink's ``ProcessFunction``: ``process_element(value, ctx)`` yields outputs."""

    class Context(ABC):
        """``ProcessFunction.Context``: the record's timestamp and the timer service."""

        @abstractmethod
        def timer_service(self) -> TimerService: ...

        @abstractmethod
        def timestamp(self) -> int | None: ...

    @abstractmethod
    def process_element(self, value: Any, ctx: ProcessFunction.Context) -> Iterable[Any] | None: ...


class KeyedProcessFunction(Function):
    """PyFlink's ``KeyedProcessFunction``: per-key processing with state and timers."""

    class Context(ABC):
        """``KeyedProcessFunction.Context``: timestamp, timers and the current key."""

        @abstractmethod
        def timer_service(self) -> TimerService: ...

        @abstractmethod
        def timestamp(self) -> int | None: ...

        @abstractmethod
        def get_current_key(self) -> Any: ...

    class OnTimerContext(Context):
        """``KeyedProcessFunction.OnTimerContext``: adds the firing timer's ``time_domain()``."""

        @abstractmethod
        def time_domain(self) -> TimeDomain: ...

    @abstractmethod
    def process_element(
        self, value: Any, ctx: KeyedProcessFunction.Context
    ) -> Iterable[Any] | None: ...

    def on_timer(
        self, timestamp: int, ctx: KeyedProcessFunction.OnTimerContext
    ) -> Iterable[Any] | None:
        return None


class CoMapFunction(Function):
    """PyFlink's ``CoMapFunction``: ``map1`` for the first input, ``map2`` for the second."""

    @abstractmethod
    def map1(self, value: Any) -> Any: ...

    @abstractmethod
    def map2(self, value: Any) -> Any: ...


class CoFlatMapFunction(Function):
    """PyFlink's ``CoFlatMapFunction``: ``flat_map1``/``flat_map2`` yield outputs."""

    @abstractmethod
    def flat_map1(self, value: Any) -> Iterable[Any] | None: ...

    @abstractmethod
    def flat_map2(self, value: Any) -> Iterable[Any] | None: ...


class CoProcessFunction(Function):
    """PyFlink's ``CoProcessFunction``: ``process_element1/2(value, ctx)`` yield outputs."""

    Context = ProcessFunction.Context

    @abstractmethod
    def process_element1(
        self, value: Any, ctx: ProcessFunction.Context
    ) -> Iterable[Any] | None: ...

    @abstractmethod
    def process_element2(
        self, value: Any, ctx: ProcessFunction.Context
    ) -> Iterable[Any] | None: ...


class KeyedCoProcessFunction(Function):
    """PyFlink's ``KeyedCoProcessFunction``: keyed two-input processing with state and timers."""

    Context = KeyedProcessFunction.Context
    OnTimerContext = KeyedProcessFunction.OnTimerContext

    @abstractmethod
    def process_element1(
        self, value: Any, ctx: KeyedProcessFunction.Context
    ) -> Iterable[Any] | None: ...

    @abstractmethod
    def process_element2(
        self, value: Any, ctx: KeyedProcessFunction.Context
    ) -> Iterable[Any] | None: ...

    def on_timer(
        self, timestamp: int, ctx: KeyedProcessFunction.OnTimerContext
    ) -> Iterable[Any] | None:
        return None


class BaseBroadcastProcessFunction(Function):
    """The functions of the broadcast state pattern: a non-broadcast and a broadcast input.

    Mirrors PyFlink's ``BaseBroadcastProcessFunction`` (Flink's ``BaseBroadcastProcessFunction``).
    """

    class BaseContext(ABC):
        """The current record's timestamp and the clocks."""

        @abstractmethod
        def timestamp(self) -> int | None: ...

        @abstractmethod
        def current_processing_time(self) -> int: ...

        @abstractmethod
        def current_watermark(self) -> int: ...

    class Context(BaseContext):
        """Seen by ``process_broadcast_element``: read-write broadcast state."""

        @abstractmethod
        def get_broadcast_state(self, state_descriptor: Any) -> Any: ...

    class ReadOnlyContext(BaseContext):
        """Seen by ``process_element``: read-only broadcast state."""

        @abstractmethod
        def get_broadcast_state(self, state_descriptor: Any) -> Any: ...


class BroadcastProcessFunction(BaseBroadcastProcessFunction, Generic[IN1, IN2, OUT]):
    """Processes a non-keyed stream connected with a broadcast stream.

    Mirrors PyFlink's ``BroadcastProcessFunction`` (Flink's ``BroadcastProcessFunction``).
    """

    class Context(BaseBroadcastProcessFunction.Context, ABC):
        """``BroadcastProcessFunction.Context``."""

    class ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext, ABC):
        """``BroadcastProcessFunction.ReadOnlyContext``."""

    @abstractmethod
    def process_element(self, value: Any, ctx: Any) -> Iterable[Any] | None: ...

    @abstractmethod
    def process_broadcast_element(self, value: Any, ctx: Any) -> Iterable[Any] | None: ...


class KeyedBroadcastProcessFunction(BaseBroadcastProcessFunction, Generic[KEY, IN1, IN2, OUT]):
    """Processes a keyed stream connected with a broadcast stream (keyed state, timers).

    Mirrors PyFlink's ``KeyedBroadcastProcessFunction`` (Flink's class of that name).
    """

    class Context(BaseBroadcastProcessFunction.Context, ABC):
        """``KeyedBroadcastProcessFunction.Context``; ``apply_to_keyed_state`` as Flink's Java."""

        @abstractmethod
        def apply_to_keyed_state(self, state_descriptor: Any, function: Any) -> None: ...

    class ReadOnlyContext(BaseBroadcastProcessFunction.ReadOnlyContext, ABC):
        """``KeyedBroadcastProcessFunction.ReadOnlyContext``: the key and the timer service."""

        @abstractmethod
        def timer_service(self) -> TimerService: ...

        @abstractmethod
        def get_current_key(self) -> Any: ...

    class OnTimerContext(ReadOnlyContext, ABC):
        """``KeyedBroadcastProcessFunction.OnTimerContext``: which clock fired."""

        @abstractmethod
        def time_domain(self) -> TimeDomain: ...

        @abstractmethod
        def get_current_key(self) -> Any: ...

    @abstractmethod
    def process_element(self, value: Any, ctx: Any) -> Iterable[Any] | None: ...

    @abstractmethod
    def process_broadcast_element(self, value: Any, ctx: Any) -> Iterable[Any] | None: ...

    def on_timer(self, timestamp: int, ctx: Any) -> Iterable[Any] | None:
        return None


class KeyedStateStore(ABC):
    """Keyed state by descriptor: a window's own or the key's global state.

    Mirrors PyFlink's ``KeyedStateStore`` (``ProcessWindowFunction.Context.window_state()`` /
    ``global_state()``)."""

    @abstractmethod
    def get_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_list_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_map_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_reducing_state(self, state_descriptor: Any) -> Any: ...

    @abstractmethod
    def get_aggregating_state(self, state_descriptor: Any) -> Any: ...


class WindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """PyFlink's ``WindowFunction``: ``apply(key, window, inputs)`` yields outputs."""

    @abstractmethod
    def apply(self, key: Any, window: Any, inputs: Iterable[Any]) -> Iterable[Any] | None: ...


class AllWindowFunction(Function, Generic[IN, OUT, W]):
    """PyFlink's ``AllWindowFunction``: ``apply(window, inputs)`` yields outputs."""

    @abstractmethod
    def apply(self, window: Any, inputs: Iterable[Any]) -> Iterable[Any] | None: ...


class PassThroughWindowFunction(WindowFunction[IN, IN, KEY, W]):
    """Emits a window's elements unchanged (PyFlink's / Flink's ``PassThroughWindowFunction``)."""

    def apply(self, key: Any, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        yield from inputs


class PassThroughAllWindowFunction(AllWindowFunction[IN, IN, W]):
    """Emits a window's elements unchanged (PyFlink's ``PassThroughAllWindowFunction``)."""

    def apply(self, window: Any, inputs: Iterable[Any]) -> Iterable[Any]:
        yield from inputs


class ProcessWindowFunction(Function, Generic[IN, OUT, KEY, W]):
    """PyFlink's ``ProcessWindowFunction``: ``process(key, context, elements)`` yields outputs."""

    class Context(_Clocks, Generic[W2]):
        """``ProcessWindowFunction.Context``: window, clocks and per-window/global state."""

        @abstractmethod
        def window(self) -> Any: ...

        @abstractmethod
        def window_state(self) -> KeyedStateStore: ...

        @abstractmethod
        def global_state(self) -> KeyedStateStore: ...

    @abstractmethod
    def process(
        self, key: Any, context: ProcessWindowFunction.Context, elements: Iterable[Any]
    ) -> Iterable[Any] | None: ...

    def clear(self, context: ProcessWindowFunction.Context) -> None:
        pass


class ProcessAllWindowFunction(Function, Generic[IN, OUT, W]):
    """PyFlink's ``ProcessAllWindowFunction``: ``process(context, elements)`` yields outputs."""

    Context = ProcessWindowFunction.Context

    @abstractmethod
    def process(
        self, context: ProcessWindowFunction.Context, elements: Iterable[Any]
    ) -> Iterable[Any] | None: ...

    def clear(self, context: ProcessWindowFunction.Context) -> None:
        pass


def _refuse_java_function(cls: type, base: type, param: str, args: tuple, kwargs: dict) -> None:
    """``SourceFunction('com.acme.MySource')``: PyFlink's Java-class form needs a JVM."""
    given = args[0] if args else kwargs.get(param)
    if cls is base and given is not None:
        from pyflowkit.errors import UnsupportedOperationException

        raise UnsupportedOperationException(
            f"{base.__name__}({given!r}): PyFlink's form wraps a Java {base.__name__}, which needs "
            f"a JVM pyflowkit does not run; subclass {base.__name__} in Python instead."
        )


class SinkFunction(Function):
    """Flink's ``SinkFunction``: ``invoke(value, context)`` per record."""

    def __new__(cls, *args: Any, **kwargs: Any) -> SinkFunction:
        _refuse_java_function(cls, SinkFunction, "sink_func", args, kwargs)
        return super().__new__(cls)

    def __init__(self, sink_func: Any = None) -> None:
        """``sink_func`` is PyFlink's Java function (refused); Python sinks subclass this."""

    class Context(_Clocks):
        """``SinkFunction.Context``: clocks and the record's timestamp."""

        @abstractmethod
        def timestamp(self) -> int | None: ...

    @abstractmethod
    def invoke(self, value: Any, context: SinkFunction.Context) -> None: ...


class SourceFunction(Function):
    """Flink's ``SourceFunction``: ``run(ctx)`` emits via ``ctx.collect``; ``cancel()`` stops it.

    ``run`` may also be a generator (``yield`` values) so a reader can pause it between records.
    """

    class SourceContext(ABC):
        """``SourceFunction.SourceContext``: how a source emits records and watermarks."""

        @abstractmethod
        def collect(self, element: Any) -> None: ...

        @abstractmethod
        def collect_with_timestamp(self, element: Any, timestamp: int) -> None: ...

        @abstractmethod
        def emit_watermark(self, watermark: Any) -> None: ...

    is_parallel: bool = False  # True stands for Flink's ParallelSourceFunction

    def __new__(cls, *args: Any, **kwargs: Any) -> SourceFunction:
        _refuse_java_function(cls, SourceFunction, "source_func", args, kwargs)
        return super().__new__(cls)

    def __init__(self, source_func: Any = None) -> None:
        """``source_func`` is PyFlink's Java function (refused); Python sources subclass this."""

    @abstractmethod
    def run(self, ctx: SourceFunction.SourceContext) -> Any: ...

    def cancel(self) -> None:
        pass


# ---- adapting plain callables (PyFlink accepts lambdas for map/flat_map/filter/reduce/key_by) ----


def _describe(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def resolve_method(fn: Any, method: str, kind: str, operator: str) -> Callable[..., Any]:
    """The callable a user function contributes: ``fn.<method>`` or ``fn`` itself if callable."""
    bound = getattr(fn, method, None)
    if bound is not None and callable(bound):
        return bound
    if callable(fn) and not isinstance(fn, Function):
        return fn
    raise TypeError(
        f"Operator '{operator}' needs a {kind} (with a '{method}' method) or a callable, got "
        f"{_describe(fn)}."
    )


def key_selector_callable(selector: Any) -> Callable[[Any], Any]:
    """A ``KeySelector`` or plain callable as ``value -> key``."""
    if isinstance(selector, KeySelector):
        return selector.get_key
    get_key = getattr(selector, "get_key", None)
    if callable(get_key):
        return get_key
    if callable(selector):
        return selector
    raise TypeError(f"A key selector must be a KeySelector or a callable, got {selector!r}.")
