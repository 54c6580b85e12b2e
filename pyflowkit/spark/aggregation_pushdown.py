"""Flink's built-in keyed aggregations pushed down to Arrow in BATCH execution mode.

Stands for the combiner Flink's batch runtime runs in front of a grouped reduce
(``ChainedReduceCombineDriver``) before ``BatchGroupedReduceOperator`` folds the rest: each
producer subtask aggregates its records per key with Arrow's hash aggregation (C++, no Python fold)
and ships one or two partial records per key, placed where the key's records were in its output
(so each key still arrives first where it did, its timer and output order unchanged); the
vertex's chain then folds those few records with Flink's ``SumAggregator`` /
``ComparableAggregator``, so results never change:

- ``sum`` / ``min`` / ``max``: the key's first-seen record with the field replaced by the sum
  (wrapped as a Java int/long) or the extreme, at the first-seen position.
- ``min_by`` / ``max_by``: the first-seen record and the first extreme record, each at its own
  position (one record when they are the same): ties still go to the earlier record.

Records whose key or field does not have the declared type exactly are not combined: they travel
at their own positions and the chain folds them in order (sum is associative and commutative on
integers, so does min/max on strings and booleans). Floating-point fields are not pushed down (a
float sum depends on the fold order).

Without a declared key type (``key_by(lambda t: t[0])``, PyFlink's usual shape) the key type is
inferred per chunk from the keys themselves: a chunk whose keys are all ``str`` (with a UTF-8
form), all ``int`` (never ``bool``, within a Java long) or all ``bool`` is combined with that Arrow
key type; any other chunk (mixed types, ``None``, tuples, floats, lone surrogates) travels
uncombined as a whole. Partial records are still routed by Flink's hash of the real key
(``KeyGroupRangeAssignment``) and kept apart by Java's ``equals`` (``1``, ``True`` never merge).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from pyflowkit.java_semantics import key_identity
from pyflowkit.spark.typed_columns import TypedLayout, column_check
from pyflowkit.state.key_groups import key_batch_selector

_INTS = ("Byte", "Short", "Integer", "Long")
_COMPARABLE = (*_INTS, "String", "Boolean")
_KEY_TYPES = (*_INTS, "String", "Boolean")  # no float keys: Java's Double.equals is not Arrow's
_HEAD_CLASS = "StreamGroupedReduce"
_JAVA_BITS = {"Byte": 8, "Short": 16, "Integer": 32, "Long": 64}
# Configuration key; "false" keeps the chain's own Python fold for every Keyed Aggregation
ENABLED_KEY = "pyflowkit.spark.aggregation-pushdown"


def pushdown_enabled(job_graph: Any) -> bool:
    """Whether the pushdown is on (the default): ``ENABLED_KEY`` = "false" in the environment's
    Configuration turns it off (``env.get_configuration().set_string(ENABLED_KEY, "false")``)."""
    settings = getattr(getattr(job_graph, "stream_graph", None), "execution_config", None)
    configuration = getattr(settings, "configuration", None) or {}
    return str(configuration.get(ENABLED_KEY, "true")).lower() != "false"


@dataclass(frozen=True)
class Pushdown:
    """One Keyed Aggregation vertex whose input edge is combined per key by its producers."""

    vertex_name: str
    edge_index: int
    kind: str  # sum, min, max, min_by, max_by
    field: int  # position in the tuple/Row
    field_type: str  # BasicType value of the field
    key_type: str | None  # BasicType value of the declared key type; None: inferred per chunk
    layout: TypedLayout  # the edge's typed layout (the partial records travel typed)

    def describe(self) -> str:
        return (
            f"{self.vertex_name}: {self.kind}({self.field}) on {self.field_type} pushed down to "
            "the producers' Arrow stage (each producer subtask combines its records per key with "
            "Arrow's hash aggregation before the shuffle; the chain folds one partial record per "
            "key and producer)"
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
            why = f"off (Configuration '{ENABLED_KEY}' is 'false')"
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
            elif head.state_key_type is not None and key_type not in _KEY_TYPES:
                why = (
                    f"the declared key type {head.state_key_type} is not a Byte…Long, String or "
                    "Boolean (declare one, or none to infer it from the keys)"
                )
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
                        vertex.name, k, kind, position, field_type, key_type, layout
                    )
        if why is not None:
            reasons.append(f"{vertex.name}: not pushed down — {why}")
    return found, reasons


_BLOCK = 1 << 16  # records combined per Arrow call
_ARROW = {"Byte": "int8", "Short": "int16", "Integer": "int32", "Long": "int64"}
_ARRAY_CODES = {"Byte": "b", "Short": "h", "Integer": "i", "Long": "q"}  # Java widths in C
_ARROW.update(String="string", Boolean="bool_")
_positions_cache: list[Any] = []


_arrow_types: dict[str, Any] = {}


def _arrow_type(basic: str) -> Any:
    """The Arrow type of a BasicType value (one object per type, so blocks compare by identity)."""
    arrow_type = _arrow_types.get(basic)
    if arrow_type is None:
        import pyarrow as pa

        arrow_type = _arrow_types[basic] = getattr(pa, _ARROW[basic])()
    return arrow_type


def _positions(n: int) -> Any:
    """The int64 Arrow array 0, 1, …, n-1 (built once per worker)."""
    import pyarrow as pa

    if not _positions_cache or len(_positions_cache[0]) < n:
        _positions_cache[:] = [pa.array(range(max(n, _BLOCK)), pa.int64())]
    return _positions_cache[0].slice(0, n)


_INFERRED = (("String", str), ("Long", int), ("Boolean", bool))
_INFER_CHECKS = {basic: column_check(basic) for basic, _ in _INFERRED}


def infer_key_type(keys: list[Any]) -> str | None:
    """The BasicType value every key of a non-empty chunk has exactly (String with a UTF-8 form,
    Long for ints in range, Boolean), or None for a mixed chunk or any other key."""
    kinds = set(map(type, keys))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    for basic, exact in _INFERRED:
        if kind is exact:
            return basic if _INFER_CHECKS[basic](keys) else None
    return None


def _java_wrap(total: int, field_type: str) -> int:
    """``total`` as the Java ``byte``/``short``/``int``/``long`` sum (two's-complement wrap)."""
    half = 1 << (_JAVA_BITS[field_type] - 1)
    return ((total + half) & (2 * half - 1)) - half


class KeyedCombiner:
    """One producer subtask's combine step for one pushed-down aggregation: records in, one or
    two partial records per key out (see the module docstring), aggregated by Arrow in blocks.

    Stands for the sorting/hashing combiner of Flink's ``ChainedReduceCombineDriver`` running
    the aggregation's ``SumAggregator`` / ``ComparableAggregator``.
    """

    def __init__(self, pushdown: Pushdown, key_selector: Callable[[Any], Any]) -> None:
        import pyarrow as pa

        self.pushdown = pushdown
        self.select_keys = key_batch_selector(key_selector)  # converted per column if declared
        self.get_field = itemgetter(pushdown.field)
        self.inferred = pushdown.key_type is None  # the key type comes from each chunk
        self.check_key = None if self.inferred else column_check(pushdown.key_type)
        self.check_field = column_check(pushdown.field_type)
        self.key_type = None if self.inferred else getattr(pa, _ARROW[pushdown.key_type])()
        self.field_type = getattr(pa, _ARROW[pushdown.field_type])()
        # an int field collects in a C array of its Java width (range checked on the way in);
        # keys and other fields become Arrow arrays per call (no Python list of the whole block)
        self.code = _ARRAY_CODES.get(pushdown.field_type)
        self.keys: list[Any] = []  # Arrow arrays
        self.fields: Any = array(self.code) if self.code else []
        self.values: list[list[Any]] = []  # the records, as taken
        self.offsets: list[int] = []  # block index of each values[c][0]
        self.size = 0  # records in the block
        self.block_type = self.key_type  # the Arrow type of the block's keys
        self.start = 0  # the position of the block's first record
        # key → [first position, first record, aggregate] (sum/min/max) or
        #        [first position, first record, best position, best record, best field] (*_by)
        self.partials: dict[Any, list[Any]] = {}

    def add(self, values: list[Any], position: int) -> bool:
        """Take records at positions ``position``, ``position + 1``, …; False (nothing taken) when
        a key or field does not have its declared type exactly: they then travel as they are."""
        import pyarrow as pa

        try:
            fields = list(map(self.get_field, values))
        except (TypeError, IndexError, KeyError):
            return False
        keys = self.select_keys(values)
        key_type = self.key_type
        if self.inferred:
            if not keys:
                return True
            basic = infer_key_type(keys)
            if basic is None:
                return False
            key_type = _arrow_type(basic)
        elif not self.check_key(keys):
            return False
        if self.code:  # exactly ints (no bools) of the field's Java width
            if fields and set(map(type, fields)) != {int}:
                return False
            try:
                fields = array(self.code, fields)
            except OverflowError:
                return False
        elif not self.check_field(fields):
            return False
        key_array = pa.array(keys, key_type)
        if not self.code:
            fields = pa.array(fields, self.field_type)
        if self.size and (self.start + self.size != position or self.block_type != key_type):
            self._combine()
        self.block_type = key_type
        if not self.size:
            self.start = position
        self.keys.append(key_array)
        if self.code:
            self.fields += fields
        else:
            self.fields.append(fields)
        self.values.append(values)
        self.offsets.append(self.size)
        self.size += len(values)
        if self.size >= _BLOCK:
            self._combine()
        return True

    def _record(self, i: int) -> Any:
        """The block's record at block index ``i``."""
        c = bisect_right(self.offsets, i) - 1
        return self.values[c][i - self.offsets[c]]

    def _combine(self) -> None:
        """Arrow's hash aggregation over the block, merged into ``partials`` (earlier blocks
        first, so an earlier record keeps winning ties)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        p = self.pushdown
        n = self.size
        if not n:
            return
        table = pa.table(
            {
                "k": pa.concat_arrays(self.keys),
                "v": self._field_array(),
                "i": _positions(n),
            }
        )
        start, record, partials = self.start, self._record, self.partials
        if p.kind.endswith("_by"):
            first = table.group_by("k", use_threads=False).aggregate([("i", "min")])
            order = "ascending" if p.kind == "min_by" else "descending"
            ranked = table.take(pc.sort_indices(table, [("v", order), ("i", "ascending")]))
            best = dict(
                zip(
                    *(
                        ranked.group_by("k", use_threads=False)
                        .aggregate([("i", "first")])
                        .column(c)
                        .to_pylist()
                        for c in ("k", "i_first")
                    ),
                    strict=True,
                )
            )
            column = table.column("v")
            field_at = self.fields.__getitem__ if self.code else (lambda j: column[j].as_py())
            wins = (lambda a, b: a < b) if p.kind == "min_by" else (lambda a, b: a > b)
            for key, i in zip(
                first.column("k").to_pylist(), first.column("i_min").to_pylist(), strict=True
            ):
                b = best[key]
                field = field_at(b)
                key = key_identity(key)  # a bool key never merges with an int one
                entry = partials.get(key)
                if entry is None:
                    partials[key] = [start + i, record(i), start + b, record(b), field]
                elif wins(field, entry[4]):
                    entry[2:] = [start + b, record(b), field]
        else:
            op = p.kind
            agg = table.group_by("k", use_threads=False).aggregate([("i", "min"), ("v", op)])
            columns = (agg.column(c).to_pylist() for c in ("k", "i_min", f"v_{op}"))
            for key, i, v in zip(*columns, strict=True):
                key = key_identity(key)  # a bool key never merges with an int one
                entry = partials.get(key)
                if entry is None:
                    partials[key] = [start + i, record(i), v]
                elif op == "sum":
                    entry[2] += v
                elif (v < entry[2]) if op == "min" else (v > entry[2]):
                    entry[2] = v
        self.keys, self.values, self.offsets, self.size = [], [], [], 0
        self.fields = array(self.code) if self.code else []

    def _field_array(self) -> Any:
        import pyarrow as pa

        if not self.code:
            return pa.concat_arrays(self.fields)
        buffer = pa.py_buffer(self.fields)  # the C array's memory, not a copy
        return pa.Array.from_buffers(self.field_type, len(self.fields), [None, buffer])

    def drain(self) -> list[tuple[int, Any]]:
        """(position, partial record) of every key taken since the last drain; forgets them."""
        from pyflowkit.operators.window_aggregators import _set

        self._combine()
        p = self.pushdown
        out: list[tuple[int, Any]] = []
        for entry in self.partials.values():
            if p.kind.endswith("_by"):
                out.append((entry[0], entry[1]))
                if entry[2] != entry[0]:
                    out.append((entry[2], entry[3]))
                continue
            total = _java_wrap(entry[2], p.field_type) if p.kind == "sum" else entry[2]
            out.append((entry[0], _set(entry[1], p.field, total)))
        self.partials = {}
        return out
