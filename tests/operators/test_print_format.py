"""The print sink's compiled formatters give the same text as the per-record rules they replace."""

from __future__ import annotations

import math
from collections import namedtuple
from decimal import Decimal
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.common import Row, Types
from pyflowkit.operators.print_format import (
    format_value,
    java_double_to_string,
    java_to_string,
    print_batch_formatter,
    value_formatter,
)

Pair = namedtuple("Pair", "a b")


def reference_double(x: float) -> str:
    """``Double.toString`` as pyflowkit computed it before the plain-range shortcut."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + int(exp)
    if 1e-3 <= abs(x) < 1e7:
        if point <= 0:
            body = "0." + "0" * (-point) + text
        elif point >= len(text):
            body = text + "0" * (point - len(text)) + ".0"
        else:
            body = text[:point] + "." + text[point:]
    else:
        body = text[0] + "." + (text[1:] or "0") + "E" + str(point - 1)
    return ("-" if sign else "") + body


def reference_java(value: Any) -> str:
    """Java's ``toString`` as the isinstance chain pyflowkit used before the type dispatch."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return reference_double(value)
    if isinstance(value, tuple):
        return "(" + ",".join(reference_java(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(reference_java(v) for v in value) + "]"
    if hasattr(value, "_flink_row_fields"):
        return ",".join(reference_java(v) for v in value._flink_row_fields())
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{reference_java(k)}={reference_java(v)}" for k, v in value.items())
            + "}"
        )
    return str(value)


atoms = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.sampled_from(["it's", 'say "hi"', "back\\slash", "tab\t", "%s %r %%", "ünï"]),
)
values = st.recursive(
    atoms,
    lambda inner: st.one_of(
        st.tuples(inner),
        st.tuples(inner, inner),
        st.tuples(inner, inner, inner),
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=2), inner, max_size=2),
        st.builds(Pair, inner, inner),
        st.builds(lambda a, b: Row(a, b), inner, inner),
    ),
    max_leaves=6,
)
prefixes = st.sampled_from(["", "1> ", "id> ", "50%:2> ", "%s> "])


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_double_to_string_matches_the_decimal_algorithm(x: float) -> None:
    assert java_double_to_string(x) == reference_double(x)


@given(values)
def test_java_to_string_matches_the_isinstance_chain(value: Any) -> None:
    assert java_to_string(value) == reference_java(value)


@given(prefixes, st.lists(values, max_size=8))
def test_untyped_batches_print_pyflinks_str(prefix: str, batch: list[Any]) -> None:
    lines = print_batch_formatter(None, prefix)(batch)
    assert lines == [prefix + (v if isinstance(v, str) else str(v)) for v in batch]


@given(prefixes, st.integers(0, 4), st.lists(st.tuples(st.text(max_size=4), st.integers())))
def test_untyped_tuple_batches_use_one_template(prefix: str, arity: int, rows: list) -> None:
    batch = [tuple(list(r) * 2)[:arity] for r in rows]
    lines = print_batch_formatter(None, prefix)(batch)
    assert lines == [prefix + str(v) for v in batch]


def test_untyped_batch_of_mixed_shapes_falls_back_per_value() -> None:
    fmt = print_batch_formatter(None, "2> ")
    batch = [("a", 1), ("b", 2, 3), Pair("c", 4), "d", 5]
    assert fmt(batch) == ["2> ('a', 1)", "2> ('b', 2, 3)", "2> Pair(a='c', b=4)", "2> d", "2> 5"]
    assert fmt([("a", 1), ("b",)]) == ["2> ('a', 1)", "2> ('b',)"]
    assert fmt([]) == []


declared = st.sampled_from(
    [
        Types.TUPLE([Types.STRING(), Types.INT()]),
        Types.TUPLE([Types.LONG(), Types.DOUBLE(), Types.BOOLEAN()]),
        Types.ROW([Types.STRING(), Types.INT()]),
        Types.ROW_NAMED(["w", "n"], [Types.STRING(), Types.LONG()]),
        Types.STRING(),
        Types.INT(),
        Types.LIST(Types.INT()),
        Types.MAP(Types.STRING(), Types.INT()),
        Types.PICKLED_BYTE_ARRAY(),
    ]
)


@given(declared, prefixes, st.lists(values, max_size=6))
def test_compiled_formatter_equals_format_value_per_declared_type(
    type_info: Any, prefix: str, batch: list[Any]
) -> None:
    text = value_formatter(type_info)
    assert [text(v) for v in batch] == [format_value(v, type_info) for v in batch]
    expected = [prefix + format_value(v, type_info) for v in batch]
    assert print_batch_formatter(type_info, prefix)(batch) == expected


def test_declared_types_print_as_java() -> None:
    tup = Types.TUPLE([Types.STRING(), Types.INT()])
    assert print_batch_formatter(tup, "1> ")([("a", 1), ("b", True), ("c", None)]) == [
        "1> (a,1)",
        "1> (b,true)",
        "1> (c,null)",
    ]
    row = Types.ROW([Types.STRING(), Types.DOUBLE()])
    assert print_batch_formatter(row, "")([Row("x", 1e7), Row("y", 0.5)]) == ["x,1.0E7", "y,0.5"]


_COLUMN_TYPED = [
    (Types.TUPLE([Types.STRING(), Types.INT()]), st.tuples(st.text(max_size=5), st.integers())),
    (
        Types.TUPLE([Types.LONG(), Types.STRING(), Types.SHORT()]),
        st.tuples(st.integers(), st.text(max_size=3), st.integers(-(2**15), 2**15 - 1)),
    ),
    (Types.TUPLE([Types.STRING()]), st.tuples(st.text(max_size=3))),
    (Types.STRING(), st.text(max_size=5)),
    (Types.LONG(), st.integers()),
]


@given(
    st.integers(0, len(_COLUMN_TYPED) - 1).flatmap(
        lambda i: st.tuples(
            st.just(_COLUMN_TYPED[i][0]),
            st.lists(_COLUMN_TYPED[i][1], max_size=20),
            st.lists(values, max_size=2),  # odd values mixed in: the batch falls back per value
        )
    ),
    prefixes,
)
def test_typed_batches_rendered_per_column_equal_the_per_value_text(case, prefix: str) -> None:
    """A declared Tuple of String/integer fields (or such a basic type) is checked per column and
    rendered by one template; any batch prints exactly what value_formatter gives per value."""
    type_info, batch, odd = case
    text = value_formatter(type_info)
    fmt = print_batch_formatter(type_info, prefix)
    for b in (batch, batch + odd, odd + batch):
        assert fmt(b) == [prefix + text(v) for v in b]


def test_typed_tuple_batch_keeps_java_text_of_odd_fields() -> None:
    fmt = print_batch_formatter(Types.TUPLE([Types.STRING(), Types.INT()]), "%d> ")
    assert fmt([("a", 1), ("b%s", -2)]) == ["%d> (a,1)", "%d> (b%s,-2)"]
    assert fmt([("a", 1), ("b", True), ("c", 2.5)]) == ["%d> (a,1)", "%d> (b,true)", "%d> (c,2.5)"]
    assert print_batch_formatter(Types.INT(), "")([1, False, None]) == ["1", "false", "null"]
