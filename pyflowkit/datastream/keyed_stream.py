"""``KeyedStream`` (PyFlink's ``pyflink.datastream.KeyedStream``, Flink's ``KeyedStream``).

A KeyedStream wraps a ``PartitionTransformation`` with a ``KeyGroupStreamPartitioner`` (HASH);
every operator created on it is keyed (``state_key_selector``/``state_key_type`` are set).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pyflowkit.common.typeinfo import TypeInformation
from pyflowkit.datastream._util import (
    check_function,
    check_type_info,
    has_class_in_mro,
    resolve_field,
    validate_field,
)
from pyflowkit.datastream.aggregations import (
    AccumulateType,
    PositionAggregations,
    aggregation_spec,
)
from pyflowkit.datastream.data_stream import DataStream, _display_name
from pyflowkit.errors import (
    InvalidTypesException,
    UnsupportedOperationException,
)
from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner
from pyflowkit.graph.transformations import ChainingStrategy, PartitionTransformation
from pyflowkit.operators.declared_types import converting_key_selector

if TYPE_CHECKING:
    from pyflowkit.datastream.windowed_stream import WindowedStream


class KeyedStream(PositionAggregations, DataStream):
    """Flink's ``KeyedStream``: records partitioned by key (HASH), keyed state and timers."""

    AccumulateType = AccumulateType

    def __init__(
        self,
        origin: DataStream,
        transformation: PartitionTransformation,
        key_selector: Callable[[Any], Any],
        key_type: TypeInformation | None,
        user_key_selector: Any,
    ) -> None:
        super().__init__(origin._env, transformation)
        self._origin = origin
        self._state_key_selector = key_selector
        self._key_type = key_type
        self._user_key_selector = user_key_selector

    @classmethod
    def _create(
        cls, origin: DataStream, key_selector: Any, key_type: TypeInformation | None
    ) -> KeyedStream:
        check_function(key_selector, ("get_key",), "key_by()", "KeySelector")
        check_type_info(key_type, "key_by()")
        if key_type is not None and not key_type.is_key_type():
            raise InvalidTypesException(
                f"This type ({key_type}) cannot be used as key. (key_by after operator "
                f"'{_display_name(origin._transformation)}': use a basic type, a tuple or a Row "
                "of them as key)"
            )
        selector = getattr(key_selector, "get_key", key_selector)
        if not callable(selector):
            selector = key_selector
        # PyFlink encodes the key with key_type's coder: routing, key context and state all see
        # the converted key (a float key under INT is truncated), and a refused key fails the job
        selector = converting_key_selector(
            selector, key_type, f"key_by after operator '{_display_name(origin._transformation)}'"
        )
        partition = PartitionTransformation(
            origin._transformation, KeyGroupStreamPartitioner(selector, key_type=key_type)
        )
        return cls(origin, partition, selector, key_type, key_selector)

    # --- keyed plumbing -------------------------------------------------------------------------
    def _key_selector(self) -> tuple[Callable[[Any], Any] | None, Any]:
        return self._state_key_selector, self._key_type

    def get_key_selector(self) -> Callable[[Any], Any]:
        return self._state_key_selector

    def get_key_type(self) -> TypeInformation | None:
        return self._key_type

    def get_type(self) -> TypeInformation:
        return self._origin.get_type()

    # --- operator settings are not available on the partitioning itself -----------------------
    def _unsupported(self, what: str) -> UnsupportedOperationException:
        """PyFlink's message (e.g. ``Set name for KeyedStream is not supported.``) + the fix."""
        return UnsupportedOperationException(
            f"{what} for KeyedStream is not supported. key_by() is a partitioning, not an "
            "operator: set it on the operator before or after key_by()."
        )

    def name(self, name: str) -> Any:
        raise self._unsupported("Set name")

    def get_name(self) -> str:
        raise UnsupportedOperationException("Get name of KeyedStream is not supported.")

    def uid(self, uid: str) -> Any:
        raise self._unsupported("Set uid")

    def set_uid_hash(self, uid_hash: str) -> Any:
        raise self._unsupported("Set uid hash")

    def set_parallelism(self, parallelism: int) -> Any:
        raise self._unsupported("Set parallelism")

    def set_max_parallelism(self, max_parallelism: int) -> Any:
        raise self._unsupported("Set max parallelism")

    def disable_chaining(self) -> Any:
        raise self._unsupported("Disable chaining")

    def start_new_chain(self) -> Any:
        raise self._unsupported("Start new chain")

    def slot_sharing_group(self, slot_sharing_group: str) -> Any:
        raise self._unsupported("Setting slot sharing group")

    def set_buffer_timeout(self, timeout_millis: int) -> Any:
        raise self._unsupported("Set buffer timeout")

    def force_non_parallel(self) -> Any:
        raise self._unsupported("Set force non-parallel")

    def cache(self) -> Any:
        """PyFlink refuses it: a KeyedStream is a partitioning, which Flink cannot cache."""
        raise UnsupportedOperationException(
            "Cache for KeyedStream is not supported. Cache the stream before key_by(), or the "
            "result of an operator after it."
        )

    # --- re-partitioning is forbidden ---------------------------------------------------------
    def _no_repartition(self) -> UnsupportedOperationException:
        return UnsupportedOperationException("Cannot override partitioning for KeyedStream.")

    def forward(self) -> DataStream:
        raise self._no_repartition()

    def rebalance(self) -> DataStream:
        raise self._no_repartition()

    def rescale(self) -> DataStream:
        raise self._no_repartition()

    def shuffle(self) -> DataStream:
        raise self._no_repartition()

    def broadcast(self, *broadcast_state_descriptors: Any) -> DataStream:
        raise self._no_repartition()

    def global_(self) -> DataStream:
        raise self._no_repartition()

    def partition_custom(self, partitioner: Any, key_selector: Any) -> DataStream:
        raise self._no_repartition()

    # --- collecting: the key beside the record --------------------------------------------------
    def execute_and_collect(
        self, job_execution_name: str | None = None, limit: int | None = None, *, spark: Any = None
    ) -> Any:
        """``Row(f0=key, f1=record)`` per record, as PyFlink 1.20 yields them.

        PyFlink's ``key_by`` puts a ``_stream_key_by_map_operator`` before the partitioning that
        emits ``Row(key, record)`` typed ``Types.ROW([key_type, type])`` (``PICKLED_BYTE_ARRAY``
        for an undeclared key), and ``KeyedStream`` does not override
        ``DataStream.execute_and_collect``, so the collect sink receives those Rows.
        """
        from pyflowkit.common.typeinfo import PickledBytesTypeInfo, Types
        from pyflowkit.common.types import RowKind, _rebuild_row

        selector = self._state_key_selector
        names = ["f0", "f1"]

        def key_and_record(value: Any) -> Any:
            return _rebuild_row([selector(value), value], names, RowKind.INSERT)

        row_type = Types.ROW_NAMED(
            names, [self._key_type or PickledBytesTypeInfo(), self._origin.get_type()]
        )
        rows = self._origin.map(key_and_record, output_type=row_type)
        rows.name("_stream_key_by_map_operator")
        keyed = KeyedStream._create(rows, lambda row: row[0], self._key_type)
        return DataStream.execute_and_collect(keyed, job_execution_name, limit, spark=spark)

    # --- keyed operators ----------------------------------------------------------------------
    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """``process(KeyedProcessFunction)``: ``KeyedProcess`` (KeyedProcessOperator)."""
        check_function(func, ("process_element",), "KeyedStream.process()", "KeyedProcessFunction")
        check_type_info(output_type, "KeyedStream.process()")
        # Flink 1.11 runs a (non-keyed) ProcessFunction on a KeyedStream as "Process"
        # (LegacyKeyedProcessOperator); a KeyedProcessFunction as "KeyedProcess".
        legacy = has_class_in_mro(func, "ProcessFunction") and not has_class_in_mro(
            func, "KeyedProcessFunction"
        )
        name = "Process" if legacy else "KeyedProcess"
        t = self._one_input(name, "KeyedProcessOperator", {"function": func}, output_type)
        return self._wrap(t)

    def reduce(self, func: Any) -> DataStream:
        """``Keyed Reduce`` (StreamGroupedReduce, HEAD)."""
        check_function(func, ("reduce",), "reduce()", "ReduceFunction")
        t = self._one_input(
            "Keyed Reduce",
            "StreamGroupedReduce",
            {"function": func, "aggregation": None},
            self._origin._transformation.output_type,
            ChainingStrategy.HEAD,
        )
        return self._wrap(t)

    def _aggregation(self, kind: str, field: int | str) -> DataStream:
        type_info = self._origin._transformation.output_type
        validate_field(field, type_info, f"{kind}()", _display_name(self._origin._transformation))
        aggregation = aggregation_spec(kind, resolve_field(field, type_info), type_info)
        t = self._one_input(
            "Keyed Aggregation",
            "StreamGroupedReduce",
            {"function": None, "aggregation": aggregation},
            self._origin._transformation.output_type,
            ChainingStrategy.HEAD,
        )
        return self._wrap(t)

    # --- windows ------------------------------------------------------------------------------
    def window(self, window_assigner: Any) -> WindowedStream:
        from pyflowkit.datastream.windowed_stream import WindowedStream

        return WindowedStream(self, window_assigner)

    def count_window(self, size: int, slide: int = 0) -> WindowedStream:
        """``countWindow(size)`` purges; ``countWindow(size, slide)`` slides (reference §9.4).

        The profile's ``count_window`` rule (COUNT_WINDOW, FLINK-26444) picks the shape: 1.11's
        Java ``countWindow`` (GlobalWindows + CountTrigger + CountEvictor) or PyFlink 1.20's
        ``CountTumblingWindowAssigner`` / ``CountSlidingWindowAssigner``."""
        from pyflowkit.datastream.window.assigners import (
            CountSlidingWindowAssigner,
            CountTumblingWindowAssigner,
        )
        from pyflowkit.datastream.windowed_stream import WindowedStream, count_window_parts

        assigner, trigger, evictor = count_window_parts(size, slide, "count_window()")
        if self._env.get_flink_version_profile().count_window.pyflink_assigners:
            return WindowedStream(
                self,
                CountSlidingWindowAssigner(size, slide)
                if slide
                else CountTumblingWindowAssigner(size),
            )
        stream = WindowedStream(self, assigner)
        stream._trigger = trigger
        stream._evictor = evictor
        return stream

    def __repr__(self) -> str:
        return f"KeyedStream({self._transformation!r})"
