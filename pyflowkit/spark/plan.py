"""The JobGraph as a Spark plan: a ``mapInArrow`` stage per JobVertex, a repartition per JobEdge.

pyflowkit's counterpart of Flink's ``ExecutionGraph`` deployment: which vertex runs as which Spark
stage and how each edge's ship strategy became Spark partitioning. Only DataFrame API calls are
used, so a Spark Connect session works too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.common.flink_version import V1_11, profile_for
from pyflowkit.graph.adaptive_batch import (
    BlockingResultInfo,
    DynamicParallelism,
    format_memory_size,
    is_broadcast,
    is_pointwise,
    max_parallelism_of,
    num_subpartitions,
    readers_of_subpartitions,
    subpartition_range,
    uses_adaptive_batch_scheduler,
)
from pyflowkit.operators.context import default_max_parallelism
from pyflowkit.operators.registry import operator_class
from pyflowkit.spark import records
from pyflowkit.spark.aggregation_pushdown import find_pushdowns
from pyflowkit.spark.partitioning import repartition_by_target
from pyflowkit.spark.plan_columns import edge_is, input_order, sink_rows
from pyflowkit.spark.stage import InputSpec, OutputSpec, StageSpec, stage_function
from pyflowkit.spark.typed_columns import edge_layout
from pyflowkit.task.execution_mode import job_runtime_mode

UNBOUNDED = "CONTINUOUS_UNBOUNDED"


@dataclass
class EdgePlan:
    """How one JobEdge runs on Spark."""

    index: int
    source: str  # producer vertex name
    target: str  # consumer vertex name
    ship_strategy: str
    distribution_pattern: str
    spark_partitioning: str
    record_format: str = "pickled (PICKLED_BYTE_ARRAY)"


@dataclass
class StagePlan:
    """How one JobVertex runs on Spark."""

    index: int
    vertex_id: str
    vertex_name: str
    parallelism: int
    spark_operator: str
    materialized: bool  # local checkpoint: read by several consumers
    has_sinks: bool


@dataclass
class SparkPlan:
    """Vertex → stage and edge → partitioning, plus Spark's physical plan of the sink query."""

    job_name: str
    runtime_mode: str
    stages: list[StagePlan] = field(default_factory=list)
    edges: list[EdgePlan] = field(default_factory=list)
    pushdown: list[str] = field(default_factory=list)  # Keyed Aggregations: pushed down or why not
    # AdaptiveBatchScheduler (1.20 BATCH): how each undecided vertex got its parallelism
    adaptive: list[str] = field(default_factory=list)
    _physical_plan: str = field(default="", repr=False)
    # gives Spark's plan text on first read (explaining costs JVM time a run does not need)
    _explain: Callable[[], str] | None = field(default=None, repr=False, compare=False)

    @property
    def physical_plan(self) -> str:
        """Spark's formatted physical plan of the sink query (explained on first read)."""
        if self._explain is not None:
            self._physical_plan, self._explain = self._explain(), None
        return self._physical_plan

    @physical_plan.setter
    def physical_plan(self, text: str) -> None:
        self._physical_plan, self._explain = text, None

    def explain_later(self, explain: Callable[[], str]) -> None:
        """Read ``physical_plan`` from ``explain()`` when it is first asked for."""
        self._explain = explain

    def __str__(self) -> str:
        lines = [f"Spark plan of '{self.job_name}' ({self.runtime_mode})", "Stages:"]
        for s in self.stages:
            extra = ", materialized (several consumers)" if s.materialized else ""
            lines.append(
                f"  stage {s.index}: {s.vertex_name} [vertex {s.vertex_id[:8]}] — "
                f"{s.spark_operator}, {s.parallelism} partition(s) = subtasks{extra}"
            )
        lines.append("Edges:")
        for e in self.edges:
            lines.append(
                f"  {e.source} -> {e.target}: {e.ship_strategy} ({e.distribution_pattern}) — "
                f"{e.spark_partitioning}; records {e.record_format}"
            )
        if self.pushdown:
            lines += ["Aggregation pushdown:", *(f"  {p}" for p in self.pushdown)]
        if self.adaptive:
            lines += ["AdaptiveBatchScheduler:", *(f"  {a}" for a in self.adaptive)]
        if self.physical_plan:
            lines += ["Spark physical plan:", self.physical_plan]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return "```\n" + str(self) + "\n```"


def unbounded_sources(job_graph: Any) -> list[str]:
    """Names of the job's CONTINUOUS_UNBOUNDED sources (they make it a streaming query)."""
    names = []
    for vertex in job_graph.vertices:
        for node in vertex.stream_nodes:
            boundedness = getattr(node.transformation, "boundedness", None)
            if boundedness is not None and getattr(boundedness, "value", boundedness) == UNBOUNDED:
                names.append(node.operator_name)
    return names


def check_bounded(job_graph: Any, runtime_mode: str) -> None:
    """Spark runs bounded jobs only; an unbounded source gets an error naming it."""
    for vertex in job_graph.vertices:
        for node in vertex.stream_nodes:
            boundedness = getattr(node.transformation, "boundedness", None)
            if boundedness is not None and getattr(boundedness, "value", boundedness) == UNBOUNDED:
                if runtime_mode == "BATCH":
                    raise ValueError(
                        f"Detected an UNBOUNDED source with the 'execution.runtime-mode' set to "
                        f"'BATCH'. This combination is not allowed, please set the "
                        f"'execution.runtime-mode' to STREAMING or AUTOMATIC. Source: "
                        f"'{node.operator_name}'."
                    )
                raise ValueError(
                    f"Source '{node.operator_name}' is unbounded (CONTINUOUS_UNBOUNDED); the Spark "
                    f"executor runs bounded jobs only. Run it on the simulated cluster "
                    f"(execution.target=local) or make the source bounded."
                )


def effective_runtime_mode(job_graph: Any) -> str:
    """STREAMING / BATCH, resolved job-wide by the one rule (``task.execution_mode``)."""
    return job_runtime_mode(job_graph)


def _has_sink(vertex: Any) -> bool:
    from pyflowkit.graph.transformations import SinkTransformation

    return any(
        isinstance(n.transformation, SinkTransformation)
        or n.operator_factory.operator_class in _UNIFIED_SINK_OPERATORS
        for n in vertex.stream_nodes
    )


# sink_to's writer/committer are plain operator nodes (Flink 1.12), but they end the job too
_UNIFIED_SINK_OPERATORS = frozenset({"StreamingCommitterOperator", "BatchCommitterOperator"})


def _spark_partitioning(edge: Any, consumer_p: int) -> str:
    strategy = edge.ship_strategy.value
    how = {
        "HASH": "key group of the key → subtask (KeyGroupRangeAssignment)",
        "REBALANCE": "round robin per producer subtask",
        "RESCALE": "round robin over the producer's local consumers",
        "FORWARD": "same subtask",
        "BROADCAST": "a copy to every consumer subtask",
        "GLOBAL": "all to subtask 0",
        "SHUFFLE": "seeded random subtask",
        "CUSTOM": "user Partitioner.partition(key, n)",
    }.get(strategy, strategy)
    return f"target column ({how}), repartition({consumer_p}, surrogate key of target)"


def edge_layouts(job_graph: Any, runtime_mode: str) -> tuple[dict[int, Any], Any]:
    """Edge index → TypedLayout for edges with a declared type, and ``find_pushdowns``'
    (pushdowns, reasons)."""
    layouts = {}
    for k, e in enumerate(job_graph.edges):
        layout = edge_layout(e.stream_edge, records.column_of(k))
        if layout is not None:
            layouts[k] = layout
    return layouts, find_pushdowns(job_graph, layouts, runtime_mode)


def stage_specs(
    job_graph: Any,
    settings: Any,
    runtime_mode: str,
    seed: int = 0,
    dynamic: DynamicParallelism | None = None,
) -> list[StageSpec]:
    """One ``StageSpec`` per JobVertex (topological order): inputs, outputs, typed layouts.
    With ``dynamic`` (the AdaptiveBatchScheduler's store), a spec read before a producer's
    parallelism was decided must be refreshed (``refresh_spec``) before its stage is built."""
    edge_index = {id(e): i for i, e in enumerate(job_graph.edges)}
    layouts, (pushdowns, _) = edge_layouts(job_graph, runtime_mode)
    combine = {p.edge_index: p for p in pushdowns.values()}  # producers combine these edges
    specs = []
    for vertex in job_graph.vertices:
        spec = StageSpec(vertex, job_graph.job_name, runtime_mode, settings, seed)
        for node in vertex.stream_nodes:
            name = node.operator_factory.operator_class
            spec.operator_classes[name] = operator_class(name)
        for e in [*vertex.inputs, *vertex.outputs]:
            if edge_index[id(e)] in layouts:
                spec.typed[edge_index[id(e)]] = layouts[edge_index[id(e)]]
        for e in vertex.outputs:
            if edge_index[id(e)] in combine:
                spec.combine[edge_index[id(e)]] = combine[edge_index[id(e)]]
        refresh_spec(spec, edge_index, dynamic)
        specs.append(spec)
    return specs


def refresh_spec(
    spec: StageSpec, edge_index: dict[int, int], dynamic: DynamicParallelism | None = None
) -> None:
    """The spec's inputs and outputs from the parallelisms known now. An all-to-all edge into a
    vertex the AdaptiveBatchScheduler decides is written into as many subpartitions as that
    vertex's max parallelism (``num_subpartitions``) and its bytes are counted; a pointwise one
    (its forward group) into as many as the producer's parallelism."""
    vertex = spec.vertex
    spec.inputs = []
    for e in vertex.inputs:
        inp = InputSpec(edge_index[id(e)], e.type_number, e.source.parallelism, is_pointwise(e))
        if dynamic is not None and dynamic.undecided_consumer(e):  # reads subpartition ranges
            inp.subpartitions = num_subpartitions(e)
            p = vertex.parallelism
            inp.ranges = [subpartition_range(e, p, i) for i in range(p)]
        spec.inputs.append(inp)
    spec.outputs = []
    for e in vertex.outputs:
        consumer_p, consumer_max, count = e.target.parallelism, e.target.max_parallelism, False
        if dynamic is not None and not dynamic.is_decided(e.target):
            if dynamic.undecided_consumer(e):
                consumer_p, count = num_subpartitions(e), True
            else:
                consumer_p = vertex.parallelism
            consumer_max = max_parallelism_of(e.target)
        spec.outputs.append(
            OutputSpec(
                edge_index[id(e)],
                e.stream_edge,
                consumer_p,
                default_max_parallelism(consumer_max, consumer_p),
                e.target.name,
                count,
            )
        )


def adaptive_parallelism(job_graph: Any, settings: Any) -> DynamicParallelism | None:
    """The AdaptiveBatchScheduler's parallelism store when the job runs on it (a BATCH job under
    the 1.20 profile, ``jobmanager.scheduler`` not set to another one; FLIP-187), else None."""
    profile = profile_for(getattr(settings, "flink_version", V1_11))
    if not uses_adaptive_batch_scheduler(job_graph, profile):
        return None
    return DynamicParallelism.of(job_graph)


def planned_adaptive(job_graph: Any, settings: Any) -> list[str]:
    """What an explain says of the AdaptiveBatchScheduler (FLIP-187): each vertex whose
    parallelism is decided at run time, within which bounds; nothing runs, so nothing is decided."""
    kept = [jv.max_parallelism for jv in job_graph.vertices]
    try:
        dynamic = adaptive_parallelism(job_graph, settings)
        if dynamic is None:
            return []
        decider = dynamic.decider
        notes = []
        for jv in job_graph.vertices:
            if dynamic.is_decided(jv):
                continue
            if not jv.inputs:
                n = decider.decide_parallelism_for_vertex([], jv.max_parallelism)
                why = f"a source: default-source-parallelism, {n}"
            elif any(is_pointwise(e) for e in jv.inputs):
                why = "its forward group: the producer's parallelism"
            else:
                low = min(decider.global_min_parallelism, jv.max_parallelism)
                high = min(decider.global_max_parallelism, jv.max_parallelism)
                why = (
                    "once its inputs FINISHED, from the bytes they wrote "
                    f"({format_memory_size(decider.data_volume_per_task)} per subtask), "
                    f"between {low} and {high}"
                )
            notes.append(
                f"Parallelism of JobVertex: {jv.name} ({jv.id}) is decided at run time: {why}; "
                f"this plan shows {jv.parallelism}."
            )
        return notes
    finally:
        for jv, max_parallelism in zip(job_graph.vertices, kept, strict=True):
            jv.max_parallelism = max_parallelism


def _result_bytes(session: Any, out: Any) -> dict[int, int]:
    """Edge index → the bytes the finished producer stage ``out`` wrote into it (its subtasks'
    ``RESULT_BYTES`` rows; ``out`` is materialized, so this reads the stored rows)."""
    from pyspark.sql import functions as F

    rows = out.where(F.col("edge") == records.RESULT_BYTES).select("target", "payload").collect()
    written: dict[int, int] = {}
    for row in rows:
        written[row[0]] = written.get(row[0], 0) + records.loads(row[1])
    return written


def _decide(
    dynamic: DynamicParallelism,
    vertex: Any,
    written: dict[int, int],
    edge_index: dict[int, int],
    plan: SparkPlan,
) -> int:
    """``AdaptiveBatchScheduler.tryDecideParallelismAndInputInfos`` on Spark: the consumed
    results' bytes (as the producers' subtasks reported them) through the shared decider."""
    infos = [
        BlockingResultInfo(
            str(edge_index[id(e)]),
            written.get(edge_index[id(e)], 0),
            is_broadcast(e),
            is_pointwise(e),
        )
        for e in vertex.inputs
    ]
    notes: list[str] = []

    def on_decided(total: int, initial: int) -> None:
        notes.append(
            f"the total size of non-broadcast data is {format_memory_size(total)}, the "
            f"initially decided parallelism is {initial}"
        )

    parallelism = dynamic.decide(vertex, infos, on_decided)
    if notes:
        why = "; ".join(notes)
    elif not vertex.inputs:
        why = "a source: default-source-parallelism"
    elif any(is_pointwise(e) for e in vertex.inputs):
        why = "its forward group: the producer's parallelism"
    else:
        why = "only broadcast inputs: min-parallelism"
    plan.adaptive.append(
        f"Parallelism of JobVertex: {vertex.name} ({vertex.id}) is decided to be "
        f"{parallelism} ({why})."
    )
    return parallelism


def _read_subpartitions(session: Any, part: Any, edge: Any, parallelism: int) -> Any:
    """Rows of a result written into subpartitions, each sent to the consumer subtask(s) that
    read it (``subpartition_range``; every subtask for the one subpartition of a broadcast)."""
    from pyspark.sql import functions as F

    readers = readers_of_subpartitions(edge, parallelism)
    table = F.array(*[F.array(*[F.lit(i) for i in r]) for r in readers])
    channel = F.col("producer") * len(readers) + F.col("target")  # (producer, subpartition)
    return part.withColumn("producer", channel).withColumn(
        "target", F.explode(F.element_at(table, F.col("target") + 1))
    )


def build_plan(
    session: Any, job_graph: Any, settings: Any, seed: int = 0, materialize: bool = True
) -> tuple[Any, SparkPlan]:
    """Build the sink DataFrame and the SparkPlan describing it; with ``materialize`` a vertex read
    by several consumers is computed once (``localCheckpoint``), else everything stays lazy."""

    runtime_mode = effective_runtime_mode(job_graph)
    check_bounded(job_graph, runtime_mode)
    plan = SparkPlan(job_graph.job_name, runtime_mode)
    outputs: dict[str, Any] = {}  # vertex id → its output DataFrame
    columns_of: dict[str, list[str]] = {}  # vertex id → its output columns
    sink_frames = []
    edge_index = {id(e): i for i, e in enumerate(job_graph.edges)}
    # FLIP-187: a vertex's parallelism decided once its producers finished (their stages are
    # then materialized: BLOCKING results), from the bytes they wrote; an explain plans none
    dynamic = adaptive_parallelism(job_graph, settings) if materialize else None
    written: dict[int, int] = {}  # edge index → bytes its finished producer wrote
    specs = stage_specs(job_graph, settings, runtime_mode, seed, dynamic)
    pushdowns, not_pushed = edge_layouts(job_graph, runtime_mode)[1]
    plan.pushdown = [p.describe() for p in pushdowns.values()] + not_pushed
    for index, (vertex, spec) in enumerate(zip(job_graph.vertices, specs, strict=True)):
        if dynamic is not None:
            if not dynamic.is_decided(vertex):
                vertex.parallelism = _decide(dynamic, vertex, written, edge_index, plan)
            refresh_spec(spec, edge_index, dynamic)
        layouts = spec.typed
        p = vertex.parallelism
        if not vertex.inputs:
            source_df = session.range(0, p, 1, numPartitions=p)
            operator = "range → mapInArrow (source subtasks)"
        else:
            parts = []
            for e in vertex.inputs:
                upstream = outputs[e.source.id]
                k = edge_index[id(e)]
                columns = [*records.FIELDS, *records.TYPED_FIELDS]
                if k in layouts:
                    columns.append(layouts[k].column)
                part = upstream.where(edge_is(session, k))
                if columns != columns_of[e.source.id]:  # drop the producer's other typed columns
                    part = part.select(*columns)
                if k in written:  # written into subpartitions: each to the subtasks reading it
                    part = _read_subpartitions(session, part, e, p)
                parts.append(part)
                record_format = (
                    f"typed column {layouts[k].spark_ddl}"
                    if k in layouts
                    else EdgePlan.record_format
                )
                if vertex.id in pushdowns:
                    record_format += "; combined per key by each producer subtask (Arrow)"
                plan.edges.append(
                    EdgePlan(
                        edge_index[id(e)],
                        e.source.name,
                        vertex.name,
                        e.ship_strategy.value,
                        e.distribution_pattern.value,
                        _spark_partitioning(e, p),
                        record_format,
                    )
                )
            merged = parts[0]
            for part in parts[1:]:
                merged = merged.unionByName(part, allowMissingColumns=True)
            source_df = repartition_by_target(merged, p).sortWithinPartitions(*input_order(session))
            operator = "repartition → sortWithinPartitions(seq, edge, producer) → mapInArrow"
            if vertex.id in pushdowns:
                operator += f" ({pushdowns[vertex.id].kind} pushed down: input combined per key)"
        out = source_df.mapInArrow(stage_function(spec), spec.output_struct())
        columns_of[vertex.id] = [
            *records.FIELDS,
            *records.TYPED_FIELDS,
            *(x.column for x in spec.out_layouts()),
        ]
        has_sink = _has_sink(vertex)
        consumers = len(vertex.outputs) + (1 if has_sink else 0)
        counted = [o.edge_index for o in spec.outputs if o.count_bytes]
        materialized = consumers > 1 or bool(counted)
        if materialized and materialize:
            out = out.localCheckpoint(eager=True)
        if counted:  # the finished producer's result bytes, for its consumers' decision
            written.update({k: 0 for k in counted} | _result_bytes(session, out))
        outputs[vertex.id] = out
        if has_sink:
            sink_frames.append(out.where(sink_rows(session)))
        plan.stages.append(
            StagePlan(index, vertex.id, vertex.name, p, operator, materialized, has_sink)
        )
    if not materialize:
        plan.adaptive = planned_adaptive(job_graph, settings)
    if not sink_frames:
        raise ValueError(
            "No sinks in the job: add print(), add_sink(...) or execute_and_collect() before "
            "execute() (Flink: 'No operators defined in streaming topology')."
        )
    if len(sink_frames) == 1:  # one sink stage: its rows as they are (the typed columns null)
        return sink_frames[0], plan
    result = sink_frames[0].select(*records.FIELDS)
    for frame in sink_frames[1:]:
        result = result.unionByName(frame.select(*records.FIELDS))
    return result, plan
