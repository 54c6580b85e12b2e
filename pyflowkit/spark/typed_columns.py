"""Declared ``Types`` as typed Arrow/Spark columns: a chunk of records of a typed JobEdge travels as
one ``array<…>`` column value (``array<string>``, ``array<struct<f0:string,f1:int>>``) instead of
pickled bytes.

Stands for Flink's ``TypeSerializer`` chosen from a declared ``TypeInformation`` (PyFlink's typed
coders vs ``PICKLED_BYTE_ARRAY``). A chunk is typed only if every record round-trips exactly
(``type(v)`` matches, ints in range); otherwise it travels pickled, so results never change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pyflowkit.java_semantics import java_float, java_floats
from pyflowkit.operators.declared_types import INT_RANGES as _INT_RANGES

# BasicType value → (Arrow type factory name, Spark DDL type, exact Python type); int ranges are
# Java's widths (``_INT_RANGES``), the table the operators' declared-type check uses
_BASIC = {
    "String": ("string", "string", str),
    "Boolean": ("bool_", "boolean", bool),
    "Byte": ("int8", "tinyint", int),
    "Short": ("int16", "smallint", int),
    "Integer": ("int32", "int", int),
    "Long": ("int64", "bigint", int),
    # a Types.FLOAT() value is a Java float: the declared-type output has already made it one
    # (``java_semantics.java_float``), so a float32 column round-trips it exactly
    "Float": ("float32", "float", float),
    "Double": ("float64", "double", float),
}
ROW_NAMED = 1  # ``flags`` bit: the chunk's Rows carry field names


@dataclass(frozen=True)
class TypedLayout:
    """How one JobEdge's records become one typed column: ``kind`` is basic, tuple or row."""

    column: str  # the column name, e.g. ``e3``
    kind: str
    field_names: tuple[str, ...]
    basic: tuple[str, ...]  # BasicType values (one for ``basic``, one per field otherwise)

    @property
    def spark_ddl(self) -> str:
        if self.kind == "basic":
            return f"{self.column} array<{_BASIC[self.basic[0]][1]}>"
        fields = ",".join(
            f"`{n}`:{_BASIC[b][1]}" for n, b in zip(self.field_names, self.basic, strict=True)
        )
        return f"{self.column} array<struct<{fields}>>"

    def spark_type(self) -> Any:
        """``spark_ddl``'s column type as a pyspark ``DataType`` (built without the JVM)."""
        from pyspark.sql.types import ArrayType, StructField, StructType

        if self.kind == "basic":
            return ArrayType(spark_basic_type(self.basic[0]))
        fields = [
            StructField(n, spark_basic_type(b))
            for n, b in zip(self.field_names, self.basic, strict=True)
        ]
        return ArrayType(StructType(fields))

    def arrow_type(self) -> Any:
        import pyarrow as pa

        def basic(b: str) -> Any:
            return getattr(pa, _BASIC[b][0])()

        if self.kind == "basic":
            return pa.list_(basic(self.basic[0]))
        fields = [pa.field(n, basic(b)) for n, b in zip(self.field_names, self.basic, strict=True)]
        return pa.list_(pa.struct(fields))


def spark_basic_type(basic: str) -> Any:
    """The pyspark ``DataType`` of a BasicType value (its Spark DDL type in ``_BASIC``)."""
    from pyspark.sql import types as T

    return {
        "string": T.StringType,
        "boolean": T.BooleanType,
        "tinyint": T.ByteType,
        "smallint": T.ShortType,
        "int": T.IntegerType,
        "bigint": T.LongType,
        "float": T.FloatType,
        "double": T.DoubleType,
    }[_BASIC[basic][1]]()


def _basic_name(type_info: Any) -> str | None:
    basic = getattr(type_info, "basic_type", None)
    name = getattr(basic, "value", None)
    return name if name in _BASIC else None


def layout_for(type_info: Any, column: str) -> TypedLayout | None:
    """The typed layout of a declared type, or None (records travel pickled)."""
    from pyflowkit.common.typeinfo import RowTypeInfo, TupleTypeInfo

    name = _basic_name(type_info)
    if name is not None:
        return TypedLayout(column, "basic", (), (name,))
    if isinstance(type_info, (TupleTypeInfo, RowTypeInfo)):
        names = [_basic_name(t) for t in type_info.get_field_types()]
        if not names or any(n is None for n in names):
            return None
        if isinstance(type_info, RowTypeInfo):
            return TypedLayout(column, "row", tuple(type_info.get_field_names()), tuple(names))
        fields = tuple(f"f{i}" for i in range(len(names)))
        return TypedLayout(column, "tuple", fields, tuple(names))  # type: ignore[arg-type]
    return None


def edge_layout(stream_edge: Any, column: str) -> TypedLayout | None:
    """The layout of a StreamEdge's records: the side output's or the producer's declared type."""
    tag = getattr(stream_edge, "output_tag", None)
    type_info = tag.type_info if tag is not None else stream_edge.source.output_type
    return layout_for(type_info, column)


def _utf8(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form (an Arrow string): a lone surrogate has none."""
    if text.isascii():
        return True
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _value_check(basic: str) -> Callable[[Any], bool]:
    exact = _BASIC[basic][2]
    if exact is int:
        low, high = _INT_RANGES[basic]
        return lambda v: type(v) is int and low <= v <= high
    if exact is str:
        return lambda v: type(v) is str and _utf8(v)
    if basic == "Float":  # only a value that is a 32-bit float (or NaN) fits a float column
        return lambda v: type(v) is float and (java_float(v) == v or v != v)
    return lambda v: type(v) is exact


def column_check(basic: str) -> Callable[[Sequence[Any]], bool]:
    """``_value_check`` over a whole column at once (type set, then min/max for int ranges,
    UTF-8 for strings)."""
    exact = _BASIC[basic][2]
    if exact is int:
        low, high = _INT_RANGES[basic]

        def ints(column: Sequence[Any]) -> bool:
            if not column:
                return True
            return set(map(type, column)) == {int} and low <= min(column) and max(column) <= high

        return ints
    if exact is str:
        return lambda column: (
            not column or (set(map(type, column)) == {str} and _utf8("".join(column)))
        )
    if basic == "Float":

        def floats(column: Sequence[Any]) -> bool:
            if not column or set(map(type, column)) != {float}:
                return not column
            as_float32 = java_floats(column)
            return as_float32 == list(column) or all(map(_same_float, as_float32, column))

        return floats
    return lambda column: not column or set(map(type, column)) == {exact}


def _same_float(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)


def encoder(layout: TypedLayout) -> Callable[[list[Any]], tuple[list[Any], int] | None]:
    """values → (the column value: values, or field tuples for Rows; flags), or None when a record
    would not round-trip exactly (the chunk then travels pickled)."""
    from pyflowkit.common.types import Row, RowKind

    checks = [_value_check(b) for b in layout.basic]
    column_checks = [column_check(b) for b in layout.basic]
    arity = len(layout.basic)
    if layout.kind == "basic":
        check_column = column_checks[0]

        def encode(values: list[Any]) -> tuple[list[Any], int] | None:
            return (values, 0) if check_column(values) else None

        return encode

    if layout.kind == "tuple":

        def encode(values: list[Any]) -> tuple[list[Any], int] | None:
            if not values:
                return values, 0
            if set(map(type, values)) != {tuple} or set(map(len, values)) != {arity}:
                return None
            for check_column, column in zip(column_checks, zip(*values, strict=True), strict=True):
                if not check_column(column):
                    return None
            return values, 0

        return encode

    names = list(layout.field_names)

    def encode_rows(values: list[Any]) -> tuple[list[Any], int] | None:
        first = values[0] if values else None
        named = first is not None and first._fields is not None
        for v in values:
            if type(v) is not Row or v._row_kind is not RowKind.INSERT or len(v._values) != arity:
                return None
            if (v._fields is not None) != named or (named and v._fields != names):
                return None
            for c, field in zip(checks, v._values, strict=True):
                if not c(field):
                    return None
        return [tuple(v._values) for v in values], (ROW_NAMED if named else 0)

    return encode_rows


def decoder(layout: TypedLayout) -> Callable[[Any, int], list[Any]]:
    """(Arrow list scalar of one chunk, flags) → the records, exactly as they were sent."""
    from pyflowkit.common.types import RowKind, _rebuild_row

    if layout.kind == "basic":
        return lambda items, flags: items.values.to_pylist()

    def fields_of(items: Any) -> list[list[Any]]:
        struct = items.values
        return [struct.field(i).to_pylist() for i in range(struct.type.num_fields)]

    if layout.kind == "tuple":
        return lambda items, flags: list(zip(*fields_of(items), strict=True))
    names = list(layout.field_names)

    def decode_rows(items: Any, flags: int) -> list[Any]:
        fields = names if flags & ROW_NAMED else None
        return [
            _rebuild_row(list(v), list(fields) if fields else None, RowKind.INSERT)
            for v in zip(*fields_of(items), strict=True)
        ]

    return decode_rows


def layouts_ddl(layouts: Sequence[TypedLayout]) -> str:
    """The extra columns of a stage schema: one array column per typed edge."""
    return "".join(f", {layout.spark_ddl}" for layout in layouts)
