"""The operator lifecycle both runtimes drive (Flink's ``AbstractStreamOperator`` family).

Lifecycle as in Flink 1.11: ``setup`` → ``initialize_state`` → ``open`` → records/watermarks →
``end_input`` → ``close`` → ``dispose``; checkpoints: ``prepare_snapshot_pre_barrier`` →
``snapshot_state`` → ``notify_checkpoint_complete``/``aborted``. Records are ``(value, timestamp)``
pairs; watermarks are ints. Keyed operators get a ``HeapKeyedStateBackend`` and timer services;
the host (``OperatorChain``) sets the key context before each record (``set_key_context_element``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import repeat
from typing import Any, ClassVar

from pyflowkit.common.flink_version import profile_for
from pyflowkit.datastream.functions import CheckpointedFunction, CheckpointListener, Function
from pyflowkit.errors import IllegalStateException, UnsupportedOperationException
from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.context import StreamConfig, TaskEnvironment
from pyflowkit.operators.declared_types import key_check
from pyflowkit.operators.output import Output
from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend
from pyflowkit.state.java_hash import key_hash_function, state_key_function
from pyflowkit.state.operator_state_backend import OperatorStateBackend
from pyflowkit.state.snapshot import OperatorSnapshot
from pyflowkit.state.time import LONG_MIN_VALUE
from pyflowkit.state.timer_service import (
    InternalTimerService,
    InternalTimeServiceManager,
    Triggerable,
)


class StreamOperator:
    """Flink's ``AbstractStreamOperator`` + ``OneInputStreamOperator``: one input.

    Subclasses override ``process_element(value, timestamp)`` (and ``process_batch`` for speed).
    """

    chaining_strategy: ClassVar[ChainingStrategy] = ChainingStrategy.HEAD
    is_two_input: ClassVar[bool] = False
    is_source: ClassVar[bool] = False
    #: ``process_batch(values, timestamps, keys)`` takes the keys selected upstream (a keyed
    #: operator whose batch path selects keys for its own state: ``key_context``)
    takes_carried_keys: ClassVar[bool] = False

    def __init__(self) -> None:
        self.environment: TaskEnvironment | None = None
        self.config: StreamConfig = StreamConfig()
        self.output: Output | None = None
        self.keyed_state_backend: HeapKeyedStateBackend | None = None
        self.operator_state_backend: OperatorStateBackend | None = None
        self.time_service_manager: InternalTimeServiceManager | None = None
        self.current_watermark = LONG_MIN_VALUE
        self.metrics: dict[str, int] = {}
        self._runtime_context: Any = None
        self._key_selector1: Callable[[Any], Any] | None = None
        self._key_selector2: Callable[[Any], Any] | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        """Build from ``OperatorFactory.params`` (see ``pyflowkit.graph.transformations``)."""
        return cls()

    # ---- lifecycle ----
    def setup(self, environment: TaskEnvironment, config: StreamConfig, output: Output) -> None:
        """``setup``: attach the task environment, this operator's config and its output."""
        self.environment = environment
        self.config = config
        self.output = output
        self._key_selector1 = config.key_selector or config.key_selector1
        self._key_selector2 = config.key_selector2

    def initialize_state(self, restored: OperatorSnapshot | None = None) -> None:
        """``initializeState``: create the state backends and load ``restored`` into them."""
        env = self._env
        self.operator_state_backend = OperatorStateBackend()
        if self.config.is_keyed:
            self.keyed_state_backend = HeapKeyedStateBackend(
                env.max_parallelism, env.key_group_range
            )
            self.keyed_state_backend.key_check = key_check(
                self.config.key_type, self.config.operator_name
            )
            keys_by_row = profile_for(self.config.flink_version).key_by.keys_by_row
            self.keyed_state_backend.key_hash = key_hash_function(keys_by_row, self.config.key_type)
            self.keyed_state_backend.state_key = state_key_function(
                keys_by_row, self.config.key_type
            )
            self.time_service_manager = InternalTimeServiceManager(
                self.keyed_state_backend,
                env.processing_time_service,
                env.max_parallelism,
                batch=self.config.is_batch,
            )
        if restored is not None:
            self.operator_state_backend.restore(restored.operator_state)
            if self.keyed_state_backend is not None:
                self.keyed_state_backend.restore(restored.keyed_state)
                self.time_service_manager.restore(restored.timers, env.key_group_range)  # type: ignore[union-attr]
        self.initialize_operator_state(restored is not None)

    def initialize_operator_state(self, is_restored: bool) -> None:
        """Hook for operators with their own state (Flink's ``initializeState(context)``)."""

    def open(self) -> None:
        """``open``: ready to process (user functions are opened here)."""

    def process_element(self, value: Any, timestamp: int | None) -> None:
        raise NotImplementedError(f"{type(self).__name__} does not process elements.")

    def process_batch(self, values: Sequence[Any], timestamps: Sequence[int | None] | None) -> None:
        """Many records at once. The task calls it on a keyed operator only when
        ``batch_keys_itself()``; otherwise it calls ``process_keyed_batch``."""
        process = self.process_element
        if timestamps is None:
            for v in values:
                process(v, None)
            return
        for v, ts in zip(values, timestamps, strict=False):
            process(v, ts)

    def process_keyed_batch(
        self,
        values: Sequence[Any],
        timestamps: Sequence[int | None] | None,
        keys: Sequence[Any] | None = None,
    ) -> None:
        """Flink's ``StreamTaskNetworkOutput.emitRecord`` / ``ChainingOutput.pushToOperator`` per
        record: ``setKeyContextElement`` (the record's key becomes the current key), then
        ``processElement``. The only loop that sets the key context for a batch of records;
        ``keys``: the records' keys selected upstream (made current as they are)."""
        process = self.process_element
        if keys is not None:
            set_current = self.keyed_state_backend.set_current_key  # type: ignore[union-attr]
            stamps = repeat(None) if timestamps is None else timestamps
            for v, ts, k in zip(values, stamps, keys, strict=False):
                set_current(k)
                process(v, ts)
            return
        set_key = self.set_key_context_element1
        if timestamps is None:
            for v in values:
                set_key(v)
                process(v, None)
            return
        for v, ts in zip(values, timestamps, strict=False):
            set_key(v)
            process(v, ts)

    def batch_keys_itself(self) -> bool:
        """Whether ``process_batch`` is correct on a keyed stream without the task setting the key
        context per record: it selects keys itself, or nothing it runs reads the current key.
        Consulted by the task core (``pyflowkit.task.key_context``) after ``open``."""
        return False

    def process_watermark(self, watermark: int) -> None:
        """``processWatermark``: fire due event-time timers, then forward the watermark."""
        self.current_watermark = watermark
        if self.time_service_manager is not None:
            self.time_service_manager.advance_watermark(watermark)
        self.output.emit_watermark(watermark)  # type: ignore[union-attr]

    def end_input(self) -> None:
        """``BoundedOneInput.endInput``: no more records will arrive."""

    def close(self) -> None:
        """``close``: flush buffered data (may still emit)."""

    def dispose(self) -> None:
        """``dispose``: release resources (also after failures; must not emit)."""
        if self.time_service_manager is not None:
            self.time_service_manager.dispose()

    # ---- checkpoints ----
    def prepare_snapshot_pre_barrier(self, checkpoint_id: int) -> None:
        """``prepareSnapshotPreBarrier``: last chance to emit before the barrier goes downstream."""

    def snapshot_state(self, checkpoint_id: int, timestamp: int) -> OperatorSnapshot:
        """``snapshotState``: operator state, keyed state per key group and timers as plain data."""
        self.snapshot_operator_state(checkpoint_id)
        snap = OperatorSnapshot()
        if self.operator_state_backend is not None:
            snap.operator_state = self.operator_state_backend.snapshot()
        if self.keyed_state_backend is not None:
            # the synchronous part marks a version; reading keyed_state serialises it (async)
            snap.defer_keyed_state(self.keyed_state_backend.begin_snapshot())
            snap.timers = self.time_service_manager.snapshot()  # type: ignore[union-attr]
            ttl = self.__dict__.get("_ttl_states")
            if ttl is not None:  # TTL cleanup in full snapshots (expired entries left out)
                snap.keyed_state = ttl.filter_snapshot(snap.keyed_state)
        return snap

    def ttl_states(self) -> Any:
        """The TTL wrappers of this operator's keyed states (Flink's ``TtlStateFactory``)."""
        ttl = self.__dict__.get("_ttl_states")
        if ttl is None:
            from pyflowkit.state.ttl import TtlStates

            ttl = self._ttl_states = TtlStates(self.keyed_state_backend, self.get_processing_time)
        return ttl

    def snapshot_operator_state(self, checkpoint_id: int) -> None:
        """Hook: write own state into ``operator_state_backend`` before a snapshot."""

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """``notifyCheckpointComplete``."""

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        """``notifyCheckpointAborted``."""

    # ---- keys and timers ----
    def set_key_context_element1(self, value: Any) -> None:
        """``setKeyContextElement1``: make the record's key the current key (keyed operators)."""
        self.keyed_state_backend.set_current_key(self._key_selector1(value))  # type: ignore[union-attr,misc]

    def set_key_context_element2(self, value: Any) -> None:
        self.keyed_state_backend.set_current_key(self._key_selector2(value))  # type: ignore[union-attr,misc]

    @property
    def is_keyed(self) -> bool:
        return self.keyed_state_backend is not None

    def set_current_key(self, key: Any) -> None:
        self._require_keyed("set_current_key").set_current_key(key)

    def get_current_key(self) -> Any:
        return self._require_keyed("get_current_key").current_key

    def get_internal_timer_service(
        self, name: str, triggerable: Triggerable
    ) -> InternalTimerService:
        """``getInternalTimerService``: a named keyed timer service (keyed operators only)."""
        if self.time_service_manager is None:
            raise UnsupportedOperationException(
                f"Operator '{self.config.operator_name}': timers are only available on keyed "
                "streams (after key_by())."
            )
        return self.time_service_manager.get_internal_timer_service(name, triggerable)

    def get_partitioned_state(self, descriptor: Any, namespace: Any = None) -> Any:
        return self._require_keyed("get_partitioned_state").get_partitioned_state(
            descriptor, namespace
        )

    def _require_keyed(self, what: str) -> HeapKeyedStateBackend:
        if self.keyed_state_backend is None:
            raise UnsupportedOperationException(
                f"Operator '{self.config.operator_name}': {what} needs keyed state. Keyed state "
                "can only be used on a 'keyed stream', i.e., after a 'keyBy()' operation."
            )
        return self.keyed_state_backend

    @property
    def runtime_context(self) -> Any:
        """Flink's ``StreamingRuntimeContext`` of this operator (created on first use)."""
        if self._runtime_context is None:
            from pyflowkit.operators.runtime_context import StreamingRuntimeContext

            self._runtime_context = StreamingRuntimeContext(self)
        return self._runtime_context

    @property
    def _env(self) -> TaskEnvironment:
        if self.environment is None:
            raise IllegalStateException(
                f"{type(self).__name__} was used before setup(environment, config, output)."
            )
        return self.environment

    def get_processing_time(self) -> int:
        return self._env.processing_time_service.get_current_processing_time()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.config.operator_name!r})"


class CloseOnce:
    """Closes one resource of an operator (a SourceReader, SinkWriter or Committer) exactly once:
    by the operator's close(), or by dispose() when the task failed or was canceled first.

    As ``AbstractUdfStreamOperator``'s function (``FunctionUtils.closeFunction`` in close, again
    in dispose only if not closed): a close() that raises is not retried by dispose.
    """

    __slots__ = ("closed",)

    def __init__(self) -> None:
        self.closed = False

    def close(self, resource: Any) -> None:
        if self.closed:
            return
        self.closed = True
        closer = getattr(resource, "close", None)
        if callable(closer):
            closer()


class ProcessingTimeCallbackOperator(StreamOperator):
    """An operator with one periodic processing-time callback pending at a time.

    Flink's ``ProcessingTimeCallback`` registered on the task's ``ProcessingTimeService``:
    ``_schedule(when)`` arms it, the tick calls ``on_processing_time`` unless ``_cancel()`` stopped
    the operator for good (close/dispose).
    """

    def __init__(self) -> None:
        super().__init__()
        self._timer: Any = None
        self._closed = False

    def _schedule(self, when: int) -> None:
        self._timer = self._env.processing_time_service.register_timer(when, self._tick)

    def _tick(self, timestamp: int) -> None:
        self._timer = None
        if not self._closed:
            self.on_processing_time(timestamp)

    def on_processing_time(self, timestamp: int) -> None:
        """The periodic work; re-arm with ``_schedule`` to keep ticking."""

    def _cancel(self) -> None:
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class AbstractUdfStreamOperator(StreamOperator):
    """Flink's ``AbstractUdfStreamOperator``: opens/closes the user function, forwards notices."""

    def __init__(self, user_function: Any) -> None:
        super().__init__()
        self.user_function = user_function
        self._functions_closed = False

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> StreamOperator:
        return cls(params.get("function"))

    def open(self) -> None:
        opener = getattr(self.user_function, "open", None)
        if callable(opener) and not isinstance(self.user_function, type):
            opener(self.runtime_context)

    @property
    def function_reaches_keyed_state(self) -> bool:
        """Whether the user function can read keyed state: it was handed the runtime context
        (its own ``open``) or a keyed state store (``CheckpointedFunction``). A lambda, a plain
        function or a ``MapFunction`` without ``open`` cannot."""
        fn = self.user_function
        if fn is None or isinstance(fn, type):
            return False
        if isinstance(fn, CheckpointedFunction):
            return True
        opener = getattr(type(fn), "open", None)
        return opener is not None and opener is not Function.open

    @property
    def function_with_state(self) -> CheckpointedFunction | None:
        """The user function if it is a ``CheckpointedFunction`` (``StreamingFunctionUtils``
        snapshots and restores its state around the operator's)."""
        fn = self.user_function
        return fn if isinstance(fn, CheckpointedFunction) else None

    def use_function(self, function: Any) -> None:
        """Run ``function`` (this subtask's own copy of ``function_with_state``) from now on."""
        self.user_function = function
        if getattr(self, "_invoke", None) is not None:
            self._invoke = function.invoke

    def close(self) -> None:
        self._functions_closed = True
        self._close_function()

    def dispose(self) -> None:
        """A function not closed yet (the task failed or was canceled) is closed now (1.11's
        ``FunctionUtils.closeFunction`` in ``dispose``; a raising close() propagates)."""
        super().dispose()
        if not self._functions_closed:
            self._functions_closed = True
            self._close_function()

    def _close_function(self) -> None:
        closer = getattr(self.user_function, "close", None)
        if callable(closer) and not isinstance(self.user_function, type):
            closer()

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        if isinstance(self.user_function, CheckpointListener):
            self.user_function.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        if isinstance(self.user_function, CheckpointListener):
            self.user_function.notify_checkpoint_aborted(checkpoint_id)


class TwoInputStreamOperator(StreamOperator):
    """Flink's ``TwoInputStreamOperator``: ``process_element1/2``; watermark = min of inputs."""

    is_two_input: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self.input1_watermark = LONG_MIN_VALUE
        self.input2_watermark = LONG_MIN_VALUE

    def process_element(self, value: Any, timestamp: int | None) -> None:
        raise UnsupportedOperationException(
            f"{type(self).__name__} has two inputs: use process_element1/process_element2."
        )

    def process_element1(self, value: Any, timestamp: int | None) -> None:
        raise NotImplementedError

    def process_element2(self, value: Any, timestamp: int | None) -> None:
        raise NotImplementedError

    def process_watermark1(self, watermark: int) -> None:
        self.input1_watermark = watermark
        self._combine()

    def process_watermark2(self, watermark: int) -> None:
        self.input2_watermark = watermark
        self._combine()

    def _combine(self) -> None:
        combined = min(self.input1_watermark, self.input2_watermark)
        if combined > self.current_watermark:
            self.process_watermark(combined)

    def end_input(self, input_index: int = 1) -> None:  # type: ignore[override]
        """``BoundedMultiInput.endInput(inputId)``: input 1 or 2 has ended."""


def split_process_output(
    result: Any, output: Output, timestamp: int | None, is_output_tag: Callable[[Any], bool]
) -> None:
    """Emit what a process function returned/yielded: values, or ``(OutputTag, value)`` pairs."""
    if result is None:
        return
    collect = output.collect
    for item in result:
        if type(item) is tuple and len(item) == 2 and is_output_tag(item[0]):
            output.collect_side(item[0], item[1], timestamp)
        else:
            collect(item, timestamp)
