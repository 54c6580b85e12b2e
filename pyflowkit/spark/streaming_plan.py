"""The JobGraph as one Structured Streaming query (unbounded jobs).

pyflowkit's counterpart of Flink's deployment of a streaming job: source vertices become the
``pyflowkit-flink-source`` Python stream source (one per vertex, offsets per subtask), or, for a
monitored ``FileSource`` and ``socket_text_stream``, Spark's own file or socket source feeding
the vertex's chain (``streaming_spark_source``); every other vertex a ``transformWithState``
grouped by ``(group, target subtask)`` in topological order, each hosting the vertex's operator
chain; sink rows (print lines, collected records) reach the
driver's ``foreachBatch``. Only DataFrame API calls are used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.spark.plan import stage_specs
from pyflowkit.spark.state_files import attach_state_classes
from pyflowkit.spark.streaming_processor import OUTPUT_DDL, grouping_columns, vertex_processor
from pyflowkit.spark.streaming_source import FORMAT, encode_object, register
from pyflowkit.spark.streaming_spark_source import (
    FILE,
    SOCKET,
    spark_source_frame,
    spark_source_kind,
)

ROCKSDB_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
PROVIDER_KEY = "spark.sql.streaming.stateStore.providerClass"
PROCESSING_TIME = "ProcessingTime"  # Spark timers stand for processing-time timers
NO_TIMERS = "None"  # event time is in-band: a vertex without processing time needs no Spark timer
# operators that never register a processing-time timer or callback
_TIMER_FREE = frozenset(
    {
        "StreamMap",
        "StreamFlatMap",
        "StreamFilter",
        "StreamGroupedReduce",
        "StreamSink",
        "CoStreamMap",
        "CoStreamFlatMap",
        "ProcessOperator",
        "CoProcessOperator",
    }
)
_TIMER_FREE_TRIGGERS = frozenset({"EventTimeTrigger", "CountTrigger"})
_SPARK_SOURCES = {
    FILE: "Spark file stream source (binaryFile paths; the FileSource's split enumerator, "
    "committed files never taken again)",
    SOCKET: "Spark socket source (one line per row, in arrival order)",
}
_SPARK_SOURCE_STATE = {
    FILE: "splits assigned so far (value state), per subtask its reader splits, operator state, "
    "watermarks (map state)",
    SOCKET: "reader position, operator state, watermarks (map state)",
}


@dataclass
class StreamingStagePlan:
    """How one JobVertex runs in the streaming query."""

    index: int
    vertex_name: str
    parallelism: int
    spark_operator: str
    state: str


@dataclass
class StreamingEdgePlan:
    """How one JobEdge's records reach their consumer subtasks."""

    source: str
    target: str
    ship_strategy: str
    spark_partitioning: str


@dataclass
class StreamingPlan:
    """Vertex → streaming operator, edge → grouping; trigger, checkpoint location, state store."""

    job_name: str
    stages: list[StreamingStagePlan] = field(default_factory=list)
    edges: list[StreamingEdgePlan] = field(default_factory=list)
    trigger: str = ""
    checkpoint_location: str = ""
    state_store: str = ROCKSDB_PROVIDER.rsplit(".", 1)[-1]
    physical_plan: str = ""
    runtime_mode: str = "STREAMING"

    def __str__(self) -> str:
        lines = [
            f"Spark Structured Streaming plan of '{self.job_name}' (unbounded, STREAMING)",
            f"Trigger: {self.trigger or '(set when the job starts)'}; checkpoint location: "
            f"{self.checkpoint_location or '(set when the job starts)'}; state store: "
            f"{self.state_store}",
            "Stages:",
        ]
        for s in self.stages:
            lines.append(
                f"  stage {s.index}: {s.vertex_name} — {s.spark_operator}, "
                f"{s.parallelism} subtask(s); state: {s.state}"
            )
        lines.append("Edges:")
        for e in self.edges:
            lines.append(f"  {e.source} -> {e.target}: {e.ship_strategy} — {e.spark_partitioning}")
        lines.append(
            "Watermarks: Flink's, carried in-band with the records and combined per subtask by "
            "its StatusWatermarkValve (Spark's own watermark is not used, so no row is dropped)."
        )
        if self.physical_plan:
            lines += ["Spark plan:", self.physical_plan]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return "```\n" + str(self) + "\n```"


@dataclass
class StreamingOptions:
    """Per-query knobs: records and milliseconds a source subtask reads per micro-batch."""

    max_records: int = 10_000
    max_millis: int = 200
    control_dir: str = ""  # where the job leaves a pause marker for its sources (see PAUSE)


def ensure_rocksdb(session: Any) -> None:
    """``transformWithState`` needs the RocksDB state store: set it if unset, refuse another."""
    try:
        current = session.conf.get(PROVIDER_KEY, None)
    except Exception:
        current = None
    if current in (None, "", ROCKSDB_PROVIDER):
        if current != ROCKSDB_PROVIDER:
            session.conf.set(PROVIDER_KEY, ROCKSDB_PROVIDER)
        return
    raise ValueError(
        f"Unbounded jobs run as Spark transformWithState queries, which need the RocksDB state "
        f"store, but {PROVIDER_KEY} is {current!r}. Set it to {ROCKSDB_PROVIDER} (or leave it "
        f"unset) before the job starts."
    )


def _trigger_name(trigger: Any) -> str:
    inner = getattr(trigger, "nested_trigger", None) or getattr(trigger, "trigger", None)
    if type(trigger).__name__ == "PurgingTrigger" and inner is not None:
        return _trigger_name(inner)
    return type(trigger).__name__


def time_mode(vertex: Any, settings: Any) -> str:
    """Spark's ``TimeMode`` for a vertex: ProcessingTime if any operator may use processing
    time (keyed process functions, processing-time windows or triggers, periodic watermarks,
    CEP sorting by a comparator in processing time, unknown operators), else None, so idle
    queries run no timer-only micro-batches (Spark runs one after every batch in
    ProcessingTime mode, so such a query never stops at an idle batch boundary)."""
    for node in vertex.stream_nodes:
        factory = node.operator_factory
        name = factory.operator_class
        if name in _TIMER_FREE:
            continue
        if name in ("WindowOperator", "EvictingWindowOperator"):
            assigner = factory.params.get("assigner") or factory.params.get("window_assigner")
            trigger = factory.params.get("trigger")
            if trigger is None and assigner is not None:
                trigger = assigner.get_default_trigger()
            if _trigger_name(trigger) in _TIMER_FREE_TRIGGERS:
                continue
        if name == "CepOperator":
            # event time is in-band; processing time registers a timer only to sort (comparator)
            params = factory.params
            if not params.get("is_processing_time") or params.get("comparator") is None:
                continue
        if name == "TimestampsAndWatermarksOperator":
            if not (getattr(settings, "auto_watermark_interval", 0) or 0):
                continue
        return PROCESSING_TIME
    return NO_TIMERS


def _is_source(vertex: Any) -> bool:
    return not vertex.inputs


def _state_description(vertex: Any) -> str:
    keyed = any(
        n.state_key_selector is not None
        or n.state_key_selector1 is not None
        or n.state_key_selector2 is not None
        for n in vertex.stream_nodes
    )
    if keyed:
        return "keyed state + timers per key group (map state), operator state (value state)"
    return "operator state + watermarks (value state)"


def build_streaming_frame(
    session: Any, job_graph: Any, settings: Any, options: StreamingOptions | None = None
) -> tuple[Any, StreamingPlan]:
    """The streaming DataFrame of sink rows and the StreamingPlan describing it."""
    options = options or StreamingOptions()
    register(session)
    plan = StreamingPlan(job_graph.job_name)
    specs = stage_specs(job_graph, settings, "STREAMING")
    edge_index = {id(e): i for i, e in enumerate(job_graph.edges)}
    frames = []
    for index, (vertex, spec) in enumerate(zip(job_graph.vertices, specs, strict=True)):
        spec.typed = {}  # streaming chunks travel pickled
        attach_state_classes(spec, job_graph)  # what its state files may name (driver-side)
        if not _is_source(vertex):
            continue
        kind = spark_source_kind(vertex)
        if kind is not None:
            mode = time_mode(vertex, settings)
            frames.append(spark_source_frame(session, spec, kind, mode))
            plan.stages.append(
                StreamingStagePlan(
                    index,
                    vertex.name,
                    vertex.parallelism,
                    f"{_SPARK_SOURCES[kind]} -> groupBy(g, t).transformWithStateInPandas("
                    f"timeMode={mode}, Append), every subtask in one group",
                    _SPARK_SOURCE_STATE[kind],
                )
            )
            continue
        frames.append(
            session.readStream.format(FORMAT)
            .option("spec", encode_object(spec))
            .option("max_records", str(options.max_records))
            .option("max_millis", str(options.max_millis))
            .option("control_dir", options.control_dir)
            .load()
        )
        plan.stages.append(
            StreamingStagePlan(
                index,
                vertex.name,
                vertex.parallelism,
                "Python stream source (SimpleDataSourceStreamReader, offsets per subtask)",
                "reader positions in the offset log",
            )
        )
    df = frames[0]
    for frame in frames[1:]:
        df = df.unionByName(frame)
    for index, (vertex, spec) in enumerate(zip(job_graph.vertices, specs, strict=True)):
        if _is_source(vertex):
            continue
        consumed = sorted(edge_index[id(e)] for e in vertex.inputs)
        mode = time_mode(vertex, settings)
        df = (
            grouping_columns(df, consumed)
            .groupBy("g", "t")
            .transformWithStateInPandas(
                statefulProcessor=vertex_processor(spec, mode == PROCESSING_TIME),
                outputStructType=OUTPUT_DDL,
                outputMode="Append",
                timeMode=mode,
            )
        )
        plan.stages.append(
            StreamingStagePlan(
                index,
                vertex.name,
                vertex.parallelism,
                f"groupBy(g, t).transformWithStateInPandas(timeMode={mode}, Append)",
                _state_description(vertex),
            )
        )
        for e in vertex.inputs:
            how = {
                "HASH": "target = key group → subtask (KeyGroupRangeAssignment)",
                "FORWARD": "target = same subtask",
                "REBALANCE": "target = round robin per producer",
                "BROADCAST": "a copy per target subtask",
            }.get(e.ship_strategy.value, f"target per {e.ship_strategy.value}")
            plan.edges.append(
                StreamingEdgePlan(
                    e.source.name,
                    vertex.name,
                    e.ship_strategy.value,
                    f"{how}; grouping key (0, target) of the consumer's transformWithState",
                )
            )
    return df, plan
