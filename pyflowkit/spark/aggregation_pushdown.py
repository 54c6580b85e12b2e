"""Flink's built-in keyed aggregations as Spark's own aggregation, in BATCH execution mode.

Stands for a combiner in front of Flink's ``BatchGroupedReduceOperator`` running a
``SumAggregator`` / ``ComparableAggregator``: Spark folds each key's typed records down to the
one or two records whose fold gives the same result, placed where they were in the input (so the
key still arrives first where it did, its timer and output order unchanged); the vertex's chain
then runs unchanged on that shorter input. Records of a chunk that travelled pickled (did not fit
the declared types) pass through and are folded by the chain itself, in order, so results never
change:

- ``sum`` / ``min`` / ``max``: the key's first-seen record with the field replaced by the wrapped
  Java sum (or the extreme), at the first-seen position. The fold is associative and commutative
  on integers (and min/max on strings, booleans), so pickled records in between still fold right.
- ``min_by`` / ``max_by``: the first-seen record and the first-seen extreme record, each at its own
  position (one record when they are the same): ties still go to the earlier record.

Floating-point fields are not pushed down (a float sum depends on the fold order; Python's ``<``
on NaN is not Spark's ordering), nor keys without a declared basic key type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pyflowkit.spark import records
from pyflowkit.spark.typed_columns import KEY_FIELD, TypedLayout, with_key

_INTS = {"Byte": "tinyint", "Short": "smallint", "Integer": "int", "Long": "bigint"}
_COMPARABLE = (*_INTS, "String", "Boolean")
_KEY_TYPES = (*_INTS, "String", "Boolean")  # no float keys: Java's Double.equals is not Spark's
_HEAD_CLASS = "StreamGroupedReduce"
# opt-in Configuration key: measured slower than the chain's own Python fold on word count
# (benchmarks/bench_spark_aggregation.py, README), so it is off unless asked for
ENABLED_KEY = "pyflowkit.spark.aggregation-pushdown"


def pushdown_enabled(job_graph: Any) -> bool:
    """Whether the job asked for the pushdown: ``ENABLED_KEY`` = "true" in the environment's
    Configuration (``env.get_configuration().set_string(ENABLED_KEY, "true")``)."""
    settings = getattr(getattr(job_graph, "stream_graph", None), "execution_config", None)
    configuration = getattr(settings, "configuration", None) or {}
    return str(configuration.get(ENABLED_KEY, "false")).lower() == "true"


@dataclass(frozen=True)
class Pushdown:
    """One Keyed Aggregation vertex whose input is pre-aggregated by Spark."""

    vertex_name: str
    edge_index: int
    kind: str  # sum, min, max, min_by, max_by
    field: int  # position in the tuple/Row
    field_name: str  # the struct field of the typed column
    field_type: str  # BasicType value
    layout: TypedLayout  # the edge's layout, with the key as last struct field

    def describe(self) -> str:
        return (
            f"{self.vertex_name}: {self.kind}({self.field}) on {self.field_type} pushed down "
            f"to Spark (groupBy key per subtask, then the chain folds one record per key)"
        )


def find_pushdowns(
    job_graph: Any, layouts: dict[int, TypedLayout], runtime_mode: str
) -> tuple[dict[str, Pushdown], list[str]]:
    """(vertex id → Pushdown, why each other Keyed Aggregation vertex is not pushed down)."""
    edge_index = {id(e): i for i, e in enumerate(job_graph.edges)}
    found: dict[str, Pushdown] = {}
    reasons: list[str] = []
    for vertex in job_graph.vertices:
        head = vertex.stream_nodes[0]
        params = head.operator_factory.params or {}
        if head.operator_factory.operator_class != _HEAD_CLASS or not params.get("aggregation"):
            continue
        aggregation = params["aggregation"]
        why = None
        if not pushdown_enabled(job_graph):
            why = f"off (Configuration '{ENABLED_KEY}': 'true' turns it on)"
        elif runtime_mode != "BATCH":
            why = "STREAMING mode: the running updates are emitted per record"
        elif len(vertex.inputs) != 1:
            why = "more than one input edge"
        else:
            edge = vertex.inputs[0]
            k = edge_index[id(edge)]
            layout = layouts.get(k)
            kind, position = aggregation["kind"], aggregation["field"]
            key_type = getattr(getattr(head.state_key_type, "basic_type", None), "value", None)
            if edge.ship_strategy.value != "HASH":
                why = "the input is not key-partitioned (HASH)"
            elif layout is None or layout.kind not in ("tuple", "row"):
                why = "the input has no declared Tuple/Row type of basic fields"
            elif not isinstance(position, int) or position >= len(layout.basic):
                why = f"field {position!r} is not a position of the declared type"
            elif key_type not in _KEY_TYPES:
                why = "no declared basic key type (key_by(..., key_type=Types.STRING()/INT()…))"
            else:
                field_type = layout.basic[position]
                allowed = _INTS if kind == "sum" else _COMPARABLE
                if field_type not in allowed:
                    why = (
                        f"{kind} on a {field_type} field stays a Python fold (floating-point "
                        "results depend on the fold order / NaN ordering)"
                    )
                else:
                    found[vertex.id] = Pushdown(
                        vertex.name,
                        k,
                        kind,
                        position,
                        layout.field_names[position],
                        field_type,
                        with_key(layout, edge.stream_edge.partitioner.key_selector, key_type),
                    )
        if why is not None:
            reasons.append(f"{vertex.name}: not pushed down — {why}")
    return found, reasons


def _wrapped_sum(values: Any, field_type: str) -> Any:
    """The Java sum of ``values`` (wraps on overflow), computed exactly in a wider type."""
    from pyspark.sql import functions as F

    if field_type != "Long":  # |sum| < 2^31 * 2^32 records: exact in bigint
        total = F.sum(values.cast("bigint"))
        bits = {"Byte": 8, "Short": 16, "Integer": 32}[field_type]
        half = F.lit(1 << (bits - 1)).cast("bigint")
        wrapped = F.pmod(total + half, F.lit(1 << bits).cast("bigint")) - half
        return wrapped.cast(_INTS[field_type])
    total = F.sum(values.cast("decimal(38,0)"))
    half = F.lit(str(1 << 63)).cast("decimal(38,0)")  # beyond a JVM long literal
    wrapped = F.pmod(total + half, F.lit(str(1 << 64)).cast("decimal(38,0)")) - half
    return wrapped.cast("bigint")


def pre_aggregate(df: Any, pushdown: Pushdown) -> Any:
    """The vertex's input rows with each key's typed records folded to one or two records.

    Returns rows in the stage input schema plus ``sub`` (0: records, 1: a chunk's watermark,
    which must come after the records of its (seq, edge, producer)). ``df`` is read three
    times: the caller materialises it, so the producer stage runs once.
    """
    from pyspark.sql import functions as F

    column = pushdown.layout.column
    base = [*records.FIELDS, *records.TYPED_FIELDS]
    pickled = df.where(F.col("payload").isNotNull()).select(*base, column, F.lit(0).alias("sub"))
    typed = df.where(F.col("payload").isNull())
    empty = F.array().cast(pushdown.layout.spark_ddl.split(" ", 1)[1])
    control = typed.where(F.col("wm").isNotNull()).select(
        *records.FIELDS, F.lit(None).cast("array<bigint>").alias("ts"), "wm", "flags",
        empty.alias(column), F.lit(1).alias("sub"),
    )  # fmt: skip
    exploded = typed.select(
        "target", "edge", "producer", "seq", "flags", F.posexplode(column).alias("pos", "r")
    )
    order = F.struct("seq", "edge", "producer", "pos")
    item = F.struct("seq", "edge", "producer", "pos", "flags", "r")
    value = F.col("r")[pushdown.field_name]
    groups = exploded.groupBy("target", F.col("r")[KEY_FIELD].alias("_k"))
    if pushdown.kind in ("min_by", "max_by"):
        if pushdown.kind == "min_by":
            best = F.min_by(item, F.struct(value, order))
        else:
            later = F.struct(*(-F.col(c) for c in ("seq", "edge", "producer", "pos")))
            best = F.max_by(item, F.struct(value, later))
        picked = groups.agg(F.array_distinct(F.array(F.min_by(item, order), best)).alias("_x"))
        items = picked.select("target", F.explode("_x").alias("i"))
    else:
        if pushdown.kind == "sum":
            result = _wrapped_sum(value, pushdown.field_type)
        else:
            result = F.min(value) if pushdown.kind == "min" else F.max(value)
        agg = groups.agg(F.min_by(item, order).alias("i"), result.alias("_v"))
        items = agg.select(
            "target",
            F.col("i").withField("r", F.col("i.r").withField(pushdown.field_name, F.col("_v"))),
        )
        items = items.toDF("target", "i")
    chunks = items.groupBy("target", "i.seq", "i.edge", "i.producer", "i.flags").agg(
        F.array_sort(F.collect_list(F.struct("i.pos", "i.r"))).alias("_c")
    )
    folded = chunks.select(
        "edge",
        "target",
        "producer",
        "seq",
        F.lit(None).cast("binary").alias("payload"),
        F.lit(None).cast("array<bigint>").alias("ts"),
        F.lit(None).cast("bigint").alias("wm"),
        "flags",
        F.transform("_c", lambda c: c["r"]).alias(column),
        F.lit(0).alias("sub"),
    )
    return pickled.unionByName(control).unionByName(folded)
