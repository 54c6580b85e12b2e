"""The shared pipeline catalog: pipelines written with the public PyFlink-shaped API, each with a
plain-Python ``expected(mode)`` (records per print sink and the order Flink guarantees).

Routing expectations come from ``java_ref`` (reference §1.5) under the Flink version the
environments of the calling test follow (``spec.expected_version``: 1.11 hashes the key, 1.20's PyFlink
``key_by`` hashes ``Row.of(key)``), window/aggregation semantics from
reference §9 (e.g. ``countWindow(2,1).sum(1)``). Bounded collection sources emit no watermark
before end of input (1.11's ProcessingTime characteristic: auto-watermark interval 0), so their
event-time windows fire at end of input; mid-stream watermarks and late data come from a
``SourceFunction`` that emits them explicitly.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from pyflowkit.common import Duration, Row, Time, Types, WatermarkStrategy
from pyflowkit.common.watermark_strategy import TimestampAssigner
from pyflowkit.datastream import OutputTag, RuntimeExecutionMode, TimeCharacteristic
from pyflowkit.datastream.connectors.number_seq import NumberSequenceSource
from pyflowkit.datastream.functions import (
    AggregateFunction,
    CoFlatMapFunction,
    CoMapFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    Partitioner,
    ProcessFunction,
    ProcessWindowFunction,
    SourceFunction,
    WindowFunction,
)
from pyflowkit.datastream.state import (
    ListStateDescriptor,
    MapStateDescriptor,
    ValueStateDescriptor,
)
from pyflowkit.datastream.window import (
    EventTimeSessionWindows,
    SlidingEventTimeWindows,
    TumblingEventTimeWindows,
)
from tests.pipelines.java_ref import subtask_of
from tests.pipelines.spec import (
    BATCH,
    STREAMING,
    V1_20,
    Order,
    Pipeline,
    RowValue,
    SinkSpec,
    expected_version,
)

S, INT, L = Types.STRING, Types.INT, Types.LONG
T_SI = Types.TUPLE([S(), INT()])
T_SIS = Types.TUPLE([S(), INT(), S()])
CATALOG: list[Pipeline] = []


def register(p: Pipeline) -> Pipeline:
    assert p.name not in {q.name for q in CATALOG}, p.name
    CATALOG.append(p)
    return p


def setup(env: Any, parallelism: int) -> None:
    env.set_parallelism(parallelism)


def first(t: Any) -> Any:
    return t[0]


def subtask(key: Any, parallelism: int) -> int:
    """The 0-based subtask ``key`` is routed to under ``expected_version()``."""
    return subtask_of(key, parallelism, version=expected_version())


def by_subtask(records: list[Any], key: Any, parallelism: int) -> dict[int, list[Any]]:
    """Expected placement of keyed records: each on the subtask its key's key group maps to."""
    version = expected_version()
    out: dict[int, list[Any]] = defaultdict(list)
    for r in records:
        out[subtask_of(key(r), parallelism, version=version)].append(r)
    return dict(out)


def running(data: list[tuple], combine: Any) -> list[tuple]:
    """Keyed rolling aggregation: the updated value per input record (reference §9.4)."""
    state: dict[Any, Any] = {}
    out = []
    for rec in data:
        k = rec[0]
        state[k] = rec if k not in state else combine(state[k], rec)
        out.append(state[k])
    return out


def finals(data: list[tuple], combine: Any) -> list[tuple]:
    """BATCH keyed aggregation: one final value per key."""
    last: dict[Any, Any] = {}
    for value in running(data, combine):
        last[value[0]] = value
    return list(last.values())


def keyed_rolling(records: list[tuple], batch: list[tuple], mode: str, p: int) -> SinkSpec:
    """A keyed rolling result: exact per subtask in STREAMING, final values in BATCH."""
    if mode == BATCH:
        return SinkSpec(batch, p, Order.MULTISET, subtasks=by_subtask(batch, first, p))
    order = Order.PER_SUBTASK if p > 1 else Order.TOTAL
    return SinkSpec(records, p, order, subtasks=by_subtask(records, first, p))


# ---------------------------------------------------------------------------------------------
# map / flat_map / filter
# ---------------------------------------------------------------------------------------------
def _map_filter(env: Any) -> None:
    setup(env, 1)
    (
        env.from_collection(list(range(1, 13)), type_info=INT())
        .map(lambda x: x * 10, output_type=INT())
        .filter(lambda x: x % 30 != 0)
        .print("out")
    )


register(
    Pipeline(
        "map_filter_chain",
        _map_filter,
        lambda mode: {"out": SinkSpec([x * 10 for x in range(1, 13) if x % 3])},
    )
)

LINES = ["to be or not to be", "that is the question", "whether tis nobler"]


def _flat_map_untyped(env: Any) -> None:
    setup(env, 1)
    (
        env.from_collection(LINES)
        .flat_map(lambda line: line.split())
        .map(lambda w: (w, len(w)))
        .print("words")
    )


register(
    Pipeline(
        "flat_map_untyped_pickled",
        _flat_map_untyped,
        lambda mode: {
            "words": SinkSpec([(w, len(w)) for line in LINES for w in line.split()], typed=False)
        },
    )
)


def _rebalance_check(n: int, total: int) -> Any:
    """Round robin from one writer: record i goes to channel (start + i) % n for one start."""

    def check(per_subtask: dict[int, list[str]]) -> None:
        where = {int(b): k for k, bodies in per_subtask.items() for b in bodies}
        start = where[0]
        assert all(where[i] == (start + i) % n for i in range(total)), where
        for bodies in per_subtask.values():
            assert [int(b) for b in bodies] == sorted(int(b) for b in bodies)

    return check


def _rebalance(env: Any) -> None:
    setup(env, 3)
    env.from_collection(list(range(12)), type_info=INT()).map(lambda x: x, output_type=INT()).print(
        "rr"
    )


register(
    Pipeline(
        "partition_rebalance_default_p1_to_p3",
        _rebalance,
        lambda mode: {
            "rr": SinkSpec(list(range(12)), 3, Order.MULTISET, check=_rebalance_check(3, 12))
        },
    )
)


# ---------------------------------------------------------------------------------------------
# keyed reduce and aggregations
# ---------------------------------------------------------------------------------------------
WORD_PAIRS = [("a", 1), ("b", 2), ("hello", 3), ("a", 4), ("c", 5), ("b", 6), ("a", 7), ("d", 8)]


def _add(x: tuple, y: tuple) -> tuple:
    return (x[0], x[1] + y[1])


def _keyed_reduce(env: Any) -> None:
    setup(env, 2)
    (
        env.from_collection(WORD_PAIRS, type_info=T_SI)
        .key_by(first, key_type=S())
        .reduce(lambda x, y: (x[0], x[1] + y[1]))
        .print("out")
    )


register(
    Pipeline(
        "keyed_reduce_p2",
        _keyed_reduce,
        lambda mode: {
            "out": keyed_rolling(running(WORD_PAIRS, _add), finals(WORD_PAIRS, _add), mode, 2)
        },
    )
)

TRIPLES = [("a", 5, "p"), ("a", 3, "q"), ("b", 7, "r"), ("a", 4, "s"), ("b", 9, "t"), ("a", 3, "u")]


def _sum_keep_first(x: tuple, y: tuple) -> tuple:
    return (x[0], x[1] + y[1], x[2])  # SumAggregator copies value1: other fields from the first


def _min_field(x: tuple, y: tuple) -> tuple:
    return (x[0], min(x[1], y[1]), x[2])


def _max_field(x: tuple, y: tuple) -> tuple:
    return (x[0], max(x[1], y[1]), x[2])


def _min_by(x: tuple, y: tuple) -> tuple:
    return y if y[1] < x[1] else x  # ties keep the first (minBy(pos, first=true))


def _max_by(x: tuple, y: tuple) -> tuple:
    return y if y[1] > x[1] else x


def _sum_tuple(env: Any) -> None:
    setup(env, 1)
    env.from_collection(TRIPLES, type_info=T_SIS).key_by(first, key_type=S()).sum(1).print("sum")


register(
    Pipeline(
        "keyed_sum_tuple_keeps_first_fields",
        _sum_tuple,
        lambda mode: {
            "sum": keyed_rolling(
                running(TRIPLES, _sum_keep_first), finals(TRIPLES, _sum_keep_first), mode, 1
            )
        },
    )
)


def _min_max(env: Any) -> None:
    setup(env, 2)
    keyed = env.from_collection(TRIPLES, type_info=T_SIS).key_by(first, key_type=S())
    keyed.min(1).print("min")
    keyed.max(1).print("max")


register(
    Pipeline(
        "keyed_min_max_tuple_p2",
        _min_max,
        lambda mode: {
            "min": keyed_rolling(
                running(TRIPLES, _min_field), finals(TRIPLES, _min_field), mode, 2
            ),
            "max": keyed_rolling(
                running(TRIPLES, _max_field), finals(TRIPLES, _max_field), mode, 2
            ),
        },
    )
)


def _min_by_max_by(env: Any) -> None:
    setup(env, 1)
    keyed = env.from_collection(TRIPLES, type_info=T_SIS).key_by(first, key_type=S())
    keyed.min_by(1).print("min_by")
    keyed.max_by(1).print("max_by")


register(
    Pipeline(
        "keyed_min_by_max_by_tuple",
        _min_by_max_by,
        lambda mode: {
            "min_by": keyed_rolling(running(TRIPLES, _min_by), finals(TRIPLES, _min_by), mode, 1),
            "max_by": keyed_rolling(running(TRIPLES, _max_by), finals(TRIPLES, _max_by), mode, 1),
        },
    )
)

ROWS = [("a", 3), ("b", 10), ("a", 8), ("a", 1), ("b", 2)]
T_ROW = Types.ROW_NAMED(["name", "amount"], [S(), INT()])


def _rows(expected: list[tuple]) -> list[RowValue]:
    return [RowValue(r) for r in expected]


def _row_fields(env: Any) -> None:
    setup(env, 2)
    rows = [Row(name=n, amount=a) for n, a in ROWS]
    keyed = env.from_collection(rows, type_info=T_ROW).key_by(lambda r: r.name, key_type=S())
    keyed.sum("amount").print("sum")
    keyed.max_by("amount").print("max_by")


def _row_positional(env: Any) -> None:
    setup(env, 2)
    rows = [Row(n, a) for n, a in ROWS]  # field names come from the declared ROW_NAMED type
    keyed = env.from_collection(rows, type_info=T_ROW).key_by(lambda r: r[0], key_type=S())
    keyed.sum("amount").print("sum")
    keyed.max_by("amount").print("max_by")


def _row_expect(mode: str) -> dict[str, SinkSpec]:
    out = {}
    for sink, fn in (("sum", _add), ("max_by", _max_by)):
        rolling, batch = running(ROWS, fn), finals(ROWS, fn)
        out[sink] = keyed_rolling(_rows(rolling), _rows(batch), mode, 2)
    return out


register(Pipeline("keyed_row_field_sum_max_by_p2", _row_fields, _row_expect))
register(Pipeline("keyed_row_positional_named_by_type_p2", _row_positional, _row_expect))

INT_KEYS = [(1, 1), (2, 1), (42, 1), (100, 1), (1, 1), (42, 1), (2, 1), (1, 1)]


def _int_key_routing(env: Any) -> None:
    setup(env, 4)
    (
        env.from_collection(INT_KEYS, type_info=Types.TUPLE([INT(), INT()]))
        .key_by(first, key_type=INT())
        .sum(1)
        .print("k")
    )


register(
    Pipeline(
        "key_by_int_keys_p4_routing",
        _int_key_routing,
        lambda mode: {"k": keyed_rolling(running(INT_KEYS, _add), finals(INT_KEYS, _add), mode, 4)},
        notes="reference §1.5 vectors: 1→2, 2→3, 42→0, 100→2 at p=4",
    )
)

STR_KEYS = [("a", 1), ("b", 1), ("hello", 1), ("a", 1), ("hello", 1), ("b", 1), ("a", 1)]


def _str_key_routing(env: Any) -> None:
    setup(env, 3)
    env.from_collection(STR_KEYS, type_info=T_SI).key_by(first, key_type=S()).sum(1).print("k")


register(
    Pipeline(
        "key_by_string_keys_p3_routing",
        _str_key_routing,
        lambda mode: {"k": keyed_rolling(running(STR_KEYS, _add), finals(STR_KEYS, _add), mode, 3)},
        notes="reference §1.5 vectors: a→1, b→0, hello→0 at p=3",
    )
)


def _reduce_then_merge(env: Any) -> None:
    setup(env, 4)
    (
        env.from_collection(WORD_PAIRS, type_info=T_SI)
        .key_by(first, key_type=S())
        .reduce(lambda x, y: (x[0], x[1] + y[1]))
        .map(lambda t: (t[0], t[1] * 10), output_type=T_SI)
        .set_parallelism(4)
        .print("merged")
        .set_parallelism(1)
    )


def _reduce_then_merge_expect(mode: str) -> dict[str, SinkSpec]:
    def scale(rs: list[tuple]) -> list[tuple]:
        return [(k, v * 10) for k, v in rs]

    if mode == BATCH:
        return {"merged": SinkSpec(scale(finals(WORD_PAIRS, _add)), 1, Order.MULTISET)}
    return {"merged": SinkSpec(scale(running(WORD_PAIRS, _add)), 1, Order.PER_KEY, key=first)}


register(
    Pipeline(
        "keyed_reduce_p4_rebalanced_into_p1_sink", _reduce_then_merge, _reduce_then_merge_expect
    )
)


def _seq_batch_sum(env: Any) -> None:
    setup(env, 2)
    (
        env.generate_sequence(1, 20)
        .map(lambda x: (x % 3, x), output_type=Types.TUPLE([INT(), L()]))
        .key_by(first, key_type=INT())
        .sum(1)
        .print("sum")
    )


def _seq_batch_expect(mode: str) -> dict[str, SinkSpec]:
    totals: dict[int, int] = defaultdict(int)
    for x in range(1, 21):
        totals[x % 3] += x
    recs = sorted(totals.items())
    return {"sum": SinkSpec(recs, 2, Order.MULTISET, subtasks=by_subtask(recs, first, 2))}


register(
    Pipeline(
        "generate_sequence_keyed_sum_batch_final_values",
        _seq_batch_sum,
        _seq_batch_expect,
        modes=(BATCH,),
        notes="STREAMING running sums interleave two source subtasks (not deterministic)",
    )
)


# ---------------------------------------------------------------------------------------------
# windows (end-of-input firing on bounded sources)
# ---------------------------------------------------------------------------------------------
EVENTS = [  # (key, value, timestamp): out of order
    ("a", 1, 1),
    ("b", 2, 3),
    ("a", 3, 12),
    ("a", 4, 7),
    ("b", 5, 14),
    ("a", 6, 25),
    ("b", 7, 2),
    ("a", 8, 18),
    ("b", 9, 27),
    ("a", 10, 11),
]


class EventTimeOf(TimestampAssigner):
    """The event's third field as its timestamp (PyFlink 1.20 takes only a ``TimestampAssigner``
    here, not a lambda)."""

    def extract_timestamp(self, value: Any, record_timestamp: int) -> int:
        return value[2]


def _timed(env: Any, parallelism: int, data: list[tuple] = EVENTS) -> Any:
    setup(env, parallelism)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(5)
    ).with_timestamp_assigner(EventTimeOf())
    return (
        env.from_collection(data, type_info=Types.TUPLE([S(), INT(), INT()]))
        .assign_timestamps_and_watermarks(strategy)
        .map(lambda e: (e[0], e[1]), output_type=T_SI)
    )


def _windows_of(ts: int, size: int, slide: int) -> list[tuple[int, int]]:
    last = ts - (ts + slide) % slide
    out = []
    start = last
    while start > ts - size:
        out.append((start, start + size))
        start -= slide
    return out


def window_groups(data: list[tuple], size: int, slide: int) -> dict[tuple, list[tuple]]:
    """(key, start, end) → elements, in arrival order; sorted by key then window end."""
    groups: dict[tuple, list[tuple]] = defaultdict(list)
    for k, v, ts in data:
        for start, end in _windows_of(ts, size, slide):
            groups[(k, start, end)].append((k, v, ts))
    return dict(sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][2])))


def keyed_windows(records: list[tuple], p: int) -> SinkSpec:
    return SinkSpec(records, p, Order.PER_KEY, key=first, subtasks=by_subtask(records, first, p))


def _tumbling_reduce(env: Any) -> None:
    (
        _timed(env, 2)
        .key_by(first, key_type=S())
        .window(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .reduce(lambda x, y: (x[0], x[1] + y[1]))
        .print("tumble")
    )


register(
    Pipeline(
        "tumbling_event_time_reduce_out_of_order_p2",
        _tumbling_reduce,
        lambda mode: {
            "tumble": keyed_windows(
                [
                    (k, sum(e[1] for e in es))
                    for (k, _, _), es in window_groups(EVENTS, 10, 10).items()
                ],
                2,
            )
        },
    )
)


def _sliding_sum(env: Any) -> None:
    (
        _timed(env, 1)
        .key_by(first, key_type=S())
        .window(SlidingEventTimeWindows.of(Time.milliseconds(10), Time.milliseconds(5)))
        .sum(1)
        .print("slide")
    )


register(
    Pipeline(
        "sliding_event_time_sum",
        _sliding_sum,
        lambda mode: {
            "slide": SinkSpec(
                [
                    (k, sum(e[1] for e in es))
                    for (k, _, _), es in window_groups(EVENTS, 10, 5).items()
                ],
                1,
                Order.PER_KEY,
                key=first,
            )
        },
    )
)


class SessionSummary(ProcessWindowFunction):
    def process(self, key: Any, context: Any, elements: Any) -> Any:
        values = [e[1] for e in elements]
        w = context.window()
        yield (key, w.start, w.end, len(values), sum(values))


SESSIONS = [
    ("a", 1, 1),
    ("a", 2, 3),
    ("b", 3, 2),
    ("a", 4, 10),
    ("a", 5, 12),
    ("b", 6, 20),
    ("a", 7, 30),
    ("b", 8, 23),
    ("a", 9, 6),
]


def session_groups(data: list[tuple], gap: int) -> list[tuple]:
    """Merge [ts, ts+gap) intervals per key; (key, start, end, count, sum) by key, then end."""
    per_key: dict[str, list[tuple]] = defaultdict(list)
    for k, v, ts in data:
        per_key[k].append((ts, v))
    out = []
    for k in sorted(per_key):
        sessions: list[list] = []
        for ts, v in sorted(per_key[k]):
            if sessions and ts < sessions[-1][1]:
                sessions[-1][1] = max(sessions[-1][1], ts + gap)
                sessions[-1][2].append(v)
            else:
                sessions.append([ts, ts + gap, [v]])
        out += [(k, s, e, len(vs), sum(vs)) for s, e, vs in sessions]
    return out


def _session(env: Any) -> None:
    (
        _timed(env, 2, SESSIONS)
        .key_by(first, key_type=S())
        .window(EventTimeSessionWindows.with_gap(Time.milliseconds(5)))
        .process(SessionSummary(), output_type=Types.TUPLE([S(), L(), L(), INT(), INT()]))
        .print("session")
    )


register(
    Pipeline(
        "session_windows_process_window_function_p2",
        _session,
        lambda mode: {"session": keyed_windows(session_groups(SESSIONS, 5), 2)},
    )
)


class Average(AggregateFunction):
    def create_accumulator(self) -> Any:
        return (0, 0)

    def add(self, value: Any, accumulator: Any) -> Any:
        return (accumulator[0] + value[1], accumulator[1] + 1)

    def get_result(self, accumulator: Any) -> Any:
        return accumulator[0] / accumulator[1]

    def merge(self, acc_a: Any, acc_b: Any) -> Any:
        return (acc_a[0] + acc_b[0], acc_a[1] + acc_b[1])


class KeyedAverage(ProcessWindowFunction):
    def process(self, key: Any, context: Any, elements: Any) -> Any:
        for avg in elements:
            yield (key, context.window().start, avg)


def _aggregate(env: Any) -> None:
    (
        _timed(env, 1)
        .key_by(first, key_type=S())
        .window(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .aggregate(
            Average(),
            window_function=KeyedAverage(),
            output_type=Types.TUPLE([S(), L(), Types.DOUBLE()]),
        )
        .print("avg")
    )


register(
    Pipeline(
        "tumbling_aggregate_with_process_window_function",
        _aggregate,
        lambda mode: {
            "avg": SinkSpec(
                [
                    (k, s, sum(e[1] for e in es) / len(es))
                    for (k, s, _), es in window_groups(EVENTS, 10, 10).items()
                ],
                1,
                Order.PER_KEY,
                key=first,
            )
        },
    )
)


class CountApply(WindowFunction):
    def apply(self, key: Any, window: Any, inputs: Any) -> Any:
        values = sorted(v for _, v in inputs)  # arrival order varies: the map rebalances
        yield (key, window.end, ",".join(str(v) for v in values))


def _apply(env: Any) -> None:
    (
        _timed(env, 3)
        .key_by(first, key_type=S())
        .window(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .apply(CountApply(), output_type=Types.TUPLE([S(), L(), S()]))
        .print("apply")
    )


register(
    Pipeline(
        "tumbling_window_apply_p3",
        _apply,
        lambda mode: {
            "apply": keyed_windows(
                [
                    (k, e, ",".join(str(v) for v in sorted(x[1] for x in es)))
                    for (k, _, e), es in window_groups(EVENTS, 10, 10).items()
                ],
                3,
            )
        },
    )
)


def _window_all(env: Any) -> None:
    (
        _timed(env, 2)
        .window_all(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .reduce(lambda x, y: ("all", x[1] + y[1]), output_type=T_SI)
        .print("all")
        .set_parallelism(1)
    )


def _window_all_expect(mode: str) -> dict[str, SinkSpec]:
    sums: dict[int, int] = defaultdict(int)
    for _, v, ts in EVENTS:
        sums[ts - ts % 10] += v
    return {"all": SinkSpec([("all", sums[s]) for s in sorted(sums)])}


register(Pipeline("window_all_tumbling_event_time", _window_all, _window_all_expect))


def _count_purging(env: Any) -> None:
    setup(env, 2)
    data = [("a", i) if i % 3 else ("b", i) for i in range(1, 15)]
    (
        env.from_collection(data, type_info=T_SI)
        .key_by(first, key_type=S())
        .count_window(3)
        .reduce(lambda x, y: (x[0], x[1] + y[1]))
        .print("count")
    )


def _count_purging_expect(mode: str) -> dict[str, SinkSpec]:
    data = [("a", i) if i % 3 else ("b", i) for i in range(1, 15)]
    per_key: dict[str, list[int]] = defaultdict(list)
    out = []
    for k, v in data:
        per_key[k].append(v)
        if len(per_key[k]) == 3:  # CountTrigger(3) inside PurgingTrigger: fire and purge
            out.append((k, sum(per_key.pop(k))))
    return {"count": SinkSpec(out, 2, Order.PER_SUBTASK, subtasks=by_subtask(out, first, 2))}


register(
    Pipeline(
        "count_window_tumbling_purges_remainder_dropped",
        _count_purging,
        _count_purging_expect,
    )
)

ALTERNATING = [("a" if i % 2 == 0 else "b", i) for i in range(7)]


def _count_2_1(env: Any) -> None:
    setup(env, 2)
    (
        env.from_collection(ALTERNATING, type_info=T_SI)
        .key_by(first, key_type=S())
        .count_window(2, 1)
        .sum(1)
        .print("cw")
    )


REFERENCE_COUNT_2_1 = [("a", 0), ("b", 1), ("a", 2), ("b", 4), ("a", 6), ("b", 8), ("a", 10)]


def count_sliding(data: list[tuple], size: int, slide: int, combine: Any) -> list[tuple]:
    """PyFlink 1.20's ``count_window(size, slide)`` (``CountSlidingWindowAssigner``, FLINK-26444):
    a key's window i holds its elements [i*slide, i*slide+size) and fires once, when full."""
    seen: dict[Any, list[tuple]] = defaultdict(list)
    out = []
    for rec in data:
        elements = seen[rec[0]]
        elements.append(rec)
        start = len(elements) - size
        if start >= 0 and start % slide == 0:
            window = elements[start:]
            acc = window[0]
            for nxt in window[1:]:
                acc = combine(acc, nxt)
            out.append(acc)
    return out


def _count_2_1_expect(mode: str) -> dict[str, SinkSpec]:
    if expected_version() == V1_20:  # [a0,a2] [a2,a4] [a4,a6]; [b1,b3] [b3,b5]
        records = count_sliding(ALTERNATING, 2, 1, _add)
    else:  # 1.11: CountTrigger(1) + CountEvictor(2): the first element fires alone
        records = REFERENCE_COUNT_2_1
    subtasks = by_subtask(records, first, 2)
    return {"cw": SinkSpec(records, 2, Order.PER_SUBTASK, subtasks=subtasks)}


register(
    Pipeline(
        "count_window_2_1_sum_reference_run",
        _count_2_1,
        _count_2_1_expect,
        notes="reference §9.4 [run]: (a,0),(b,1),(a,2),(b,4),(a,6),(b,8),(a,10)",
    )
)


def _count_3_2(env: Any) -> None:
    setup(env, 1)
    data = [("k", v) for v in (1, 2, 4, 8, 16, 32, 64)]
    (
        env.from_collection(data, type_info=T_SI)
        .key_by(first, key_type=S())
        .count_window(3, 2)
        .reduce(lambda x, y: (x[0], x[1] + y[1]))
        .print("cw")
    )


register(
    Pipeline(
        "count_window_3_2_sliding_evictor",
        _count_3_2,
        # 1.11 fires every 2nd element over the last 3: [1,2] [2,4,8] [8,16,32]; 1.20's
        # CountSlidingWindowAssigner [1,2,4] [4,8,16] [16,32,64]
        lambda mode: {
            "cw": SinkSpec(
                count_sliding([("k", v) for v in (1, 2, 4, 8, 16, 32, 64)], 3, 2, _add)
                if expected_version() == V1_20
                else [("k", 3), ("k", 14), ("k", 56)]
            )
        },
    )
)


def _count_all(env: Any) -> None:
    setup(env, 1)
    (
        env.from_collection(list(range(1, 11)), type_info=INT())
        .count_window_all(3)
        .reduce(lambda x, y: x + y, output_type=INT())
        .print("cwa")
    )


register(
    Pipeline(
        "count_window_all_3",
        _count_all,
        lambda mode: {"cwa": SinkSpec([6, 15, 24])},
    )
)


# ---------------------------------------------------------------------------------------------
# late data: a SourceFunction with explicit watermarks (unbounded by declaration, STREAMING only)
# ---------------------------------------------------------------------------------------------
class ScriptedSource(SourceFunction):
    """Emits ("r", record, ts) and ("w", watermark) steps in order, then finishes."""

    def __init__(self, script: list[tuple]) -> None:
        self.script = script

    def run(self, ctx: Any) -> None:
        for step in self.script:
            if step[0] == "r":
                ctx.collect_with_timestamp(step[1], step[2])
            else:
                ctx.emit_watermark(step[1])


LATE_SCRIPT = [
    ("r", ("a", 1), 1),
    ("r", ("a", 2), 7),
    ("r", ("b", 3), 3),
    ("r", ("a", 4), 12),
    ("w", 10),  # fires [0,10): a=3, b=3
    ("r", ("a", 5), 4),  # late but within lateness 5 (9 + 5 > 10): re-fires a [0,10) = 8
    ("w", 16),  # cleanup of [0,10) at 9 + 5 = 14
    ("r", ("a", 6), 2),  # too late → late side output
    ("r", ("b", 7), 15),
]
LATE = OutputTag("late", T_SI)


def _late(env: Any) -> None:
    setup(env, 2)
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)  # timestamps kept (1.11)
    windowed = (
        env.add_source(ScriptedSource(LATE_SCRIPT), "Scripted Events", type_info=T_SI)
        .key_by(first, key_type=S())
        .window(TumblingEventTimeWindows.of(Time.milliseconds(10)))
        .allowed_lateness(5)
        .side_output_late_data(LATE)
        .reduce(lambda x, y: (x[0], x[1] + y[1]), output_type=T_SI)
    )
    windowed.print("main")
    windowed.get_side_output(LATE).print("late")


register(
    Pipeline(
        "tumbling_allowed_lateness_late_side_output",
        _late,
        lambda mode: {
            "main": keyed_windows([("a", 3), ("b", 3), ("a", 8), ("a", 4), ("b", 7)], 2),
            "late": SinkSpec([("a", 6)], 2, Order.MULTISET, subtasks={subtask("a", 2): [("a", 6)]}),
        },
        modes=(STREAMING,),
        bounded=False,
    )
)

LATE_DROP_SCRIPT = [
    ("r", ("x", 1), 1000),
    ("r", ("x", 1), 2000),
    ("w", 6999),
    ("r", ("x", 1), 3000),  # reference §9.4 [run]: dropped, window [0,5000) counts 2
    ("r", ("x", 1), 7000),
]


def _late_dropped(env: Any) -> None:
    setup(env, 1)
    env.set_stream_time_characteristic(TimeCharacteristic.EventTime)
    (
        env.add_source(ScriptedSource(LATE_DROP_SCRIPT), "Scripted Events", type_info=T_SI)
        .key_by(first, key_type=S())
        .window(TumblingEventTimeWindows.of(Time.seconds(5)))
        .sum(1)
        .print("count")
    )


register(
    Pipeline(
        "tumbling_late_element_dropped_without_lateness",
        _late_dropped,
        lambda mode: {"count": SinkSpec([("x", 2), ("x", 1)])},
        modes=(STREAMING,),
        bounded=False,
    )
)


# ---------------------------------------------------------------------------------------------
# keyed process functions: state and timers
# ---------------------------------------------------------------------------------------------
class StatefulTimers(KeyedProcessFunction):
    def open(self, runtime_context: Any) -> None:
        self.count = runtime_context.get_state(ValueStateDescriptor("count", INT()))
        self.values = runtime_context.get_list_state(ListStateDescriptor("values", INT()))
        self.parity = runtime_context.get_map_state(MapStateDescriptor("parity", S(), INT()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        self.values.add(value[1])
        p = "even" if value[1] % 2 == 0 else "odd"
        self.parity.put(p, (self.parity.get(p) or 0) + 1)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 100)
        yield (ctx.get_current_key(), "count", n)

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        parity = "|".join(f"{k}={v}" for k, v in sorted(self.parity.items()))
        yield (ctx.get_current_key(), f"t{timestamp}:{parity}", sum(self.values.get()))


def _keyed_process(env: Any) -> None:
    (
        _timed(env, 2)
        .key_by(first, key_type=S())
        .process(StatefulTimers(), output_type=Types.TUPLE([S(), S(), INT()]))
        .print("kp")
    )


def _keyed_process_expect(mode: str) -> dict[str, SinkSpec]:
    out: list[tuple] = []
    per_key: dict[str, list[tuple]] = defaultdict(list)
    for k, v, ts in EVENTS:
        per_key[k].append((v, ts))
        out.append((k, "count", len(per_key[k])))
    for k in sorted(per_key):  # all timers fire at end of input, per key in timestamp order
        vals = [v for v, _ in per_key[k]]
        even = sum(1 for v in vals if v % 2 == 0)
        parity = "|".join(f"{n}={c}" for n, c in (("even", even), ("odd", len(vals) - even)) if c)
        for t in sorted({ts + 100 for _, ts in per_key[k]}):
            out.append((k, f"t{t}:{parity}", sum(vals)))
    return {"kp": keyed_windows(out, 2)}


register(
    Pipeline(
        "keyed_process_value_list_map_state_event_timers_p2",
        _keyed_process,
        _keyed_process_expect,
    )
)


class ProcessingTimeTimerOnce(KeyedProcessFunction):
    def open(self, runtime_context: Any) -> None:
        self.count = runtime_context.get_state(ValueStateDescriptor("count", INT()))

    def process_element(self, value: Any, ctx: Any) -> Any:
        n = (self.count.value() or 0) + 1
        self.count.update(n)
        if n == 1:
            far = ctx.timer_service().current_processing_time() + 10**9
            ctx.timer_service().register_processing_time_timer(far)
        yield (ctx.get_current_key(), "seen", n)

    def on_timer(self, timestamp: int, ctx: Any) -> Any:
        yield (ctx.get_current_key(), "fired", self.count.value())


def _proc_timer(env: Any) -> None:
    setup(env, 1)
    (
        env.from_collection(WORD_PAIRS, type_info=T_SI)
        .key_by(first, key_type=S())
        .process(ProcessingTimeTimerOnce(), output_type=Types.TUPLE([S(), S(), INT()]))
        .print("pt")
    )


def _proc_timer_expect(mode: str) -> dict[str, SinkSpec]:
    seen: dict[str, int] = defaultdict(int)
    out = []
    for k, _ in WORD_PAIRS:
        seen[k] += 1
        out.append((k, "seen", seen[k]))
    if mode == BATCH:  # BATCH: processing-time timers fire at end of input
        out += [(k, "fired", n) for k, n in seen.items()]
        return {"pt": SinkSpec(out, 1, Order.PER_KEY, key=first)}
    # STREAMING (1.11): a finishing task quiesces its timer service; far timers never fire
    return {"pt": SinkSpec(out)}


register(
    Pipeline(
        "keyed_process_processing_time_timer_far_future",
        _proc_timer,
        _proc_timer_expect,
    )
)


# ---------------------------------------------------------------------------------------------
# connect, union, side outputs
# ---------------------------------------------------------------------------------------------
class TagBoth(CoMapFunction):
    def map1(self, value: Any) -> Any:
        return f"int:{value}"

    def map2(self, value: Any) -> Any:
        return f"str:{value}"


def _co_map(env: Any) -> None:
    setup(env, 1)
    ints = env.from_collection([1, 2, 3, 4], type_info=INT())
    strs = env.from_collection(["x", "y", "z"], type_info=S())
    ints.connect(strs).map(TagBoth(), output_type=S()).print("co")


register(
    Pipeline(
        "connect_co_map",
        _co_map,
        lambda mode: {
            "co": SinkSpec(
                ["int:1", "int:2", "int:3", "int:4", "str:x", "str:y", "str:z"],
                1,
                Order.PER_KEY,
                key=lambda s: s.split(":")[0],
            )
        },
    )
)


class SplitBoth(CoFlatMapFunction):
    def flat_map1(self, value: Any) -> Any:
        yield from value.split()

    def flat_map2(self, value: Any) -> Any:
        yield from [str(value)] * value


def _co_flat_map(env: Any) -> None:
    setup(env, 2)
    lines = env.from_collection(["a b", "c"], type_info=S())
    nums = env.from_collection([1, 2], type_info=INT())
    lines.connect(nums).flat_map(SplitBoth(), output_type=S()).print("cfm")


register(
    Pipeline(
        "connect_co_flat_map_p2",
        _co_flat_map,
        lambda mode: {"cfm": SinkSpec(["a", "b", "c", "1", "2", "2"], 2, Order.MULTISET)},
    )
)

ORDERS = [("o1", "book"), ("o2", "pen"), ("o3", "ink"), ("o4", "cup")]
PAYMENTS = [("o2", 5), ("o1", 12), ("o3", 3), ("o5", 9)]


class MatchOrders(KeyedCoProcessFunction):
    def open(self, runtime_context: Any) -> None:
        self.order = runtime_context.get_state(ValueStateDescriptor("order", S()))
        self.paid = runtime_context.get_state(ValueStateDescriptor("paid", INT()))

    def process_element1(self, value: Any, ctx: Any) -> Any:
        self.order.update(value[1])
        if self.paid.value() is not None:
            yield (ctx.get_current_key(), value[1], self.paid.value())

    def process_element2(self, value: Any, ctx: Any) -> Any:
        self.paid.update(value[1])
        if self.order.value() is not None:
            yield (ctx.get_current_key(), self.order.value(), value[1])


def _keyed_co_process(env: Any) -> None:
    setup(env, 2)
    orders = env.from_collection(ORDERS, type_info=Types.TUPLE([S(), S()]))
    payments = env.from_collection(PAYMENTS, type_info=T_SI)
    (
        orders.connect(payments)
        .key_by(first, first, key_type=S())
        .process(MatchOrders(), output_type=Types.TUPLE([S(), S(), INT()]))
        .print("match")
    )


def _keyed_co_process_expect(mode: str) -> dict[str, SinkSpec]:
    paid = dict(PAYMENTS)
    recs = [(k, item, paid[k]) for k, item in ORDERS if k in paid]
    return {"match": SinkSpec(recs, 2, Order.MULTISET, subtasks=by_subtask(recs, first, 2))}


register(Pipeline("connect_keyed_co_process_p2", _keyed_co_process, _keyed_co_process_expect))


def _union(env: Any) -> None:
    setup(env, 1)
    a = env.from_collection([("a", i) for i in range(3)], type_info=T_SI)
    b = env.from_collection([("b", i) for i in range(4)], type_info=T_SI)
    c = env.from_collection([("c", i) for i in range(2)], type_info=T_SI)
    a.union(b, c).map(lambda t: (t[0], t[1] + 1), output_type=T_SI).print("u")


register(
    Pipeline(
        "union_three_sources",
        _union,
        lambda mode: {
            "u": SinkSpec(
                [("a", i + 1) for i in range(3)]
                + [("b", i + 1) for i in range(4)]
                + [("c", i + 1) for i in range(2)],
                1,
                Order.PER_KEY,
                key=first,
            )
        },
    )
)

ODD = OutputTag("odd", INT())
BIG = OutputTag("big", S())


class Route(ProcessFunction):
    def process_element(self, value: Any, ctx: Any) -> Any:
        if value >= 8:
            yield BIG, f"big-{value}"
        if value % 2:
            yield ODD, value
        else:
            yield value * 100


def _side_outputs(env: Any) -> None:
    setup(env, 1)
    main = env.from_collection(list(range(11)), type_info=INT()).process(Route(), output_type=INT())
    main.print("even")
    main.get_side_output(ODD).map(lambda x: -x, output_type=INT()).print("odd")
    main.get_side_output(BIG).print("big")


register(
    Pipeline(
        "process_side_outputs_two_tags",
        _side_outputs,
        lambda mode: {
            "even": SinkSpec([x * 100 for x in range(0, 11, 2)]),
            "odd": SinkSpec([-x for x in range(1, 11, 2)]),
            "big": SinkSpec(["big-8", "big-9", "big-10"]),
        },
    )
)


# ---------------------------------------------------------------------------------------------
# partitioners
# ---------------------------------------------------------------------------------------------
def _forward_seq(env: Any) -> None:
    setup(env, 3)
    env.generate_sequence(1, 12).forward().map(lambda x: x * 2, output_type=L()).print("fwd")


register(
    Pipeline(
        "generate_sequence_forward_p3",
        _forward_seq,
        lambda mode: {
            "fwd": SinkSpec(
                [x * 2 for x in range(1, 13)],
                3,
                Order.PER_SUBTASK,
                # StatefulSequenceSource: subtask i reads start + i, start + i + p, …
                subtasks={i: [x * 2 for x in range(1 + i, 13, 3)] for i in range(3)},
            )
        },
    )
)


def _rescale(env: Any) -> None:
    setup(env, 4)
    (
        env.generate_sequence(0, 7)
        .set_parallelism(2)
        .rescale()
        .map(lambda x: x + 100, output_type=L())
        .print("rescale")
    )


register(
    Pipeline(
        "partition_rescale_p2_to_p4",
        _rescale,
        lambda mode: {
            "rescale": SinkSpec(
                [x + 100 for x in range(8)],
                4,
                Order.PER_SUBTASK,
                # source 0 (0,2,4,6) → consumers 0,1; source 1 (1,3,5,7) → 2,3; round robin from 0
                subtasks={0: [100, 104], 1: [102, 106], 2: [101, 105], 3: [103, 107]},
            )
        },
    )
)


def _shuffle(env: Any) -> None:
    setup(env, 3)
    env.from_collection(list(range(20)), type_info=INT()).shuffle().map(
        lambda x: x, output_type=INT()
    ).print("shuf")


def _ordered_within_subtask(per_subtask: dict[int, list[str]]) -> None:
    for bodies in per_subtask.values():
        assert [int(b) for b in bodies] == sorted(int(b) for b in bodies)


register(
    Pipeline(
        "partition_shuffle_p3",
        _shuffle,
        lambda mode: {
            "shuf": SinkSpec(list(range(20)), 3, Order.MULTISET, check=_ordered_within_subtask)
        },
    )
)


def _broadcast(env: Any) -> None:
    setup(env, 3)
    env.from_collection(["x", "y", "z"], type_info=S()).broadcast().map(
        lambda s: s.upper(), output_type=S()
    ).print("bc")


register(
    Pipeline(
        "partition_broadcast_p3",
        _broadcast,
        lambda mode: {
            "bc": SinkSpec(
                ["X", "Y", "Z"] * 3,
                3,
                Order.PER_SUBTASK,
                subtasks={i: ["X", "Y", "Z"] for i in range(3)},
            )
        },
    )
)


def _global(env: Any) -> None:
    setup(env, 3)
    env.from_collection(list(range(6)), type_info=INT()).global_().map(
        lambda x: x * x, output_type=INT()
    ).print("glob")


register(
    Pipeline(
        "partition_global_p3",
        _global,
        lambda mode: {
            "glob": SinkSpec(
                [x * x for x in range(6)],
                3,
                Order.PER_SUBTASK,
                subtasks={0: [x * x for x in range(6)]},
            )
        },
    )
)


class ModPartitioner(Partitioner):
    def partition(self, key: Any, num_partitions: int) -> int:
        return key % num_partitions


def _custom(env: Any) -> None:
    setup(env, 3)
    env.from_collection(list(range(10)), type_info=INT()).partition_custom(
        ModPartitioner(), lambda x: x
    ).map(lambda x: x + 1000, output_type=INT()).print("custom")


register(
    Pipeline(
        "partition_custom_mod_p3",
        _custom,
        lambda mode: {
            "custom": SinkSpec(
                [x + 1000 for x in range(10)],
                3,
                Order.PER_SUBTASK,
                subtasks={i: [x + 1000 for x in range(i, 10, 3)] for i in range(3)},
            )
        },
    )
)


# ---------------------------------------------------------------------------------------------
# print format and sources
# ---------------------------------------------------------------------------------------------
def _print_plain(env: Any) -> None:
    setup(env, 1)
    env.from_collection([("a", 1), ("b", 2)], type_info=T_SI).print()


register(
    Pipeline(
        "print_no_identifier_p1",
        _print_plain,
        lambda mode: {"": SinkSpec([("a", 1), ("b", 2)])},
        notes="lines are exactly '(a,1)' and '(b,2)': no prefix at parallelism 1",
    )
)


def _print_plain_p2(env: Any) -> None:
    setup(env, 2)
    env.from_collection([("a", 1), ("b", 2), ("a", 3)], type_info=T_SI).key_by(
        first, key_type=S()
    ).map(lambda t: t, output_type=T_SI).print()


register(
    Pipeline(
        "print_no_identifier_p2_keyed_prefixes",
        _print_plain_p2,
        lambda mode: {
            "": SinkSpec(
                [("a", 1), ("b", 2), ("a", 3)],
                2,
                Order.PER_SUBTASK,
                subtasks=by_subtask([("a", 1), ("b", 2), ("a", 3)], first, 2),
            )
        },
        notes="reference §1.5: key 'a' prints with '2> ', 'b' with '1> ' (1.20: both '2> ')",
    )
)


def _number_sequence(env: Any) -> None:
    setup(env, 2)
    (
        env.from_source(NumberSequenceSource(1, 10), WatermarkStrategy.no_watermarks(), "Numbers")
        .map(lambda x: x * x, output_type=L())
        .filter(lambda x: x % 2 == 1)
        .print("sq")
    )


register(
    Pipeline(
        "number_sequence_source_p2",
        _number_sequence,
        lambda mode: {
            "sq": SinkSpec([x * x for x in range(1, 11) if x % 2], 2, Order.MULTISET, check=None)
        },
    )
)


def _runtime_mode(env: Any, mode: str) -> None:
    """Sets the environment's runtime mode (the harness calls this before ``build``)."""
    if mode == BATCH:
        env.set_runtime_mode(RuntimeExecutionMode.BATCH)


def build_env(pipeline: Pipeline, mode: str = STREAMING) -> Any:
    """A fresh environment with ``pipeline`` built on it in ``mode``."""
    from pyflowkit.datastream import StreamExecutionEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    _runtime_mode(env, mode)
    pipeline.build(env)
    return env


def cases(modes: tuple[str, ...] = (STREAMING, BATCH)) -> list[tuple[Pipeline, str]]:
    """(pipeline, mode) pairs of the catalog restricted to ``modes``."""
    return [(p, m) for p in CATALOG for m in p.modes if m in modes]


BY_NAME = {p.name: p for p in CATALOG}
