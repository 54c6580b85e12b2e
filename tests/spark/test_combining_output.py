"""A producer's CombiningRecordWriterOutput ships, per consumer subtask and in consumer order,
records whose fold gives exactly the fold of what the plain RecordWriterOutput ships: same
results, same key arrival order (no Spark needed: the rows are decoded as a consumer reads them).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.graph.partitioner import KeyGroupStreamPartitioner
from pyflowkit.graph.routing import ChannelSelector
from pyflowkit.java_semantics import INT_MAX_VALUE, INT_MIN_VALUE, key_identity
from pyflowkit.operators.window_aggregators import aggregator_for
from pyflowkit.spark import aggregation_pushdown, records
from pyflowkit.spark.aggregation_pushdown import Pushdown
from pyflowkit.spark.combining_output import CombiningRecordWriterOutput
from pyflowkit.spark.typed_columns import decoder, encoder, layout_for
from pyflowkit.state.time import MAX_WATERMARK

TUPLE = Types.TUPLE([Types.STRING(), Types.INT(), Types.STRING()])
LAYOUT = layout_for(TUPLE, records.column_of(0))
CONSUMERS = 3


def _key(t: Any) -> Any:
    return t[0]


PRODUCERS = 2


def _ship(
    writer_kind: str,
    batches: list[list[Any]],
    kind: str,
    field: int = 1,
    field_type="Integer",
    key_type: str | None = "String",
) -> list[tuple]:
    """Rows (target, seq, producer, values, watermark) two producer subtasks ship for
    ``batches`` (batch i is producer i % 2's, one batch per step of its own)."""
    rows = []
    for producer in range(PRODUCERS):
        sink = records.RowSink(producer, (LAYOUT.column,))
        selector = ChannelSelector.for_subtask(
            KeyGroupStreamPartitioner(_key), producer, PRODUCERS, CONSUMERS, 128
        )
        encode = encoder(LAYOUT)
        if writer_kind == "plain":
            writer = records.RecordWriterOutput(0, selector, sink, None, True, encode)
        else:
            pushdown = Pushdown("agg", 0, kind, field, field_type, key_type, LAYOUT)
            writer = CombiningRecordWriterOutput(0, selector, sink, pushdown, None, encode)
        for i, batch in enumerate(batches[producer::PRODUCERS]):
            sink.advance()
            if i % 3 == 2:
                for value in batch:
                    writer.collect(value, None)
            else:
                writer.collect_batch(batch, None)
        sink.advance()
        writer.emit_watermark(MAX_WATERMARK)
        writer.close()
        rows += _decoded(sink.drain())
    return rows


def _decoded(columns: dict[str, list]) -> list[tuple]:
    import pyarrow as pa

    schema = pa.schema([*records.arrow_fields(), (LAYOUT.column, LAYOUT.arrow_type())])
    decode = decoder(LAYOUT)
    out = []
    for edge, target, producer, seq, payload, typed in records.iter_rows(
        [pa.RecordBatch.from_pydict(columns, schema=schema)]
    ):
        assert edge == 0
        if typed is None:
            values, _, watermark, _keys = records.decode_chunk(payload)
        else:
            _, watermark, flags, items = typed
            values = decode(items, flags)
        out.append((target, seq, producer, values, watermark))
    return out


def _consumed(
    rows: list[tuple], kind: str, field: int = 1, field_type: str = "Integer"
) -> dict[int, list[Any]]:
    """Per consumer subtask: the fold's final value per key, in key arrival order (rows sorted
    by (seq, producer), as the consumer stage reads them); the MAX watermark of each producer
    must come after its records."""
    aggregation = {"kind": kind, "field": field, "first": True, "field_type": field_type}
    reduce = aggregator_for(aggregation, "agg").reduce
    out = {}
    for target in range(CONSUMERS):
        mine = sorted((r for r in rows if r[0] == target), key=lambda r: (r[1], r[2]))
        state: dict[Any, Any] = {}
        ended: set[int] = set()
        for _, _, producer, values, watermark in mine:
            assert not (producer in ended and values), "a record after the MAX watermark"
            for v in values:
                k = key_identity(_key(v))  # Java's equals: 1, True and 1.0 are three keys
                state[k] = v if k not in state else reduce(state[k], v)
            if watermark == MAX_WATERMARK:
                ended.add(producer)
        assert ended == set(range(PRODUCERS))
        out[target] = list(state.items())
    return out


def _batches(n: int, seed: int) -> list[list[Any]]:
    rng = random.Random(seed)
    values = [
        (f"k{rng.randrange(40)}", rng.choice([rng.randrange(-5, 6), INT_MAX_VALUE]), f"t{i}")
        for i in range(n)
    ]
    values[n // 2] = ("k1", True, "not an int")  # fits Types.INT() for Python, not the column
    values[n // 3] = ("k2", INT_MIN_VALUE, 7)  # a non-string field: combined, shipped pickled
    values[n // 4] = ("k3", 2**40, "big")  # beyond a Java int: not combined
    batches, i = [], 0
    while i < n:
        size = rng.choice([1, 7, 300, 2048, 3000])
        batches.append(values[i : i + size])
        i += size
    return batches


@pytest.mark.parametrize("kind", ["sum", "min", "max", "min_by", "max_by"])
@pytest.mark.parametrize("block", [5, 1 << 16])
def test_combined_records_fold_to_the_plain_writers_results(monkeypatch, kind, block) -> None:
    monkeypatch.setattr(aggregation_pushdown, "_BLOCK", block)
    batches = _batches(12_000, seed=len(kind) + block)
    plain = _ship("plain", batches, kind)
    combined = _ship("combined", batches, kind)
    assert _consumed(combined, kind) == _consumed(plain, kind)
    shipped = sum(len(r[3]) for r in combined)
    assert shipped <= PRODUCERS * 2 * 40 + 3  # one or two partial records per key + odd ones


def test_sum_wraps_like_a_java_int() -> None:
    batches = [[("a", INT_MAX_VALUE, "x"), ("a", 2, "y")], [("a", INT_MAX_VALUE, "z")]]
    combined = _consumed(_ship("combined", batches, "sum"), "sum")
    assert [v for per_target in combined.values() for v in per_target] == [
        ("a", ("a", INT_MIN_VALUE + INT_MAX_VALUE + 1, "x"))
    ]


@pytest.mark.parametrize("kind", ["min", "max", "min_by", "max_by"])
@pytest.mark.parametrize("block", [5, 1 << 16])
def test_string_fields_and_fields_without_utf8_form(monkeypatch, kind, block) -> None:
    """A String field combines like an int one (ties to the earlier record); a field with a lone
    surrogate (no Arrow string) travels uncombined and pickled, folded in order."""
    monkeypatch.setattr(aggregation_pushdown, "_BLOCK", block)
    rng = random.Random(block + len(kind))
    values = [
        (f"k{rng.randrange(30)}", i, f"t{rng.randrange(50)}")
        for i in range(5_000)  # many ties
    ]
    values[100] = ("k3", 1, "odd \ud800 field")  # routed by its key, but no Arrow string
    values[2_000] = ("k4", 2, "\udfff")
    batches = [values[i : i + 700] for i in range(0, len(values), 700)]
    plain = _consumed(_ship("plain", batches, kind, 2, "String"), kind, 2, "String")
    combined = _ship("combined", batches, kind, 2, "String")
    assert _consumed(combined, kind, 2, "String") == plain
    assert (
        sum(len(r[3]) for r in combined) <= PRODUCERS * 2 * 30 + 2
    )  # partial records + the two odd ones


# keys a PyFlink program may return without a declared key type: each chunk of one of these kinds
# is combined (its Arrow key type inferred), a chunk mixing them or of the others travels whole
_UNIFORM = {
    "str": lambda rng: f"k{rng.randrange(20)}",
    "int": lambda rng: rng.randrange(-3, 20),
    "bool": lambda rng: rng.random() < 0.5,
}
_ODD = [None, ("a", 1), ("a", True), 1.0, 0.0, "lone \ud800", 2**70, -(2**63) - 1, 1, True, "k1"]


def _untyped_batches(n_batches: int, seed: int) -> list[list[Any]]:
    rng = random.Random(seed)
    batches, i = [], 0
    for _ in range(n_batches):
        size = rng.choice([1, 3, 50, 400, 2048])
        shape = rng.choice([*_UNIFORM, "mixed", "odd"])
        batch = []
        for _ in range(size):
            if shape == "mixed":
                key = rng.choice([*_UNIFORM.values(), lambda r: r.choice(_ODD)])(rng)
            elif shape == "odd":
                key = rng.choice(_ODD)
            else:
                key = _UNIFORM[shape](rng)
            batch.append((key, rng.choice([rng.randrange(-5, 6), INT_MAX_VALUE]), f"t{i}"))
            i += 1
        batches.append(batch)
    return batches


@pytest.mark.parametrize("kind", ["sum", "min", "max", "min_by", "max_by"])
@pytest.mark.parametrize("block", [5, 1 << 16])
def test_untyped_keys_fold_to_the_plain_writers_results(monkeypatch, kind, block) -> None:
    """No declared key type: the key type is inferred per chunk (str, int or bool chunks are
    combined, mixed ones and None/tuple/float/lone-surrogate/beyond-long keys travel whole), routed
    by Flink's hash of the real key; 1, True and 1.0 stay three keys, as Java's equals says."""
    monkeypatch.setattr(aggregation_pushdown, "_BLOCK", block)
    batches = _untyped_batches(60, seed=len(kind) * 7 + block)
    plain = _ship("plain", batches, kind, key_type=None)
    combined = _ship("combined", batches, kind, key_type=None)
    assert _consumed(combined, kind) == _consumed(plain, kind)
    assert sum(len(r[3]) for r in combined) < sum(len(r[3]) for r in plain) // 2


def test_untyped_bool_and_int_keys_stay_apart() -> None:
    """A chunk of bool keys and a chunk of int keys: True and 1 (equal in Python) are combined as
    two keys, each routed by its own Java hashCode (1231 vs 1)."""
    batches = [[(1, 2, "a"), (0, 5, "b"), (1, 3, "c")], [(True, 7, "d"), (False, 1, "e")]]
    combined = _consumed(_ship("combined", batches, "sum", key_type=None), "sum")
    assert sorted(
        ((type(v[0]).__name__, v) for per_target in combined.values() for _, v in per_target),
        key=repr,
    ) == [
        ("bool", (False, 1, "e")),
        ("bool", (True, 7, "d")),
        ("int", (0, 5, "b")),
        ("int", (1, 5, "a")),
    ]


@pytest.mark.parametrize("key_type", ["String", None], ids=["declared", "inferred"])
def test_shipped_records_carry_their_keys(key_type: str | None) -> None:
    """Each partial or passed record ships with the key its routing selected (a HASH edge's
    carried keys), so the consumer's fold does not select it again; a chunk of a pickled
    payload carries them as a plain writer's chunk does."""
    import pyarrow as pa

    batches = _batches(3_000, seed=11)
    schema = pa.schema([*records.arrow_fields(), (LAYOUT.column, LAYOUT.arrow_type())])
    shipped = 0
    for producer in range(PRODUCERS):
        sink = records.RowSink(producer, (LAYOUT.column,))
        selector = ChannelSelector.for_subtask(
            KeyGroupStreamPartitioner(_key), producer, PRODUCERS, CONSUMERS, 128
        )
        pushdown = Pushdown("agg", 0, "sum", 1, "Integer", key_type, LAYOUT)
        writer = CombiningRecordWriterOutput(0, selector, sink, pushdown, None, encoder(LAYOUT))
        for batch in batches[producer::PRODUCERS]:
            sink.advance()
            writer.collect_batch(batch, None)
        writer.emit_watermark(MAX_WATERMARK)
        writer.close()
        decode = decoder(LAYOUT)
        for _edge, _target, _p, _seq, payload, typed in records.iter_rows(
            [pa.RecordBatch.from_pydict(sink.drain(), schema=schema)]
        ):
            if typed is None:
                values, _, _, keys = records.decode_chunk(payload)
            else:
                values, keys = decode(typed[3], typed[2]), records.typed_chunk_keys(payload)
            if values:
                assert keys == [_key(v) for v in values]
                shipped += len(values)
    assert 0 < shipped < (3_000 // 4 if key_type else 3_000)  # fewer than the records
