"""Transformations → StreamGraph (Flink 1.11's ``StreamGraphGenerator`` and ``addEdgeInternal``).

Pure: the transformations are read, never mutated; virtual partition/side-output nodes take fresh
ids from ``transformations.new_node_id`` at every generation, as Flink's do.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any

from pyflowkit.common.flink_version import profile_for
from pyflowkit.errors import (
    IllegalArgumentException,
    IllegalStateException,
    UnsupportedOperationException,
)
from pyflowkit.graph.partitioner import (
    ForwardPartitioner,
    KeyGroupStreamPartitioner,
    RebalancePartitioner,
    StreamPartitioner,
)
from pyflowkit.graph.runtime_mode import BATCH, resolve_runtime_mode
from pyflowkit.graph.settings import EnvironmentSettings
from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph, StreamNode
from pyflowkit.graph.transformations import (
    CACHE_CONSUMER_OPERATOR_NAME,
    CACHE_PRODUCER_OPERATOR_NAME,
    PARALLELISM_DEFAULT,
    CacheTransformation,
    LegacySourceTransformation,
    OneInputTransformation,
    PartitionTransformation,
    PhysicalTransformation,
    ShuffleMode,
    SideOutputTransformation,
    SinkTransformation,
    SourceTransformation,
    Transformation,
    TwoInputTransformation,
    UnionTransformation,
    new_node_id,
)
from pyflowkit.state.java_hash import key_hash_function

DEFAULT_SLOT_SHARING_GROUP = "default"

# A coroutine that yields sub-calls and finally returns a value; run by ``trampoline``.
Step = Generator[Any, Any, Any]


def trampoline(root: Step) -> Any:
    """Run a recursive algorithm written as generators without Python's recursion limit.

    A generator ``yield``s a child generator to "call" it and receives the child's return value.
    """
    stack: list[Step] = [root]
    value: Any = None
    while stack:
        try:
            child = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
        else:
            stack.append(child)
            value = None
    return value


def _tag_id(output_tag: Any) -> Any:
    for attr in ("tag_id", "id"):
        value = getattr(output_tag, attr, None)
        if value is not None:
            return value
    return output_tag


def _tag_type(output_tag: Any) -> Any:
    return getattr(output_tag, "type_info", None)


class StreamGraphGenerator:
    """Builds a ``StreamGraph`` from transformations (Flink's ``StreamGraphGenerator``)."""

    def __init__(
        self,
        transformations: list[Transformation],
        settings: EnvironmentSettings,
        job_name: str | None = None,
    ) -> None:
        self.transformations = list(transformations)
        self.settings = settings
        self.job_name = job_name  # None: the version's default (deriveJobName)
        self._already_transformed: dict[int, list[int]] = {}
        self._in_progress: set[int] = set()
        # virtual id -> (original id, partitioner, shuffle mode) / (original id, output tag)
        self._virtual_partition_nodes: dict[int, tuple[int, StreamPartitioner, ShuffleMode]] = {}
        self._virtual_side_output_nodes: dict[int, tuple[int, Any]] = {}
        self._graph: StreamGraph | None = None

    # -- entry -------------------------------------------------------------------------------
    def generate(self) -> StreamGraph:
        """``StreamGraphGenerator.generate``: walk the transformations in order, memoised."""
        s = self.settings
        batch = self._batch()
        name = self.job_name or profile_for(s.flink_version).job_name.default(
            batch, s.configuration
        )
        graph = StreamGraph(
            job_name=name,
            chaining_enabled=s.chaining_enabled,
            time_characteristic=s.time_characteristic,
            runtime_mode=s.runtime_mode,
            checkpoint_config=s.checkpoint,
            restart_strategy=s.restart_strategy,
            execution_config=s,
        )
        if batch:  # configureStreamGraphBatch: the exchanges (BLOCKING since 1.14)
            shuffle = profile_for(s.flink_version).batch_shuffle
            graph.global_data_exchange_mode = shuffle.exchange_mode(s.configuration)
        self._graph = graph
        self._already_transformed.clear()
        self._in_progress.clear()
        self._virtual_partition_nodes.clear()
        self._virtual_side_output_nodes.clear()
        for transformation in self.transformations:
            trampoline(self._transform(transformation))
        graph.job_local_ids = _job_local_ids(self.transformations, graph)
        self._graph = None
        return graph

    # -- dispatch ----------------------------------------------------------------------------
    def _transform(self, t: Transformation) -> Step:
        done = self._already_transformed.get(t.id)
        if done is not None:
            return done
        if t.id in self._in_progress:
            raise IllegalStateException(
                f"Transformation {t.name}-{t.id} is its own input; cycles need an iteration."
            )
        self._in_progress.add(t.id)
        if isinstance(t, (LegacySourceTransformation, SourceTransformation)):
            ids = self._transform_source(t)
        elif isinstance(t, SinkTransformation):
            ids = yield from self._transform_sink(t)
        elif isinstance(t, OneInputTransformation):
            ids = yield from self._transform_one_input(t)
        elif isinstance(t, TwoInputTransformation):
            ids = yield from self._transform_two_input(t)
        elif isinstance(t, UnionTransformation):
            ids = yield from self._transform_union(t)
        elif isinstance(t, PartitionTransformation):
            ids = yield from self._transform_partition(t)
        elif isinstance(t, SideOutputTransformation):
            ids = yield from self._transform_side_output(t)
        elif isinstance(t, CacheTransformation):
            ids = yield from self._transform_cache(t)
        else:
            raise IllegalStateException(f"Unknown transformation: {t!r}")
        self._in_progress.discard(t.id)
        self._already_transformed.setdefault(t.id, ids)
        if isinstance(t, PhysicalTransformation):
            self._copy_settings(t)
        return ids

    def _copy_settings(self, t: PhysicalTransformation) -> None:
        """After dispatch: buffer timeout, uid and user hash onto the node; the UID rule."""
        node = self._graph.nodes[t.id]  # type: ignore[union-attr]
        node.buffer_timeout = (
            t.buffer_timeout if t.buffer_timeout >= 0 else self.settings.buffer_timeout
        )
        node.uid = t.uid
        node.user_hash = t.user_provided_node_hash
        if (
            not self.settings.auto_generated_uids
            and t.uid is None
            and t.user_provided_node_hash is None
        ):
            raise IllegalStateException(
                "Auto generated UIDs have been disabled but no UID or hash has been assigned to "
                f"operator {t.name}"
            )

    # -- physical transformations --------------------------------------------------------------
    def _parallelism(self, t: Transformation) -> int:
        if t.parallelism != PARALLELISM_DEFAULT:
            return t.parallelism
        if isinstance(t, LegacySourceTransformation) and not t.parallel:
            return 1  # DataStreamSource forces non-parallel sources to 1
        return self.settings.parallelism

    def _max_parallelism(self, t: Transformation) -> int:
        if t.max_parallelism > 0:
            return t.max_parallelism
        return self.settings.max_parallelism if self.settings.max_parallelism > 0 else -1

    def _add_node(
        self,
        t: PhysicalTransformation,
        name: str,
        invokable_class: str,
        input_ids: Iterable[int],
    ) -> StreamNode:
        graph = self._graph
        assert graph is not None
        if t.id in graph.nodes:
            raise IllegalStateException(f"Duplicate vertexID {t.id}")
        node = StreamNode(
            id=t.id,
            operator_name=name,
            operator_factory=t.operator_factory,
            parallelism=self._parallelism(t),
            max_parallelism=self._max_parallelism(t),
            slot_sharing_group=self._determine_slot_sharing_group(t.slot_sharing_group, input_ids),
            invokable_class=invokable_class,
            transformation=t,
            output_type=t.output_type,
        )
        graph.nodes[t.id] = node
        return node

    def _transform_source(self, t: LegacySourceTransformation | SourceTransformation) -> list[int]:
        legacy = isinstance(t, LegacySourceTransformation)
        task = "SourceStreamTask" if legacy else "SourceOperatorStreamTask"
        self._add_node(t, "Source: " + t.name, task, ())
        self._graph.sources.append(t.id)  # type: ignore[union-attr]
        return [t.id]

    def _transform_one_input(self, t: OneInputTransformation) -> Step:
        input_ids = yield self._transform(t.input)
        if t.id in self._already_transformed:
            return self._already_transformed[t.id]
        is_source = t.operator_factory.operator_class == "StreamSource"
        node = self._add_node(
            t, t.name, "SourceStreamTask" if is_source else "OneInputStreamTask", input_ids
        )
        if t.state_key_selector is not None:
            node.state_key_selector = t.state_key_selector
            node.state_key_type = t.state_key_type
        for input_id in input_ids:
            self._add_edge(input_id, t.id, 0)
        return [t.id]

    def _transform_sink(self, t: SinkTransformation) -> Step:
        input_ids = yield self._transform(t.input)
        node = self._add_node(t, "Sink: " + t.name, "OneInputStreamTask", input_ids)
        self._graph.sinks.append(t.id)  # type: ignore[union-attr]
        for input_id in input_ids:
            self._add_edge(input_id, t.id, 0)
        if t.state_key_selector is not None:
            node.state_key_selector = t.state_key_selector
            node.state_key_type = t.state_key_type
        return []

    def _transform_cache(self, t: CacheTransformation) -> Step:
        """``CacheTransformationTranslator``: once cached, a ``CacheRead`` source; else, in a
        batch job, a ``CacheWrite`` node beside the input (streaming jobs do not write caches)."""
        graph = self._graph
        assert graph is not None
        if t.reader is not None:
            ids = yield self._transform(t.reader)
            graph.nodes[t.reader.id].operator_name = CACHE_CONSUMER_OPERATOR_NAME
            return ids
        input_ids = yield self._transform(t.input)
        if not self._batch():
            return input_ids
        upstream = graph.nodes[self._resolve_virtual(input_ids[0])]
        t.writer.parallelism = upstream.parallelism  # one CacheWrite subtask per producer subtask
        t.writer.max_parallelism = upstream.max_parallelism
        yield self._transform(t.writer)
        graph.nodes[t.writer.id].operator_name = CACHE_PRODUCER_OPERATOR_NAME
        return input_ids

    def _batch(self) -> bool:
        """``shouldExecuteInBatchMode``: BATCH, or AUTOMATIC with every source bounded."""
        return resolve_runtime_mode(self.settings.runtime_mode, self._source_boundedness) == BATCH

    def _source_boundedness(self) -> Iterable[Any]:
        return (
            getattr(s, "boundedness", None)
            for t in self.transformations
            for s in t.transitive_predecessors()
            if isinstance(s, (LegacySourceTransformation, SourceTransformation))
        )

    def _transform_two_input(self, t: TwoInputTransformation) -> Step:
        input_ids1 = yield self._transform(t.input1)
        input_ids2 = yield self._transform(t.input2)
        if t.id in self._already_transformed:
            return self._already_transformed[t.id]
        node = self._add_node(t, t.name, "TwoInputStreamTask", [*input_ids1, *input_ids2])
        if t.state_key_selector1 is not None or t.state_key_selector2 is not None:
            node.state_key_selector1 = t.state_key_selector1
            node.state_key_selector2 = t.state_key_selector2
            node.state_key_type = t.state_key_type
        for input_id in input_ids1:
            self._add_edge(input_id, t.id, 1)
        for input_id in input_ids2:
            self._add_edge(input_id, t.id, 2)
        return [t.id]

    # -- virtual transformations ---------------------------------------------------------------
    def _transform_union(self, t: UnionTransformation) -> Step:
        result: list[int] = []
        for input_t in t.inputs:
            ids = yield self._transform(input_t)
            result.extend(ids)
        return result

    def _transform_partition(self, t: PartitionTransformation) -> Step:
        input_ids = yield self._transform(t.input)
        result = []
        for input_id in input_ids:
            virtual_id = new_node_id()
            self._virtual_partition_nodes[virtual_id] = (input_id, t.partitioner, t.shuffle_mode)
            result.append(virtual_id)
        return result

    def _transform_side_output(self, t: SideOutputTransformation) -> Step:
        input_ids = yield self._transform(t.input)
        result = []
        for input_id in input_ids:
            virtual_id = new_node_id()
            self._add_virtual_side_output_node(input_id, virtual_id, t.output_tag)
            result.append(virtual_id)
        return result

    def _add_virtual_side_output_node(self, original_id: int, virtual_id: int, tag: Any) -> None:
        """``StreamGraph.addVirtualSideOutputNode``: one type per side-output id and origin."""
        for other_origin, other_tag in self._virtual_side_output_nodes.values():
            if other_origin != original_id:
                continue
            if _tag_id(other_tag) == _tag_id(tag) and _tag_type(other_tag) != _tag_type(tag):
                raise IllegalArgumentException(
                    "Trying to add a side output for the same side-output id with a different "
                    f"type. This is not allowed. Side-output ID: {_tag_id(other_tag)}"
                )
        self._virtual_side_output_nodes[virtual_id] = (original_id, tag)

    def _resolve_virtual(self, node_id: int) -> int:
        while True:
            if node_id in self._virtual_side_output_nodes:
                node_id = self._virtual_side_output_nodes[node_id][0]
            elif node_id in self._virtual_partition_nodes:
                node_id = self._virtual_partition_nodes[node_id][0]
            else:
                return node_id

    # -- slot sharing and edges ----------------------------------------------------------------
    def _determine_slot_sharing_group(self, specified: str | None, input_ids: Iterable[int]) -> str:
        """``determineSlotSharingGroup``: explicit, else the inputs' common group, else default."""
        if specified is not None:
            return specified
        nodes = self._graph.nodes  # type: ignore[union-attr]
        group: str | None = None
        for input_id in input_ids:
            candidate = nodes[self._resolve_virtual(input_id)].slot_sharing_group
            if group is None:
                group = candidate
            elif group != candidate:
                return DEFAULT_SLOT_SHARING_GROUP
        return DEFAULT_SLOT_SHARING_GROUP if group is None else group

    def _add_edge(self, up_id: int, down_id: int, type_number: int) -> None:
        """``StreamGraph.addEdgeInternal``: collapse virtual nodes into edge properties."""
        partitioner: StreamPartitioner | None = None
        output_tag: Any = None
        shuffle_mode: ShuffleMode | None = None
        while True:
            if up_id in self._virtual_side_output_nodes:
                up_id, tag = self._virtual_side_output_nodes[up_id]
                if output_tag is None:
                    output_tag = tag
            elif up_id in self._virtual_partition_nodes:
                up_id, virtual_partitioner, mode = self._virtual_partition_nodes[up_id]
                if partitioner is None:
                    partitioner = virtual_partitioner
                shuffle_mode = mode
            else:
                break
        nodes = self._graph.nodes  # type: ignore[union-attr]
        upstream, downstream = nodes[up_id], nodes[down_id]
        if isinstance(partitioner, KeyGroupStreamPartitioner):  # the profile's key_by rule
            keys_by_row = profile_for(self.settings.flink_version).key_by.keys_by_row
            key_hash = key_hash_function(keys_by_row, partitioner.key_type)
            if key_hash is not partitioner.key_hash:  # 1.11 keeps the transformation's own
                partitioner = partitioner.with_key_hash(key_hash)
        defaulted = partitioner is None
        if partitioner is None:
            if upstream.parallelism == downstream.parallelism:
                partitioner = ForwardPartitioner()
            else:
                partitioner = RebalancePartitioner()
        if isinstance(partitioner, ForwardPartitioner):
            if upstream.parallelism != downstream.parallelism:
                raise UnsupportedOperationException(
                    "Forward partitioning does not allow change of parallelism. Upstream "
                    f"operation: {upstream} parallelism: {upstream.parallelism}, downstream "
                    f"operation: {downstream} parallelism: {downstream.parallelism} You must use "
                    "another partitioning strategy, such as broadcast, rebalance, shuffle or "
                    "global."
                )
        edge = StreamEdge(
            source=upstream,
            target=downstream,
            type_number=type_number,
            partitioner=partitioner,
            output_tag=output_tag,
            shuffle_mode=shuffle_mode if shuffle_mode is not None else ShuffleMode.UNDEFINED,
            default_partitioner=defaulted,
        )
        upstream.out_edges.append(edge)
        downstream.in_edges.append(edge)


def _job_local_ids(transformations: list[Transformation], graph: StreamGraph) -> dict[int, int]:
    """Node id → rank (from 1) of its transformation among every transformation of the job.

    Virtual transformations (partition, union, side output) count as they take ids in Flink too,
    so in a fresh process building one job the rank is Flink's id.
    """
    ids: set[int] = set()
    stack = list(transformations)
    while stack:
        t = stack.pop()
        if t.id not in ids:
            ids.add(t.id)
            stack.extend(t.inputs)
            if isinstance(t, CacheTransformation):  # its CacheWrite / CacheRead nodes
                stack.extend(p for p in (t.writer, t.reader) if p is not None)
    nodes = graph.nodes
    return {i: rank for rank, i in enumerate(sorted(ids), start=1) if i in nodes}


def generate_stream_graph(
    transformations: list[Transformation],
    settings: EnvironmentSettings,
    job_name: str | None = None,
) -> StreamGraph:
    """Shorthand for ``StreamGraphGenerator(transformations, settings, job_name).generate()``."""
    return StreamGraphGenerator(transformations, settings, job_name).generate()


__all__: list[str] = [
    "DEFAULT_SLOT_SHARING_GROUP",
    "StreamGraphGenerator",
    "generate_stream_graph",
    "trampoline",
]
