"""StreamGraph → JobGraph with operator chaining (Flink 1.11's ``StreamingJobGraphGenerator``).

Chains follow 1.11's ``isChainable`` (the table of ``chaining_rules``); vertex ids are
``StreamGraphHasherV2`` hashes of the chain heads; every non-chained StreamEdge becomes a JobEdge
with its own IntermediateDataSet.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable

from pyflowkit.common.flink_version import default_version, profile_for
from pyflowkit.common.job_id import JobID
from pyflowkit.errors import IllegalStateException, JobException
from pyflowkit.graph.chaining_rules import is_chainable
from pyflowkit.graph.hasher import StreamGraphHasherV2, StreamGraphUserHashHasher
from pyflowkit.graph.job_graph import (
    DistributionPattern,
    IntermediateDataSet,
    JobCheckpointingSettings,
    JobEdge,
    JobGraph,
    JobVertex,
    OperatorIDPair,
    ResultPartitionType,
    ShipStrategy,
)
from pyflowkit.graph.restart_strategy_resolver import resolve_restart_strategy
from pyflowkit.graph.settings import (
    DEFAULT_JOB_NAME,
    MINIMAL_CHECKPOINT_TIME,
    CheckpointSettings,
)
from pyflowkit.graph.stream_graph import StreamEdge, StreamGraph, StreamNode
from pyflowkit.graph.stream_graph_generator import (
    DEFAULT_SLOT_SHARING_GROUP,
    Step,
    trampoline,
)
from pyflowkit.graph.transformations import ShuffleMode
from pyflowkit.java_semantics import LONG_MAX_VALUE

LOG = logging.getLogger(__name__)

UNALIGNED_AT_LEAST_ONCE_WARNING = (
    "Unaligned checkpoints can only be used with checkpointing mode EXACTLY_ONCE"
)
_POINTWISE = frozenset({"FORWARD", "RESCALE"})


def java_hash_iteration_order(
    keys: list[int], hash_key: Callable[[int], int] | None = None
) -> list[int]:
    """Iteration order of a Java ``HashSet<Integer>``/``HashMap`` filled with ``keys`` in order.

    Buckets are ``(h ^ h >>> 16) & (capacity - 1)`` (capacity 16, doubled past 0.75 load); a
    bucket keeps insertion order. Flink iterates its source ids and job vertices this way.
    ``hash_key`` maps a key to the Integer Java would hash (default: the key itself).
    """
    capacity = 16
    while len(keys) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: int) -> int:
        h = (key if hash_key is None else hash_key(key)) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)

    return sorted(dict.fromkeys(keys), key=bucket)  # sorted() is stable: insertion order kept


def _derived_id(*parts: object) -> str:
    """A deterministic 32-hex id (Flink draws these at random; determinism helps teaching)."""
    return hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=16).hexdigest()


class StreamingJobGraphGenerator:
    """Builds the ``JobGraph`` of a ``StreamGraph`` (Flink's ``StreamingJobGraphGenerator``)."""

    def __init__(self, stream_graph: StreamGraph, job_id: str | None = None) -> None:
        jid = JobID.generate() if job_id is None else JobID.from_hex_string(job_id)
        self.stream_graph = stream_graph
        self.job_id = str(jid)
        self._chaining = stream_graph.chaining_enabled
        self._hashes: dict[int, bytes] = {}
        self._legacy_hashes: dict[int, bytes | None] = {}
        self._built_vertices: set[int] = set()
        self._job_vertices: dict[int, JobVertex] = {}  # head node id -> vertex, insertion order
        self._chainable_outputs: dict[int, list[StreamEdge]] = {}
        self._chained_nodes: dict[int, list[StreamNode]] = {}  # head id -> nodes, pre-order
        self._chained_edges: dict[int, list[StreamEdge]] = {}
        self._chain_indices: dict[int, dict[int, int]] = {}
        self._head_of: dict[int, int] = {}
        self._data_set_counter = 0

    # -- entry ---------------------------------------------------------------------------------
    def create_job_graph(self) -> JobGraph:
        """``createJobGraph``: hashes, chaining, edges, slot sharing, checkpointing, restarts."""
        graph = self.stream_graph
        self._hashes = StreamGraphHasherV2().traverse_stream_graph_and_generate_hashes(graph)
        self._legacy_hashes = StreamGraphUserHashHasher().traverse_stream_graph_and_generate_hashes(
            graph
        )
        # Flink's HashSet order, over ids counted within the job (never the process-wide counter)
        for source_id in java_hash_iteration_order(graph.sources, graph.job_local_id):
            trampoline(self._create_chain(source_id, source_id, 0))
        self._check_unreachable_nodes()
        flink_order = list(self._job_vertices.values())
        self._check_max_parallelism(flink_order)
        self._set_slot_sharing_and_co_location()
        checkpointing = self._configure_checkpointing(flink_order)
        settings = graph.execution_config
        cluster_config = getattr(settings, "configuration", None) or {}
        restart = resolve_restart_strategy(
            graph.restart_strategy, cluster_config, _checkpoint_settings(graph).enabled
        )
        return JobGraph(
            job_id=self.job_id,
            job_name=graph.job_name or DEFAULT_JOB_NAME,
            vertices=sorted_topologically_from_sources(flink_order),
            vertices_in_flink_order=flink_order,
            stream_graph=graph,
            checkpointing_settings=checkpointing,
            restart_strategy=restart,
            runtime_mode=graph.runtime_mode,
        )

    # -- chaining ------------------------------------------------------------------------------
    def _create_chain(self, start_id: int, current_id: int, chain_index: int) -> Step:
        """``createChain``: recurse into chainable outputs, start new chains at the others."""
        if start_id in self._built_vertices:
            return []
        node = self.stream_graph.nodes[current_id]
        if current_id == start_id:
            self._chained_nodes[start_id] = []
            self._chained_edges[start_id] = []
            self._chain_indices[start_id] = {}
        self._chained_nodes[start_id].append(node)
        self._chain_indices[start_id][current_id] = chain_index
        self._head_of[current_id] = start_id
        chainable: list[StreamEdge] = []
        non_chainable: list[StreamEdge] = []
        for out_edge in node.out_edges:
            (chainable if is_chainable(out_edge, self._chaining) else non_chainable).append(
                out_edge
            )
        transitive_out_edges: list[StreamEdge] = []
        for edge in chainable:
            self._chained_edges[start_id].append(edge)
            sub = yield self._create_chain(start_id, edge.target.id, chain_index + 1)
            transitive_out_edges.extend(sub)
        for edge in non_chainable:
            transitive_out_edges.append(edge)
            yield self._create_chain(edge.target.id, edge.target.id, 0)
        self._chainable_outputs[current_id] = chainable
        if current_id == start_id:
            vertex = self._create_job_vertex(start_id)
            for edge in transitive_out_edges:
                self._connect(vertex, edge)
        return transitive_out_edges

    def _create_chained_name(self, head_id: int) -> str:
        """``createChainedName``: ``a -> b`` and ``a -> (b, c)``; rendered once per chain head.

        Flink builds every node's name from its successors' (quadratic on long chains); rendering
        the same text once from the head keeps this linear.
        """
        nodes = self.stream_graph.nodes
        pieces: list[str] = []
        stack: list[int | str] = [head_id]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                pieces.append(item)
                continue
            pieces.append(nodes[item].operator_name)
            outputs = self._chainable_outputs[item]
            if len(outputs) == 1:
                stack.append(outputs[0].target.id)
                stack.append(" -> ")
            elif outputs:
                stack.append(")")
                for k in range(len(outputs) - 1, -1, -1):
                    stack.append(outputs[k].target.id)
                    if k:
                        stack.append(", ")
                stack.append(" -> (")
        return "".join(pieces)

    def _create_job_vertex(self, head_id: int) -> JobVertex:
        head = self.stream_graph.nodes[head_id]
        digest = self._hashes.get(head_id)
        if digest is None:
            raise IllegalStateException(
                "Cannot find node hash. Did you generate them before calling this method?"
            )
        nodes = self._chained_nodes[head_id]
        operator_ids = []
        for n in nodes:
            legacy = self._legacy_hashes.get(n.id)
            operator_ids.append(
                OperatorIDPair(self._hashes[n.id].hex(), legacy.hex() if legacy else None)
            )
        vertex = JobVertex(
            id=digest.hex(),
            name=self._create_chained_name(head_id),
            parallelism=head.parallelism,
            max_parallelism=head.max_parallelism,
            slot_sharing_group=head.slot_sharing_group or DEFAULT_SLOT_SHARING_GROUP,
            invokable_class=head.invokable_class,
            stream_nodes=nodes,
            chained_edges=self._chained_edges[head_id],
            operator_ids=operator_ids,
            chain_indices=self._chain_indices[head_id],
        )
        self._job_vertices[head_id] = vertex
        self._built_vertices.add(head_id)
        return vertex

    def _connect(self, head_vertex: JobVertex, edge: StreamEdge) -> None:
        """``connect``: a new IntermediateDataSet on the producer, a JobEdge to the consumer."""
        downstream = self._job_vertices[edge.target.id]
        ship = edge.partitioner.ship_strategy
        mode = edge.shuffle_mode
        if mode is ShuffleMode.PIPELINED:
            result_type = ResultPartitionType.PIPELINED_BOUNDED
        elif mode is ShuffleMode.BATCH:
            result_type = ResultPartitionType.BLOCKING
        else:
            result_type = self._determine_result_partition_type(ship)
        pattern = (
            DistributionPattern.POINTWISE if ship in _POINTWISE else DistributionPattern.ALL_TO_ALL
        )
        self._data_set_counter += 1
        data_set = IntermediateDataSet(
            id=_derived_id(self.job_id, head_vertex.id, self._data_set_counter),
            producer=head_vertex,
            result_type=result_type,
        )
        head_vertex.produced_data_sets.append(data_set)
        job_edge = JobEdge(
            source=head_vertex,
            target=downstream,
            data_set=data_set,
            distribution_pattern=pattern,
            ship_strategy=ShipStrategy(ship),
            result_partition_type=result_type,
            stream_edge=edge,
        )
        data_set.consumers.append(job_edge)
        downstream.inputs.append(job_edge)

    def _determine_result_partition_type(self, ship: str) -> ResultPartitionType:
        mode = self.stream_graph.global_data_exchange_mode
        if mode == "ALL_EDGES_PIPELINED":
            return ResultPartitionType.PIPELINED_BOUNDED
        if mode == "ALL_EDGES_BLOCKING":
            return ResultPartitionType.BLOCKING
        if mode == "FORWARD_EDGES_PIPELINED":
            pipelined = ship == "FORWARD"
        elif mode == "POINTWISE_EDGES_PIPELINED":
            pipelined = ship in _POINTWISE
        else:
            raise IllegalStateException(f"Unsupported global data exchange mode {mode}.")
        return ResultPartitionType.PIPELINED_BOUNDED if pipelined else ResultPartitionType.BLOCKING

    # -- checks --------------------------------------------------------------------------------
    def _check_unreachable_nodes(self) -> None:
        for node in self.stream_graph.nodes.values():
            if node.id not in self._head_of:
                raise IllegalStateException(
                    f"Operator {node} is not reachable from any source; every operator must "
                    "consume a stream that starts at a source."
                )

    @staticmethod
    def _check_max_parallelism(vertices: list[JobVertex]) -> None:
        """ExecutionJobVertex's rule, checked here already so the JobGraph never holds it."""
        for v in vertices:
            if 0 < v.max_parallelism < v.parallelism:
                raise JobException(
                    f"Vertex {v.name}'s parallelism ({v.parallelism}) is higher than the max "
                    f"parallelism ({v.max_parallelism}). Please lower the parallelism or increase "
                    "the max parallelism."
                )

    # -- slot sharing --------------------------------------------------------------------------
    def _set_slot_sharing_and_co_location(self) -> None:
        """``setSlotSharingAndCoLocation``: "default" vertices share one group in streaming."""
        co_location: dict[str, str] = {}
        for head_id, vertex in self._job_vertices.items():
            key = vertex.slot_sharing_group
            if key == DEFAULT_SLOT_SHARING_GROUP and (
                self.stream_graph.all_vertices_in_same_slot_sharing_group_by_default
            ):
                vertex.slot_sharing_group_id = _derived_id(self.job_id, "ssg", key)
            elif key == DEFAULT_SLOT_SHARING_GROUP:
                vertex.slot_sharing_group_id = _derived_id(self.job_id, "ssg-region", vertex.id)
            else:
                vertex.slot_sharing_group_id = _derived_id(self.job_id, "ssg", key)
            group = self.stream_graph.nodes[head_id].co_location_group
            if group is None:
                continue
            if not vertex.slot_sharing_group:
                raise IllegalStateException(
                    "Cannot use a co-location constraint without a slot sharing group"
                )
            previous = co_location.setdefault(group, vertex.slot_sharing_group_id)
            if previous != vertex.slot_sharing_group_id:
                raise IllegalStateException(
                    "Cannot co-locate operators from different slot sharing groups"
                )
            vertex.co_location_group = group

    # -- checkpointing -------------------------------------------------------------------------
    def _configure_checkpointing(self, vertices: list[JobVertex]) -> JobCheckpointingSettings:
        """``configureCheckpointing``: interval, trigger/ack/confirm vertices, mode, retention."""
        cfg = _checkpoint_settings(self.stream_graph)
        interval = cfg.interval if cfg.interval >= MINIMAL_CHECKPOINT_TIME else LONG_MAX_VALUE
        # Flink iterates its HashMap<Integer, JobVertex> keyed by the chain heads' node ids
        order = java_hash_iteration_order(list(self._job_vertices), self.stream_graph.job_local_id)
        by_head_id = [self._job_vertices[head_id] for head_id in order]
        trigger = [v.id for v in by_head_id if v.is_input_vertex]
        all_ids = [v.id for v in by_head_id]
        if cfg.externalized_retention is None:
            retention = "NEVER_RETAIN_AFTER_TERMINATION"
        elif cfg.externalized_retention == "DELETE_ON_CANCELLATION":
            retention = "RETAIN_ON_FAILURE"
        elif cfg.externalized_retention == "RETAIN_ON_CANCELLATION":
            retention = "RETAIN_ON_CANCELLATION"
        else:
            raise IllegalStateException(
                "Externalized checkpoints enabled, but no cleanup mode configured."
            )
        if cfg.mode == "EXACTLY_ONCE":
            exactly_once = cfg.enabled
        elif cfg.mode == "AT_LEAST_ONCE":
            exactly_once = False
        else:
            raise IllegalStateException(
                "Unexpected checkpointing mode. Did not expect there to be another checkpointing "
                "mode besides exactly-once or at-least-once."
            )
        unaligned = cfg.unaligned
        if unaligned and not exactly_once:
            LOG.warning(UNALIGNED_AT_LEAST_ONCE_WARNING)
            unaligned = False
        return JobCheckpointingSettings(
            vertices_to_trigger=trigger,
            vertices_to_acknowledge=list(all_ids),
            vertices_to_confirm=list(all_ids),
            checkpoint_interval=interval,
            checkpoint_timeout=cfg.timeout,
            min_pause_between_checkpoints=cfg.min_pause,
            max_concurrent_checkpoints=cfg.max_concurrent,
            retention_policy=retention,
            is_exactly_once=exactly_once,
            is_unaligned_checkpoints_enabled=unaligned,
            tolerable_checkpoint_failure_number=cfg.tolerable_failures,
            prefer_checkpoint_for_recovery=cfg.prefer_checkpoint_for_recovery,
            checkpoints_after_tasks_finish=interval != LONG_MAX_VALUE
            and _finished_tasks_enabled(self.stream_graph),
        )


def _checkpoint_settings(graph: StreamGraph) -> CheckpointSettings:
    cfg = graph.checkpoint_config
    return cfg if isinstance(cfg, CheckpointSettings) else CheckpointSettings()


def sorted_topologically_from_sources(vertices: list[JobVertex]) -> list[JobVertex]:
    """``JobGraph.getVerticesSortedTopologicallyFromSources``: inputs first, then forward."""
    remaining: dict[int, JobVertex] = {id(v): v for v in vertices}  # ordered, like LinkedHashSet
    ordered: list[JobVertex] = []
    for v in vertices:
        if not v.inputs:
            ordered.append(v)
            del remaining[id(v)]

    def add_successors(start: JobVertex) -> Step:
        for data_set in start.produced_data_sets:
            for edge in data_set.consumers:
                target = edge.target
                if id(target) not in remaining:
                    continue
                blocked = any(e is not edge and id(e.source) in remaining for e in target.inputs)
                if not blocked:
                    ordered.append(target)
                    del remaining[id(target)]
                    yield add_successors(target)

    position = 0
    while remaining:
        if position >= len(ordered):
            raise IllegalStateException("The job graph is cyclic.")
        trampoline(add_successors(ordered[position]))
        position += 1
    return ordered


def create_job_graph(stream_graph: StreamGraph, job_id: str | None = None) -> JobGraph:
    """``StreamGraph.getJobGraph``: run the ``StreamingJobGraphGenerator``."""
    return StreamingJobGraphGenerator(stream_graph, job_id).create_job_graph()


def _finished_tasks_enabled(stream_graph: StreamGraph) -> bool:
    """``ENABLE_CHECKPOINTS_AFTER_TASKS_FINISH`` under the job's version profile (FLIP-147)."""
    settings = stream_graph.execution_config
    finished_tasks = profile_for(
        getattr(settings, "flink_version", None) or default_version()
    ).finished_tasks
    return finished_tasks.enabled(getattr(settings, "configuration", None))
