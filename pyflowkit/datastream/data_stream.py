"""``DataStream`` and ``DataStreamSink`` (PyFlink's ``pyflink.datastream.data_stream``).

Every call records a Transformation (``pyflowkit.graph.transformations``) exactly as Flink 1.11's
``DataStream``/``SingleOutputStreamOperator`` do: names, captured parallelism, chaining strategy.
Bad input raises before anything is recorded or changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from pyflowkit.common.typeinfo import PickledBytesTypeInfo, TypeInformation
from pyflowkit.datastream._util import check_function, check_type_info, has_class_in_mro
from pyflowkit.datastream.output_tag import OutputTag
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    UnsupportedOperationException,
)
from pyflowkit.graph.partitioner import (
    BroadcastPartitioner,
    CustomPartitionerWrapper,
    ForwardPartitioner,
    GlobalPartitioner,
    RebalancePartitioner,
    RescalePartitioner,
    ShufflePartitioner,
    StreamPartitioner,
)
from pyflowkit.graph.transformations import (
    CacheTransformation,
    ChainingStrategy,
    LegacySourceTransformation,
    OneInputTransformation,
    OperatorFactory,
    PartitionTransformation,
    PhysicalTransformation,
    SideOutputTransformation,
    SinkTransformation,
    Transformation,
    UnionTransformation,
    validate_max_parallelism,
    validate_parallelism,
)

if TYPE_CHECKING:
    from pyflowkit.datastream.keyed_stream import KeyedStream
    from pyflowkit.datastream.stream_execution_environment import StreamExecutionEnvironment
    from pyflowkit.datastream.windowed_stream import AllWindowedStream

COLLECT_SINK_NAME = "Data stream collect sink"  # DataStreamUtils.collect (Flink 1.11)


def _display_name(t: Transformation) -> str:
    if isinstance(t, LegacySourceTransformation) or type(t).__name__ == "SourceTransformation":
        return f"Source: {t.name}"
    if isinstance(t, SinkTransformation):
        return f"Sink: {t.name}"
    return t.name


class _OperatorSettings:
    """Operator settings shared by DataStream and DataStreamSink (``SingleOutputStreamOperator``)."""

    _transformation: Transformation
    _env: StreamExecutionEnvironment

    def _physical(self, what: str) -> PhysicalTransformation:
        t = self._transformation
        if not isinstance(t, PhysicalTransformation):
            raise UnsupportedOperationException(
                f"{what} is only available on an operator (source, map, process, sink …), not on "
                f"the result of {t.name.lower()}() ({type(t).__name__} {t.id})."
            )
        return t

    def name(self, name: str) -> Any:
        """Flink's ``name``: a source becomes ``Source: <name>``, a sink ``Sink: <name>``."""
        t = self._physical("name()")
        if not isinstance(name, str):
            raise IllegalArgumentException(
                f"The name of operator '{_display_name(t)}' must be a string, got {name!r}."
            )
        t.name = name
        return self

    def get_name(self) -> str:
        return self._transformation.name

    def uid(self, uid: str) -> Any:
        t = self._physical("uid()")
        if not isinstance(uid, str) or not uid:
            raise IllegalArgumentException(
                f"The uid of operator '{_display_name(t)}' must be a non-empty string, got {uid!r}."
            )
        for other in self._env._all_transformations:
            if other is not t and other.uid == uid:
                raise IllegalArgumentException(
                    f'Hash collision on user-specified ID "{uid}". Most likely cause is a '
                    "non-unique ID. Please check that all IDs specified via `uid(String)` are "
                    f"unique. (operators '{_display_name(other)}' and '{_display_name(t)}')"
                )
        t.set_uid(uid)
        return self

    def set_uid_hash(self, uid_hash: str) -> Any:
        t = self._physical("set_uid_hash()")
        t.set_uid_hash(uid_hash)
        return self

    def set_parallelism(self, parallelism: int) -> Any:
        t = self._physical("set_parallelism()")
        validate_parallelism(parallelism, _display_name(t))
        if isinstance(t, LegacySourceTransformation) and not t.parallel and parallelism != 1:
            raise IllegalArgumentException(
                f"The parallelism of non parallel operator must be 1. Operator "
                f"'{_display_name(t)}' is a non-parallel source and cannot run with "
                f"parallelism {parallelism}."
            )
        max_p = t.max_parallelism if t.max_parallelism > 0 else self._env.get_max_parallelism()
        if max_p > 0 and parallelism > max_p:
            raise IllegalArgumentException(
                f"Operator '{_display_name(t)}''s parallelism ({parallelism}) is higher than the "
                f"max parallelism ({max_p}). Please lower the parallelism or increase the max "
                "parallelism."
            )
        t.parallelism = parallelism
        t.parallelism_configured = True
        return self

    def set_max_parallelism(self, max_parallelism: int) -> Any:
        t = self._physical("set_max_parallelism()")
        validate_max_parallelism(max_parallelism, _display_name(t))
        if t.parallelism > max_parallelism:
            raise IllegalArgumentException(
                f"Operator '{_display_name(t)}''s parallelism ({t.parallelism}) is higher than the "
                f"max parallelism ({max_parallelism}). Please lower the parallelism or increase "
                "the max parallelism."
            )
        t.max_parallelism = max_parallelism
        return self

    def disable_chaining(self) -> Any:
        """``disableChaining``: ChainingStrategy NEVER."""
        self._physical("disable_chaining()").set_chaining_strategy(ChainingStrategy.NEVER)
        return self

    def start_new_chain(self) -> Any:
        """``startNewChain``: ChainingStrategy HEAD."""
        self._physical("start_new_chain()").set_chaining_strategy(ChainingStrategy.HEAD)
        return self

    def slot_sharing_group(self, slot_sharing_group: Any) -> Any:
        """A group name, or a ``SlotSharingGroup`` whose resources are registered by name."""
        t = self._physical("slot_sharing_group()")
        from pyflowkit.datastream.slot_sharing_group import SlotSharingGroup

        if isinstance(slot_sharing_group, SlotSharingGroup):
            self._env.register_slot_sharing_group(slot_sharing_group)
            slot_sharing_group = slot_sharing_group.get_name()
        if not isinstance(slot_sharing_group, str) or not slot_sharing_group:
            raise IllegalArgumentException(
                f"The slot sharing group of operator '{_display_name(t)}' must be a non-empty "
                f"string, got {slot_sharing_group!r}."
            )
        t.slot_sharing_group = slot_sharing_group
        return self

    def set_buffer_timeout(self, timeout_millis: int) -> Any:
        t = self._physical("set_buffer_timeout()")
        if isinstance(timeout_millis, bool) or not isinstance(timeout_millis, int):
            raise IllegalArgumentException(
                f"Buffer timeout of operator '{_display_name(t)}' must be an int, got "
                f"{timeout_millis!r}."
            )
        if timeout_millis < -1:
            raise IllegalArgumentException(
                f"timeout must be >= -1 (operator '{_display_name(t)}', got {timeout_millis})."
            )
        t.buffer_timeout = timeout_millis
        return self

    def set_description(self, description: str) -> Any:
        self._physical("set_description()").description = description
        return self


class KeyedStreamRequired(UnsupportedOperationException, AttributeError):
    """A KeyedStream method called on a non-keyed DataStream (an AttributeError, as in PyFlink)."""


_ALL = ", or {}(...) for the whole stream at parallelism 1"
# KeyedStream-only methods → the non-keyed alternative named in the error
_KEYED_ONLY = {
    "window": _ALL.format("window_all"),
    "count_window": _ALL.format("count_window_all"),
    "reduce": "",
    "sum": "",
    "min": "",
    "max": "",
    "min_by": "",
    "max_by": "",
}


class DataStream(_OperatorSettings):
    """PyFlink's ``DataStream`` (Flink's ``DataStream`` + ``SingleOutputStreamOperator``)."""

    def __init__(self, env: StreamExecutionEnvironment, transformation: Transformation) -> None:
        self._env = env
        self._transformation = transformation

    def __getattr__(self, name: str) -> Any:
        """A KeyedStream-only method on a non-keyed stream: say so, instead of a bare
        AttributeError (Java rejects the call at compile time)."""
        alternative = _KEYED_ONLY.get(name)
        if alternative is None or name.startswith("_"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        raise KeyedStreamRequired(
            f"{name}() is a KeyedStream method and '{self._transformation.name}' is not keyed: "
            f"call key_by(key_selector) first{alternative}."
        )

    # --- accessors ----------------------------------------------------------------------------
    def get_execution_environment(self) -> StreamExecutionEnvironment:
        return self._env

    def get_transformation(self) -> Transformation:
        return self._transformation

    def get_type(self) -> TypeInformation:
        t = self._transformation.output_type
        return t if t is not None else PickledBytesTypeInfo()

    def get_parallelism(self) -> int:
        return self._transformation.parallelism

    def get_max_parallelism(self) -> int:
        return self._transformation.max_parallelism

    def get_execution_config(self) -> Any:
        """PyFlink's ``get_execution_config``: the environment's ``ExecutionConfig``."""
        return self._env.get_config()

    def force_non_parallel(self) -> DataStream:
        """``forceNonParallel``: parallelism and max parallelism 1."""
        t = self._physical("force_non_parallel()")
        t.parallelism = 1
        t.parallelism_configured = True
        t.max_parallelism = 1
        return self

    # --- building blocks ----------------------------------------------------------------------
    def _key_selector(self) -> tuple[Callable[[Any], Any] | None, Any]:
        """(state key selector, key type) when this stream is keyed; DataStream is not."""
        return None, None

    def _input_transformation(self) -> Transformation:
        return self._transformation

    def _one_input(
        self,
        name: str,
        operator_class: str,
        params: dict[str, Any],
        output_type: TypeInformation | None,
        strategy: ChainingStrategy = ChainingStrategy.ALWAYS,
        parallelism: int | None = None,
    ) -> OneInputTransformation:
        """Flink's ``DataStream.doTransform``: captures the env parallelism now; keyed if keyed."""
        t = OneInputTransformation(
            self._input_transformation(),
            name,
            OperatorFactory(operator_class, strategy, params),
            output_type,
            self._env.get_parallelism() if parallelism is None else parallelism,
        )
        self._add_keyed(t)
        return t

    def _add_keyed(self, t: OneInputTransformation | SinkTransformation) -> None:
        """Adds an operator or sink; on a keyed stream it gets the key (``setStateKeySelector``)."""
        selector, key_type = self._key_selector()
        if selector is not None:
            t.state_key_selector = selector
            t.state_key_type = key_type
        self._env._add_operator(t)

    def _wrap(self, t: Transformation) -> DataStream:
        return DataStream(self._env, t)

    # --- one-input operators ------------------------------------------------------------------
    def map(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        check_function(func, ("map",), "map()", "MapFunction")
        check_type_info(output_type, "map()")
        return self._wrap(self._one_input("Map", "StreamMap", {"function": func}, output_type))

    def flat_map(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        check_function(func, ("flat_map",), "flat_map()", "FlatMapFunction")
        check_type_info(output_type, "flat_map()")
        t = self._one_input("Flat Map", "StreamFlatMap", {"function": func}, output_type)
        return self._wrap(t)

    def filter(self, func: Any) -> DataStream:
        check_function(func, ("filter",), "filter()", "FilterFunction")
        t = self._one_input(
            "Filter", "StreamFilter", {"function": func}, self._transformation.output_type
        )
        return self._wrap(t)

    def process(self, func: Any, output_type: TypeInformation | None = None) -> DataStream:
        """``process(ProcessFunction)``: ``Process``; side outputs are yielded (tag, value)."""
        check_function(func, ("process_element",), "process()", "ProcessFunction")
        check_type_info(output_type, "process()")
        if has_class_in_mro(func, "KeyedProcessFunction"):
            raise IllegalArgumentException(
                "process() with a KeyedProcessFunction needs a keyed stream: call "
                "key_by(...) first."
            )
        t = self._one_input("Process", "ProcessOperator", {"function": func}, output_type)
        return self._wrap(t)

    def project(self, *field_indexes: int) -> DataStream:
        """Flink's ``project``: a ``Projection`` operator keeping the given tuple fields.

        (Flink's ``StreamProject``; hosted here by the ``StreamMap`` operator, same chaining.)
        """
        from pyflowkit.common.typeinfo import TupleTypeInfo

        in_type = self._transformation.output_type
        if not isinstance(in_type, TupleTypeInfo):
            raise UnsupportedOperationException(
                "Only Tuple DataStreams can be projected. (operator "
                f"'{_display_name(self._transformation)}' produces {self.get_type()}: declare "
                "output_type=Types.TUPLE([...]))"
            )
        if not field_indexes:
            raise IllegalArgumentException("project() needs to select at least one (1) field.")
        arity = in_type.get_arity()
        for index in field_indexes:
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < arity:
                raise IndexError(
                    "Provided field index is out of bounds of input type. (index "
                    f"{index!r}, {in_type})"
                )
        out_type = TupleTypeInfo([in_type.get_field_types()[i] for i in field_indexes])
        fn = TupleProjection(field_indexes)
        return self._wrap(self._one_input("Projection", "StreamMap", {"function": fn}, out_type))

    def assign_timestamps_and_watermarks(self, watermark_strategy: Any) -> DataStream:
        """``Timestamps/Watermarks`` at the input's parallelism (Flink sets it explicitly)."""
        from pyflowkit.common.watermark_strategy import WatermarkStrategy

        if not isinstance(watermark_strategy, WatermarkStrategy):
            raise IllegalArgumentException(
                "assign_timestamps_and_watermarks() needs a WatermarkStrategy, got "
                f"{watermark_strategy!r}."
            )
        t = self._one_input(
            "Timestamps/Watermarks",
            "TimestampsAndWatermarksOperator",
            {"watermark_strategy": watermark_strategy},
            self._transformation.output_type,
            parallelism=self._transformation.parallelism,
        )
        return self._wrap(t)

    # --- keying, connecting, union ------------------------------------------------------------
    def key_by(self, key_selector: Any, key_type: TypeInformation | None = None) -> KeyedStream:
        from pyflowkit.datastream.keyed_stream import KeyedStream

        return KeyedStream._create(self, key_selector, key_type)

    def union(self, *streams: DataStream) -> DataStream:
        """Flink's ``union``: no node; the downstream operator gets one in-edge per input."""
        inputs = [self._transformation]
        for s in streams:
            if not isinstance(s, DataStream):
                raise IllegalArgumentException(f"union() takes DataStreams, got {s!r}.")
            if s._env is not self._env:
                raise IllegalArgumentException(
                    f"Cannot union streams from different execution environments: "
                    f"'{_display_name(s._transformation)}' belongs to another "
                    "StreamExecutionEnvironment."
                )
            if s.get_type() != self.get_type():
                raise IllegalArgumentException(
                    f"Cannot union streams of different types: {self.get_type()} and "
                    f"{s.get_type()} ('{_display_name(self._transformation)}' and "
                    f"'{_display_name(s._transformation)}')."
                )
            inputs.append(s._transformation)
        return DataStream(self._env, UnionTransformation(inputs))

    def connect(self, ds: Any) -> Any:
        """``ConnectedStreams``; with a ``BroadcastStream``, a ``BroadcastConnectedStream``."""
        from pyflowkit.datastream.broadcast_stream import BroadcastConnectedStream, BroadcastStream
        from pyflowkit.datastream.connected_streams import ConnectedStreams

        if isinstance(ds, BroadcastStream):
            if ds.get_execution_environment() is not self._env:
                raise IllegalArgumentException(
                    "Cannot connect streams from different execution environments."
                )
            return BroadcastConnectedStream(self, ds, ds.broadcast_state_descriptors)
        if not isinstance(ds, DataStream):
            raise IllegalArgumentException(
                f"connect() takes a DataStream, got {type(ds).__name__}: {ds!r}."
            )
        if ds._env is not self._env:
            raise IllegalArgumentException(
                "Cannot connect streams from different execution environments: "
                f"'{_display_name(ds._transformation)}' belongs to another "
                "StreamExecutionEnvironment."
            )
        return ConnectedStreams(self, ds)

    # --- partitioning -------------------------------------------------------------------------
    def _partition(self, partitioner: StreamPartitioner) -> DataStream:
        return DataStream(self._env, PartitionTransformation(self._transformation, partitioner))

    def forward(self) -> DataStream:
        return self._partition(ForwardPartitioner())

    def rebalance(self) -> DataStream:
        return self._partition(RebalancePartitioner())

    def rescale(self) -> DataStream:
        return self._partition(RescalePartitioner())

    def shuffle(self) -> DataStream:
        return self._partition(ShufflePartitioner())

    def broadcast(self, *broadcast_state_descriptors: Any) -> Any:
        """BROADCAST partitioning; with ``MapStateDescriptor``s, a ``BroadcastStream`` carrying
        those broadcast states (Flink's ``broadcast(MapStateDescriptor...)``)."""
        if not broadcast_state_descriptors:
            return self._partition(BroadcastPartitioner())
        from pyflowkit.datastream.broadcast_stream import (
            BroadcastStream,
            check_broadcast_descriptors,
        )

        descriptors = check_broadcast_descriptors(broadcast_state_descriptors)
        return BroadcastStream(self._partition(BroadcastPartitioner()), descriptors)

    def global_(self) -> DataStream:
        """Flink's ``global()``: every record to the first downstream subtask."""
        return self._partition(GlobalPartitioner())

    def partition_custom(self, partitioner: Any, key_selector: Any) -> DataStream:
        check_function(partitioner, ("partition",), "partition_custom()", "Partitioner")
        check_function(key_selector, ("get_key",), "partition_custom()", "KeySelector")
        selector = getattr(key_selector, "get_key", key_selector)
        return self._partition(CustomPartitionerWrapper(partitioner, selector))

    # --- side outputs -------------------------------------------------------------------------
    def get_side_output(self, output_tag: OutputTag) -> DataStream:
        if not isinstance(output_tag, OutputTag):
            raise IllegalArgumentException(
                f"get_side_output() needs an OutputTag, got {output_tag!r}."
            )
        t = self._physical("get_side_output()")
        requested = self._env._requested_side_outputs.setdefault(t.id, {})
        known = requested.get(output_tag.tag_id)
        if known is not None and known != output_tag.type_info:
            raise UnsupportedOperationException(
                "A side output with a matching id was already requested with a different type. "
                "This is not allowed, side output ids need to be unique. "
                f"(operator '{_display_name(t)}', side output '{output_tag.tag_id}')"
            )
        requested[output_tag.tag_id] = output_tag.type_info
        return DataStream(self._env, SideOutputTransformation(t, output_tag))

    # --- caching -------------------------------------------------------------------------------
    def cache(self) -> CachedDataStream:
        """Cache this stream's records: a BATCH job writes them (``CacheWrite``) and later jobs of
        this environment read them back (``CacheRead``) instead of recomputing them.

        Flink's ``DataStream.cache()`` (1.16+): only in batch execution (``BATCH``, or
        ``AUTOMATIC`` with bounded sources); a STREAMING job computes the stream as usual and
        caches nothing. ``CachedDataStream.invalidate()`` / ``env.close()`` drop the cache.
        """
        t = self._transformation
        if not isinstance(t, (PhysicalTransformation, SideOutputTransformation)):
            raise IllegalStateException(
                "Cache can only be called with physical transformation or side output "
                f"transformation; '{_display_name(t)}' is a {type(t).__name__} (cache the stream "
                "before partitioning or union, or the operator after it)."
            )
        params = {"cache_write": True, "collect": True}
        cache = CacheTransformation(t, OperatorFactory("StreamSink", ChainingStrategy.HEAD, params))
        self._env._register_cache(cache)
        return CachedDataStream(self._env, cache)

    # --- windows on the whole stream ----------------------------------------------------------
    def window_all(self, window_assigner: Any) -> AllWindowedStream:
        from pyflowkit.datastream.windowed_stream import AllWindowedStream

        return AllWindowedStream(self, window_assigner)

    def count_window_all(self, size: int, slide: int = 0) -> AllWindowedStream:
        from pyflowkit.datastream.windowed_stream import AllWindowedStream, count_window_parts

        assigner, trigger, evictor = count_window_parts(size, slide, "count_window_all()")
        stream = AllWindowedStream(self, assigner)
        stream._trigger = trigger
        stream._evictor = evictor
        return stream

    # --- sinks --------------------------------------------------------------------------------
    def _sink(
        self,
        name: str,
        params: dict[str, Any],
        parallelism: int | None = None,
        strategy: ChainingStrategy = ChainingStrategy.ALWAYS,
    ) -> DataStreamSink:
        t = SinkTransformation(
            self._transformation,
            name,
            OperatorFactory("StreamSink", strategy, params),
            self._env.get_parallelism() if parallelism is None else parallelism,
        )
        self._add_keyed(t)
        return DataStreamSink(self._env, t)

    def print(self, sink_identifier: str | None = None) -> DataStreamSink:
        """``print()``: ``Sink: Print to Std. Out`` (PrintSinkFunction)."""
        if sink_identifier is not None and not isinstance(sink_identifier, str):
            raise IllegalArgumentException(
                f"print(): sink_identifier must be a string, got {sink_identifier!r}."
            )
        params = {"sink_identifier": sink_identifier, "print_to_err": False}
        return self._sink("Print to Std. Out", params)

    def print_to_err(self, sink_identifier: str | None = None) -> DataStreamSink:
        """Flink's ``printToErr()``: ``Sink: Print to Std. Err``."""
        params = {"sink_identifier": sink_identifier, "print_to_err": True}
        return self._sink("Print to Std. Err", params)

    def add_sink(self, sink_func: Any) -> DataStreamSink:
        """``addSink``: ``Sink: Unnamed`` unless named."""
        check_function(sink_func, ("invoke",), "add_sink()", "SinkFunction")
        return self._sink("Unnamed", {"function": sink_func})

    def sink_to(self, sink: Any) -> DataStreamSink:
        """``sinkTo`` (unified Sink API, Flink 1.12): ``Sink Writer: Sink`` and, for sinks that
        commit, ``Sink Committer: Sink`` (see ``pyflowkit.datastream.sink_topology``)."""
        from pyflowkit.datastream.sink_topology import sink_to

        return sink_to(self, sink)

    def execute_and_collect(
        self, job_execution_name: str | None = None, limit: int | None = None, *, spark: Any = None
    ) -> Any:
        """Adds a collect sink, executes, returns a CloseableIterator (a list with ``limit``).

        ``spark`` (pyflowkit's addition): an existing ``SparkSession`` to run on.
        """
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0
        ):
            raise IllegalArgumentException(f"Limit should be positive, got {limit!r}.")
        sink = self._sink(COLLECT_SINK_NAME, {"collect": True}, 1, ChainingStrategy.NEVER)
        running = self._env._start_streaming_job(job_execution_name, spark)
        if running is not None:  # an unbounded job on Spark: records as they arrive
            records = running.collect_iterator(limit)
            return list(records) if limit is not None else CloseableIterator(records)
        if spark is None:
            result = self._env.execute(job_execution_name)
        else:
            result = self._env.execute(job_execution_name, spark=spark)
        node_id = sink._transformation.id
        by_node = getattr(result, "results_by_node", None) or {}
        if node_id in by_node:
            values = list(by_node[node_id])
        else:
            values = list(result.results.get(COLLECT_SINK_NAME, []))
        if limit is not None:
            return values[:limit]
        return CloseableIterator(iter(values))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._transformation!r})"


class CachedDataStream(DataStream):
    """PyFlink's ``CachedDataStream``: a stream whose records are cached by the first BATCH job
    that computes them and replayed by later jobs (Flink's ``CachedDataStream``)."""

    def __init__(self, env: StreamExecutionEnvironment, transformation: Transformation) -> None:
        super().__init__(env, transformation)

    def invalidate(self) -> None:
        """Drop the cached records; a later job recomputes (and, in batch, re-caches) them."""
        self._env._invalidate_cache(self._transformation)

    def _unsupported(self, what: str) -> UnsupportedOperationException:
        return UnsupportedOperationException(
            f"{what} for CachedDataStream is not supported. Set it on the operator before cache()."
        )

    def set_parallelism(self, parallelism: int) -> Any:
        raise self._unsupported("Set parallelism")

    def name(self, name: str) -> Any:
        raise self._unsupported("Set name")

    def get_name(self) -> str:
        raise UnsupportedOperationException("Get name of CachedDataStream is not supported.")

    def uid(self, uid: str) -> Any:
        raise self._unsupported("Set uid")

    def set_uid_hash(self, uid_hash: str) -> Any:
        raise self._unsupported("Set uid hash")

    def set_max_parallelism(self, max_parallelism: int) -> Any:
        raise self._unsupported("Set max parallelism")

    def force_non_parallel(self) -> Any:
        raise self._unsupported("Set force non-parallel")

    def set_buffer_timeout(self, timeout_millis: int) -> Any:
        raise self._unsupported("Set buffer timeout")

    def start_new_chain(self) -> Any:
        raise self._unsupported("Start new chain")

    def disable_chaining(self) -> Any:
        raise self._unsupported("Disable chaining")

    def slot_sharing_group(self, slot_sharing_group: Any) -> Any:
        raise self._unsupported("Setting slot sharing group")


class DataStreamSink(_OperatorSettings):
    """PyFlink's ``DataStreamSink``: settings of a sink operator."""

    def __init__(self, env: StreamExecutionEnvironment, transformation: SinkTransformation) -> None:
        self._env = env
        self._transformation = transformation

    def get_transformation(self) -> SinkTransformation:
        return self._transformation  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"DataStreamSink({self._transformation!r})"


class TupleProjection:
    """The record function of ``project``: a tuple of the selected fields (``StreamProject``)."""

    def __init__(self, field_indexes: tuple[int, ...]) -> None:
        self.field_indexes = tuple(field_indexes)

    def map(self, value: Any) -> tuple[Any, ...]:
        return tuple(value[i] for i in self.field_indexes)


class CloseableIterator:
    """PyFlink's ``CloseableIterator`` over collected results; usable in ``with``."""

    def __init__(self, it: Iterator[Any]) -> None:
        self._it = it
        self._closed = False

    def __iter__(self) -> CloseableIterator:
        return self

    def __next__(self) -> Any:
        if self._closed:
            raise StopIteration
        return next(self._it)

    def next(self) -> Any:
        return self.__next__()

    def close(self) -> None:
        """Stop iterating; a running job feeding the iterator is cancelled (Flink's collect)."""
        self._closed = True
        closer = getattr(self._it, "close", None)
        if callable(closer):
            closer()

    def __enter__(self) -> CloseableIterator:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_ELSEWHERE = {
    "KeyedStream": "pyflowkit.datastream.keyed_stream",
    "WindowedStream": "pyflowkit.datastream.windowed_stream",
    "AllWindowedStream": "pyflowkit.datastream.windowed_stream",
    "ConnectedStreams": "pyflowkit.datastream.connected_streams",
    "BroadcastStream": "pyflowkit.datastream.broadcast_stream",
    "BroadcastConnectedStream": "pyflowkit.datastream.broadcast_stream",
}


def __getattr__(name: str) -> Any:
    """PyFlink's ``data_stream`` module holds every stream class; ours live beside it."""
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
