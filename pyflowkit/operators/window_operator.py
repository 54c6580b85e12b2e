"""The keyed window operator (Flink's ``WindowOperator``) and its evicting variant.

Elements are assigned to windows, added to per-(key, window) state, and a trigger decides when a
pane fires; the window function then sees the pane's contents and results carry the timestamp
``window.max_timestamp()``. Late elements (event time, ``ts + allowed_lateness <= watermark``)
are dropped (``numLateRecordsDropped``) or sent to the late-data side output. Cleanup timers at
``max_timestamp + allowed_lateness`` clear window and trigger state. Merging assigners (sessions)
go through a ``MergingWindowSet``. All state lives in the keyed state backend, so snapshots are
cut by key group.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pyflowkit.common.flink_version import ContinuousTriggerFire, profile_for
from pyflowkit.datastream.functions import KeyedStateStore, NullByteKeySelector
from pyflowkit.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    ValueStateDescriptor,
)
from pyflowkit.datastream.window import (
    MAX_LONG_VALUE,
    EventTimeTrigger,
    Evictor,
    MergingWindowAssigner,
    TimestampedValue,
    Trigger,
    TriggerResult,
    TumblingEventTimeWindows,
    Window,
    WindowAssigner,
)
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    UnsupportedOperationException,
)
from pyflowkit.operators.base import AbstractUdfStreamOperator, StreamOperator
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.merging_window_set import MergingWindowSet
from pyflowkit.operators.output import Output
from pyflowkit.operators.registry import register_operator
from pyflowkit.operators.window_batch import TumblingBatchProcessor
from pyflowkit.operators.window_functions import (
    AggregateApplyWindowFunction,
    InternalWindowFunction,
    ReduceApplyWindowFunction,
    check_aggregate_function,
    reduce_callable,
    second_stage,
)
from pyflowkit.state.time import VOID_NAMESPACE

WINDOW_CONTENTS = "window-contents"
MERGING_WINDOW_SET = "merging-window-set"
TIMER_SERVICE = "window-timers"
NUM_LATE_RECORDS_DROPPED = "numLateRecordsDropped"


class WindowSpec:
    """The validated parameters of a window operator (read from ``OperatorFactory.params``)."""

    def __init__(self, params: dict[str, Any], operator: str, evicting: bool) -> None:
        assigner = params.get("window_assigner")
        if not isinstance(assigner, WindowAssigner):
            raise IllegalArgumentException(
                f"{operator}: window_assigner must be a WindowAssigner, got {assigner!r}."
            )
        trigger = params.get("trigger") or assigner.get_default_trigger()
        if not isinstance(trigger, Trigger):
            raise IllegalArgumentException(
                f"{operator}: trigger must be a Trigger, got {trigger!r}."
            )
        if isinstance(assigner, MergingWindowAssigner) and not trigger.can_merge():
            raise UnsupportedOperationException(
                f"A merging window assigner cannot be used with a trigger that does not support "
                f"merging. ({operator}: {trigger!r})"
            )
        evictor = params.get("evictor")
        if evicting and not isinstance(evictor, Evictor):
            raise IllegalArgumentException(
                f"{operator}: EvictingWindowOperator needs an Evictor, got {evictor!r}."
            )
        lateness = params.get("allowed_lateness") or 0
        if isinstance(lateness, bool) or not isinstance(lateness, int) or lateness < 0:
            raise IllegalArgumentException(
                f"{operator}: the allowed lateness must be a non-negative number of milliseconds "
                f"(got {lateness!r})."
            )
        self.assigner = assigner
        self.trigger = trigger
        self.evictor = evictor if evicting else None
        self.allowed_lateness = lateness
        self.late_data_output_tag = params.get("late_data_output_tag")
        self.state_descriptor, self.function = self._functions(params, operator, evicting)

    @staticmethod
    def _functions(
        params: dict[str, Any], operator: str, evicting: bool
    ) -> tuple[Any, InternalWindowFunction]:
        """(window-contents state descriptor, internal window function) for the params."""
        kind = params.get("window_function_kind") or "pass_through"
        function = params.get("function")
        aggregation = params.get("aggregation")
        if aggregation is not None:
            from pyflowkit.operators.window_aggregators import aggregator_for

            kind, function = "reduce", aggregator_for(aggregation, operator)
        wf = params.get("window_function")
        wf_type = params.get("window_function_type")
        if kind == "reduce":
            reduce = reduce_callable(function, operator)
            stage2 = second_stage(wf, wf_type, operator)
            if evicting:
                return ListStateDescriptor(WINDOW_CONTENTS), ReduceApplyWindowFunction(
                    reduce, stage2
                )
            return ReducingStateDescriptor(WINDOW_CONTENTS, reduce), stage2
        if kind == "aggregate":
            check_aggregate_function(function, operator)
            stage2 = second_stage(wf, wf_type, operator)
            if evicting:
                return ListStateDescriptor(WINDOW_CONTENTS), AggregateApplyWindowFunction(
                    function, stage2
                )
            return AggregatingStateDescriptor(WINDOW_CONTENTS, function), stage2
        if kind in ("apply", "process"):
            target = function if function is not None else wf
            return ListStateDescriptor(WINDOW_CONTENTS), second_stage(target, kind, operator)
        if kind == "pass_through":
            return ListStateDescriptor(WINDOW_CONTENTS), second_stage(None, None, operator)
        raise IllegalArgumentException(
            f"{operator}: unknown window_function_kind {kind!r} (expected 'reduce', 'aggregate', "
            "'apply', 'process' or 'pass_through')."
        )


class _KeyedStateStore(KeyedStateStore):
    """The per-window or global keyed state a ProcessWindowFunction sees (``KeyedStateStore``)."""

    def __init__(self, operator: WindowOperator, namespace_of: Any) -> None:
        self._operator = operator
        self._namespace_of = namespace_of

    def _state(self, descriptor: Any, cls: type) -> Any:
        if not isinstance(descriptor, cls):
            raise IllegalArgumentException(
                f"{self._operator.name}: expected a {cls.__name__}, got {descriptor!r}."
            )
        if descriptor.name in (WINDOW_CONTENTS, MERGING_WINDOW_SET):
            raise IllegalArgumentException(
                f"{self._operator.name}: state name '{descriptor.name}' is reserved by the window "
                "operator."
            )
        return self._operator.backend.get_partitioned_state(descriptor, self._namespace_of())

    def get_state(self, state_descriptor: Any) -> Any:
        return self._state(state_descriptor, ValueStateDescriptor)

    def get_list_state(self, state_descriptor: Any) -> Any:
        return self._state(state_descriptor, ListStateDescriptor)

    def get_map_state(self, state_descriptor: Any) -> Any:
        return self._state(state_descriptor, MapStateDescriptor)

    def get_reducing_state(self, state_descriptor: Any) -> Any:
        return self._state(state_descriptor, ReducingStateDescriptor)

    def get_aggregating_state(self, state_descriptor: Any) -> Any:
        return self._state(state_descriptor, AggregatingStateDescriptor)


class WindowContext:
    """``ProcessWindowFunction.Context`` of the pane being evaluated (Flink's ``WindowContext``)."""

    def __init__(self, operator: WindowOperator) -> None:
        self._operator = operator
        self._window: Window | None = None
        self._window_state = _KeyedStateStore(operator, lambda: self._window)
        self._global_state = _KeyedStateStore(operator, lambda: VOID_NAMESPACE)

    def window(self) -> Any:
        return self._window

    def current_processing_time(self) -> int:
        return self._operator.current_processing_time()

    def current_watermark(self) -> int:
        return self._operator.get_current_watermark()

    def window_state(self) -> _KeyedStateStore:
        return self._window_state

    def global_state(self) -> _KeyedStateStore:
        return self._global_state


class _TriggerContext(Trigger.OnMergeContext):
    """Flink's ``WindowOperator.Context``: timers and trigger state for (key, window)."""

    def __init__(self, operator: WindowOperator) -> None:
        self._operator = operator
        self.window: Window | None = None
        self.merged_windows: list[Window] = []

    @property
    def continuous_trigger_fire(self) -> ContinuousTriggerFire:
        """The job's version rule for continuous triggers' next fire (FLINK-20443)."""
        return profile_for(self._operator.config.flink_version).continuous_trigger

    def get_current_processing_time(self) -> int:
        return self._operator.current_processing_time()

    def get_current_watermark(self) -> int:
        return self._operator.get_current_watermark()

    def get_metric_group(self) -> Any:
        return self._operator.runtime_context.get_metrics_group()

    def register_processing_time_timer(self, time: int) -> None:
        self._operator.timer_service.register_processing_time_timer(self.window, time)

    def register_event_time_timer(self, time: int) -> None:
        self._operator.timer_service.register_event_time_timer(self.window, time)

    def delete_processing_time_timer(self, time: int) -> None:
        self._operator.timer_service.delete_processing_time_timer(self.window, time)

    def delete_event_time_timer(self, time: int) -> None:
        self._operator.timer_service.delete_event_time_timer(self.window, time)

    def get_partitioned_state(self, state_descriptor: Any) -> Any:
        return self._operator.backend.get_partitioned_state(state_descriptor, self.window)

    def merge_partitioned_state(self, state_descriptor: Any) -> None:
        if self.merged_windows:
            state = self._operator.backend.get_partitioned_state(state_descriptor, self.window)
            state.merge_namespaces(self.window, self.merged_windows)

    # -- the operator-facing calls (Flink's Context.onElement/…/clear) --
    def on_element(self, value: Any, timestamp: int | None) -> TriggerResult:
        return self._operator.trigger.on_element(value, timestamp, self.window, self)

    def on_event_time(self, time: int) -> TriggerResult:
        return self._operator.trigger.on_event_time(time, self.window, self)

    def on_processing_time(self, time: int) -> TriggerResult:
        return self._operator.trigger.on_processing_time(time, self.window, self)

    def on_merge(self, merged_windows: list[Window]) -> None:
        self.merged_windows = merged_windows
        self._operator.trigger.on_merge(self.window, self)

    def clear(self) -> None:
        self._operator.trigger.clear(self.window, self)


class _EvictorContext(Evictor.EvictorContext):
    def __init__(self, operator: WindowOperator) -> None:
        self._operator = operator

    def get_current_processing_time(self) -> int:
        return self._operator.current_processing_time()

    def get_current_watermark(self) -> int:
        return self._operator.get_current_watermark()


def _is_side_output(item: Any) -> bool:
    """PyFlink's convention: a function yields ``(output_tag, value)`` for a side output."""
    return type(item) is tuple and len(item) == 2 and type(item[0]).__name__ == "OutputTag"


class WindowOperator(AbstractUdfStreamOperator):
    """Flink's ``WindowOperator``: keyed windows, triggers, lateness, cleanup and merging.

    As in 1.11 it is an ``AbstractUdfStreamOperator`` over the ``InternalWindowFunction``: the
    user function is opened once, closed once by close() or, on failure/cancel, by dispose().
    Checkpoint notifications (complete and aborted) go to the ``InternalWindowFunction``, which,
    like Flink's ``WrappingFunction`` subclasses, is no ``CheckpointListener``: a window function
    never hears of checkpoints, whatever it implements (1.11 forwards only open/close)."""

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.ALWAYS
    evicting: ClassVar[bool] = False

    def __init__(self, params: Mapping[str, Any], name: str = "Window") -> None:
        spec = WindowSpec(dict(params), name, self.evicting)
        super().__init__(spec.function)
        self.name = name
        self.assigner = spec.assigner
        self.trigger = spec.trigger
        self.evictor = spec.evictor
        self.allowed_lateness = spec.allowed_lateness
        self.late_data_output_tag = spec.late_data_output_tag
        self.window_state_descriptor = spec.state_descriptor
        self.internal_function = spec.function
        self._contents_are_list = isinstance(spec.state_descriptor, ListStateDescriptor)
        self.is_merging = isinstance(self.assigner, MergingWindowAssigner)
        self.is_event_time = self.assigner.is_event_time()
        self.metrics[NUM_LATE_RECORDS_DROPPED] = 0
        self._keys_itself = False
        self.timer_service: Any = None
        self.window_state: Any = None
        self.merging_sets_state: Any = None
        self.trigger_context = _TriggerContext(self)
        self.process_context = WindowContext(self)
        self.evictor_context = _EvictorContext(self)
        self._batch_processor: TumblingBatchProcessor | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        return cls(params)

    # ---- lifecycle ----
    def setup(self, environment: TaskEnvironment, config: StreamConfig, output: Output) -> None:
        """A non-keyed ``window_all`` runs on one dummy key (Flink's ``NullByteKeySelector``)."""
        self.name = config.operator_name
        if not config.is_keyed:
            config = dataclasses.replace(config, key_selector=_null_byte_key)
            self._keys_itself = True
        super().setup(environment, config, output)

    def open(self) -> None:
        self.timer_service = self.get_internal_timer_service(TIMER_SERVICE, self)
        backend = self._require_keyed("window state")
        self.window_state = backend.get_or_create_keyed_state(self.window_state_descriptor)
        if self.is_merging:
            self.merging_sets_state = backend.get_or_create_keyed_state(
                ListStateDescriptor(MERGING_WINDOW_SET)
            )
        if (
            not self.evicting
            and type(self.assigner) is TumblingEventTimeWindows
            and type(self.trigger) is EventTimeTrigger
            and self._key_selector1 is not None
        ):
            self._batch_processor = TumblingBatchProcessor(self)
        user = self.internal_function.user_function
        opener = getattr(user, "open", None)
        if callable(opener) and not isinstance(user, type):
            opener(self.runtime_context)

    def _close_function(self) -> None:
        user = self.internal_function.user_function
        closer = getattr(user, "close", None)
        if callable(closer) and not isinstance(user, type):
            closer()

    @property
    def backend(self) -> Any:
        return self.keyed_state_backend

    @property
    def num_late_records_dropped(self) -> int:
        return self.metrics[NUM_LATE_RECORDS_DROPPED]

    # ---- clocks ----
    def current_processing_time(self) -> int:
        return self.get_processing_time()

    def get_current_processing_time(self) -> int:  # the WindowAssignerContext
        return self.get_processing_time()

    def get_runtime_context(self) -> Any:  # the WindowAssignerContext (PyFlink's)
        return self.runtime_context

    def get_current_watermark(self) -> int:
        return self.time_service_manager.current_watermark

    # ---- elements ----
    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        """Tumbling event-time windows with ``EventTimeTrigger`` group the batch by (key, window)."""
        if self._batch_processor is not None and timestamps is not None and values:
            self._batch_processor.process_batch(values, timestamps)
        elif self._keys_itself:
            super().process_batch(values, timestamps)
        else:
            self.process_keyed_batch(values, timestamps)

    def batch_keys_itself(self) -> bool:
        """``process_batch`` sets each record's key (its grouped path or the per-record loop)."""
        return True

    def process_element(self, value: Any, timestamp: int | None) -> None:
        if self._keys_itself:
            self.keyed_state_backend.set_current_key(0)
        element_windows = self.assigner.assign_windows(value, timestamp, self)
        is_skipped = True
        ctx = self.trigger_context
        if self.is_merging:
            merging = self._merging_window_set()
            for window in element_windows:
                actual = merging.add_window(window, self._merge_function)
                if self._is_window_late(actual):
                    merging.retire_window(actual)
                    continue
                is_skipped = False
                state_window = merging.get_state_window(actual)
                if state_window is None:
                    raise IllegalStateException(f"Window {window} is not in in-flight window set.")
                self.window_state.set_current_namespace(state_window)
                self._add(value, timestamp)
                ctx.window = actual
                result = ctx.on_element(value, timestamp)
                self._handle(result, actual)
                self._register_cleanup_timer(actual)
            merging.persist()
        else:
            for window in element_windows:
                if self._is_window_late(window):
                    continue
                is_skipped = False
                self.window_state.set_current_namespace(window)
                self._add(value, timestamp)
                ctx.window = window
                result = ctx.on_element(value, timestamp)
                self._handle(result, window)
                self._register_cleanup_timer(window)
        if is_skipped and self._is_element_late(timestamp):
            if self.late_data_output_tag is not None:
                self.output.collect_side(self.late_data_output_tag, value, timestamp)
            else:
                self.metrics[NUM_LATE_RECORDS_DROPPED] += 1

    def _add(self, value: Any, timestamp: int | None) -> None:
        if self.evicting:
            self.window_state.add(TimestampedValue(value, timestamp))
        else:
            self.window_state.add(value)

    def _handle(self, result: TriggerResult, window: Window) -> None:
        """Fire and/or purge the pane whose state namespace is currently set."""
        if result.is_fire():
            contents = self.window_state.get()
            if self._contents_are_list:
                if contents:  # an empty pane does not fire (Flink: contents == null)
                    self._emit_window_contents(window, contents)
            elif contents is not None:
                self._emit_window_contents(window, [contents])
        if result.is_purge():
            self.window_state.clear()

    def _merge_function(
        self,
        merge_result: Window,
        merged_windows: list[Window],
        state_window_result: Window,
        merged_state_windows: list[Window],
    ) -> None:
        wm = self.get_current_watermark()
        if self.is_event_time and merge_result.max_timestamp() + self.allowed_lateness <= wm:
            raise UnsupportedOperationException(
                "The end timestamp of an event-time window cannot become earlier than the current "
                f"watermark by merging. Current watermark: {wm} window: {merge_result}"
            )
        now = self.current_processing_time()
        if not self.is_event_time and merge_result.max_timestamp() <= now:
            raise UnsupportedOperationException(
                "The end timestamp of a processing-time window cannot become earlier than the "
                f"current processing time by merging. Current processing time: {now} window: "
                f"{merge_result}"
            )
        ctx = self.trigger_context
        ctx.window = merge_result
        ctx.on_merge(merged_windows)
        for merged in merged_windows:
            ctx.window = merged
            ctx.clear()
            self._delete_cleanup_timer(merged)
        ctx.merged_windows = []
        self.window_state.merge_namespaces(state_window_result, merged_state_windows)

    # ---- timers ----
    def process_watermark(self, watermark: int) -> None:
        """Fused tumbling panes fire their due timers in one loop first (``window_batch``)."""
        if self._batch_processor is not None and self._batch_processor.fused:
            self._batch_processor.fire_event_time_timers(watermark)
        super().process_watermark(watermark)

    def on_event_time(self, timer: Any) -> None:
        if self._batch_processor is not None:
            self._batch_processor.on_event_time(timer)
        else:
            self._on_timer(timer, event_time=True)

    def on_processing_time(self, timer: Any) -> None:
        self._on_timer(timer, event_time=False)

    def _on_timer(self, timer: Any, event_time: bool) -> None:
        window = timer.namespace
        ctx = self.trigger_context
        ctx.window = window
        merging = None
        if self.is_merging:
            merging = self._merging_window_set()
            state_window = merging.get_state_window(window)
            if state_window is None:
                return  # a timer of a window that was merged away; its state moved on
            self.window_state.set_current_namespace(state_window)
        else:
            self.window_state.set_current_namespace(window)
        if event_time:
            result = ctx.on_event_time(timer.timestamp)
        else:
            result = ctx.on_processing_time(timer.timestamp)
        self._handle(result, window)
        if self.is_event_time == event_time and self._is_cleanup_time(window, timer.timestamp):
            self._clear_all_state(window, merging)
        if merging is not None:
            merging.persist()

    # ---- helpers (Flink's names) ----
    def _clear_all_state(self, window: Window, merging: MergingWindowSet | None) -> None:
        self.window_state.clear()
        self.trigger_context.window = window
        self.trigger_context.clear()
        self.process_context._window = window
        self.internal_function.clear(window, self.process_context)
        if merging is not None:
            merging.retire_window(window)

    def _merging_window_set(self) -> MergingWindowSet:
        self.merging_sets_state.set_current_namespace(VOID_NAMESPACE)
        return MergingWindowSet(self.assigner, self.merging_sets_state)

    def _is_window_late(self, window: Window) -> bool:
        return self.is_event_time and self._cleanup_time(window) <= self.get_current_watermark()

    def _is_element_late(self, timestamp: int | None) -> bool:
        return (
            self.is_event_time
            and timestamp is not None
            and timestamp + self.allowed_lateness <= self.get_current_watermark()
        )

    def _cleanup_time(self, window: Window) -> int:
        if self.is_event_time:
            cleanup = window.max_timestamp() + self.allowed_lateness
            return cleanup if cleanup >= window.max_timestamp() else MAX_LONG_VALUE
        return window.max_timestamp()

    def _is_cleanup_time(self, window: Window, time: int) -> bool:
        return time == self._cleanup_time(window)

    def _register_cleanup_timer(self, window: Window) -> None:
        cleanup = self._cleanup_time(window)
        if cleanup >= MAX_LONG_VALUE:
            return  # GlobalWindow: no cleanup
        if self.is_event_time:
            self.timer_service.register_event_time_timer(window, cleanup)
        else:
            self.timer_service.register_processing_time_timer(window, cleanup)

    def _delete_cleanup_timer(self, window: Window) -> None:
        cleanup = self._cleanup_time(window)
        if cleanup >= MAX_LONG_VALUE:
            return
        if self.is_event_time:
            self.timer_service.delete_event_time_timer(window, cleanup)
        else:
            self.timer_service.delete_processing_time_timer(window, cleanup)

    def _emit_window_contents(self, window: Window, contents: Any) -> None:
        """Call the window function; results carry the timestamp ``window.max_timestamp()``."""
        if self.evicting:
            outputs = self._evicting_outputs(window, contents)
        else:
            outputs = self._call(window, list(contents))
        ts = window.max_timestamp()
        out = self.output
        for item in outputs:
            if _is_side_output(item):
                out.collect_side(item[0], item[1], ts)
            else:
                out.collect(item, ts)

    def _call(self, window: Window, inputs: list[Any]) -> list[Any]:
        self.process_context._window = window
        return self.internal_function.process(
            self.backend.get_current_key(), window, self.process_context, inputs
        )

    def _evicting_outputs(self, window: Window, contents: list[TimestampedValue]) -> list[Any]:
        """``EvictingWindowOperator.emitWindowContents``: evict, apply, evict, write back."""
        records = list(contents)
        size = len(records)
        self.evictor.evict_before(records, size, window, self.evictor_context)
        outputs = self._call(window, [r.value for r in records])
        self.evictor.evict_after(records, size, window, self.evictor_context)
        # FLINK-4369 workaround: evicted elements are removed from the window state too
        self.window_state.update(records)
        return outputs


class EvictingWindowOperator(WindowOperator):
    """Flink's ``EvictingWindowOperator``: keeps every element so an evictor can remove some."""

    evicting: ClassVar[bool] = True


# Flink's NullByteKeySelector: every element of a non-keyed window has key 0
_null_byte_key = NullByteKeySelector().get_key


register_operator("WindowOperator", WindowOperator)
register_operator("EvictingWindowOperator", EvictingWindowOperator)
