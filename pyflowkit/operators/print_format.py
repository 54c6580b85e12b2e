"""How the print sink renders a value (Flink's ``PrintSinkOutputWriter`` + Java ``toString``).

Choice (documented): PyFlink prints untyped (pickled) streams via Python's ``str()`` (its
``DataStream._align_output_type`` maps them to strings with ``str``), so ``('a', 1)`` prints as
``('a', 1)``. A stream declared with ``Types.TUPLE`` prints as Flink's ``Tuple.toString``:
``(a,1)``; ``Types.ROW`` as ``Row.toString`` of the job's Flink version (the profile's
``RowPrint`` rule, FLINK-18090): 1.11 ``a,1``, 1.20 PyFlink's ``+I[a,1]``; basic types as Java's
``toString`` (``true``, ``1.0``, ``1.0E10``, ``null``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from pyflowkit.common.flink_version import RowPrint
from pyflowkit.common.typeinfo import (
    BasicType,
    BasicTypeInfo,
    ListTypeInfo,
    RowTypeInfo,
    TupleTypeInfo,
    TypeInformation,
)
from pyflowkit.common.types import Row
from pyflowkit.java_semantics import java_float_to_string


def print_prefix(sink_identifier: str | None, subtask_index: int, parallelism: int) -> str:
    """``PrintSinkOutputWriter.open``: ``id:k> `` / ``k> `` (parallelism > 1), ``id> `` or ``""``."""
    prefix = sink_identifier or ""
    if parallelism > 1:
        if prefix:
            prefix += ":"
        prefix += str(subtask_index + 1)
    if prefix:
        prefix += "> "
    return prefix


def java_double_to_string(x: float) -> str:
    """``Double.toString``: plain between 1e-3 and 1e7, else ``d.dddE±n``."""
    if 1e-3 <= x < 1e7 or -1e7 < x <= -1e-3:
        return repr(x)  # Python's shortest repr is plain in this range, as Java's text is
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + int(exp)  # digits before the decimal point
    body = text[0] + "." + (text[1:] or "0") + "E" + str(point - 1)
    return ("-" if sign else "") + body


def _java_tuple(value: tuple) -> str:
    return "(" + ",".join(map(java_to_string, value)) + ")"


def _java_list(value: list) -> str:
    return "[" + ", ".join(map(java_to_string, value)) + "]"


def _java_dict(value: dict) -> str:
    return (
        "{" + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items()) + "}"
    )


# exact type → Java text; subclasses (and Rows) take the isinstance chain below
_JAVA_BY_TYPE: dict[type, Callable[[Any], str]] = {
    str: str.__str__,
    int: int.__repr__,
    bool: lambda b: "true" if b else "false",
    float: java_double_to_string,
    type(None): lambda _: "null",
    tuple: _java_tuple,
    list: _java_list,
    dict: _java_dict,
}


def java_to_string(value: Any) -> str:
    """Java's ``toString`` of a value as Flink's Tuple fields show it (``StringUtils.arrayAwareToString``)."""
    fn = _JAVA_BY_TYPE.get(type(value))
    if fn is not None:
        return fn(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_to_string(value)
    if isinstance(value, tuple):
        return _java_tuple(value)
    if isinstance(value, list):
        return _java_list(value)
    if hasattr(value, "_flink_row_fields"):
        return ",".join(map(java_to_string, value._flink_row_fields()))
    if isinstance(value, dict):
        return _java_dict(value)
    return str(value)


def row_to_string(value: Any, row_print: RowPrint) -> str:
    """``Row.toString`` under ``row_print``; nested Rows follow the same rule (``RowUtils``)."""
    if not row_print.kind_prefixed:
        return java_to_string(value)
    # PyFlink 1.20's _align_output_type: ','.join(str(item) for item in value._values)
    fields = [str(f) for f in value._flink_row_fields()]
    kind = value.get_row_kind().short_string() if hasattr(value, "get_row_kind") else "+I"
    return row_print.text(kind, fields)


def _uses_java_text(type_info: TypeInformation | None) -> bool:
    return isinstance(type_info, TupleTypeInfo | RowTypeInfo | BasicTypeInfo | ListTypeInfo)


def format_value(value: Any, type_info: TypeInformation | None) -> str:
    """The text the print sink writes for ``value`` of a stream declared as ``type_info``."""
    if _uses_java_text(type_info):
        return value_formatter(type_info)(value)
    return value if isinstance(value, str) else str(value)


_INT_TYPES = frozenset(
    (BasicType.BYTE, BasicType.SHORT, BasicType.INT, BasicType.LONG, BasicType.BIG_INT)
)


def _field_text(type_info: TypeInformation) -> Callable[[Any], str]:
    """One declared field's ``toString``: a guarded shortcut for strings and integers."""
    basic = getattr(type_info, "basic_type", None)
    if basic is BasicType.STRING:
        return lambda x: x if type(x) is str else java_to_string(x)
    if basic in _INT_TYPES:
        return lambda x: int.__repr__(x) if type(x) is int else java_to_string(x)
    if basic is BasicType.FLOAT:  # a java.lang.Float: Float.toString
        return lambda x: java_float_to_string(x) if type(x) is float else java_to_string(x)
    return java_to_string


def value_formatter(
    type_info: TypeInformation | None, row_print: RowPrint | None = None
) -> Callable[[Any], str]:
    """``format_value`` compiled for one declared type: the per-record text function.

    ``row_print`` is the profile's ``Row.toString`` rule; None (or 1.11's) keeps ``a,1``."""
    if row_print is not None and row_print.kind_prefixed and isinstance(type_info, RowTypeInfo):
        return lambda value: (
            row_to_string(value, row_print)
            if hasattr(value, "_flink_row_fields")
            else java_to_string(value)
        )
    if isinstance(type_info, TupleTypeInfo):
        fields = [_field_text(t) for t in type_info.field_types]
        arity = len(fields)

        def tuple_text(value: Any) -> str:
            if type(value) is tuple and len(value) == arity:
                return "(" + ",".join([f(x) for f, x in zip(fields, value, strict=True)]) + ")"
            return java_to_string(value)

        return tuple_text
    if isinstance(type_info, RowTypeInfo):
        fields = [_field_text(t) for t in type_info.field_types]

        def row_text(value: Any) -> str:
            if type(value) is Row:
                values = value._flink_row_fields()
                if len(values) == len(fields):
                    return ",".join([f(x) for f, x in zip(fields, values, strict=True)])
            return java_to_string(value)

        return row_text
    if isinstance(type_info, BasicTypeInfo):
        return _field_text(type_info)
    if _uses_java_text(type_info):
        return java_to_string
    return str  # PyFlink's str(); a str value is returned as it is


# a declared field whose Java text is a ``%`` conversion of the exact Python type: String's is
# the str itself (``%s``), Byte…Long and BigInteger's the decimal digits (``%d``)
_COLUMN_CONVERSION = {BasicType.STRING: ("%s", str)} | {t: ("%d", int) for t in _INT_TYPES}


def _typed_batch_formatter(
    type_info: TypeInformation | None, prefix: str
) -> Callable[[Sequence[Any]], list[str]] | None:
    """The batch formatter of a declared Tuple of String/integer fields or of a String/integer
    basic type, checked per column (every value of a column of its exact Python type) and
    rendered by one ``%`` template per record, in C; None for other declared types. A batch that
    fails the check (a subclass, a bool in an int field, a tuple of another arity) is rendered
    value by value by ``value_formatter`` (the same text)."""
    text = value_formatter(type_info)
    escaped = prefix.replace("%", "%%")
    if isinstance(type_info, TupleTypeInfo):
        conversions = [
            _COLUMN_CONVERSION.get(getattr(t, "basic_type", None)) for t in type_info.field_types
        ]
        if not conversions or None in conversions:
            return None
        arity = len(conversions)
        template = (escaped + "(" + ",".join(c for c, _ in conversions) + ")").__mod__
        exact = [{kind} for _, kind in conversions]

        def exact_columns(values: Sequence[Any]) -> bool:
            columns = zip(*values, strict=True)
            return all(set(map(type, c)) == k for c, k in zip(columns, exact, strict=True))

        def tuples(values: Sequence[Any]) -> list[str]:
            if (
                values
                and set(map(type, values)) == {tuple}
                and set(map(len, values)) == {arity}
                and exact_columns(values)
            ):
                return list(map(template, values))
            return [prefix + text(v) for v in values]

        return tuples
    conversion = _COLUMN_CONVERSION.get(getattr(type_info, "basic_type", None))
    if not isinstance(type_info, BasicTypeInfo) or conversion is None:
        return None
    kind = {conversion[1]}
    if conversion[1] is str:
        as_text = prefix.__add__ if prefix else None
    else:
        as_text = (escaped + "%d").__mod__

    def basics(values: Sequence[Any]) -> list[str]:
        if values and set(map(type, values)) == kind:
            return list(map(as_text, values)) if as_text is not None else list(values)
        return [prefix + text(v) for v in values]

    return basics


def _tuple_template(prefix: str, arity: int) -> str:
    """``prefix`` + ``repr`` of a plain tuple of ``arity`` fields as one ``%`` template."""
    fields = ", ".join(["%r"] * arity) + ("," if arity == 1 else "")
    return prefix.replace("%", "%%") + "(" + fields + ")"


def print_batch_formatter(
    type_info: TypeInformation | None, prefix: str, row_print: RowPrint | None = None
) -> Callable[[Sequence[Any]], list[str]]:
    """The lines a print sink writes for a batch of values (``prefix`` + text), compiled once.

    Declared types use the compiled ``value_formatter``. Undeclared streams print ``str(value)``;
    a batch of plain tuples of one arity (the common ``(word, count)`` shape) is rendered by one
    ``%`` template, which is ``tuple.__repr__`` field by field, and a batch of strings is the
    strings themselves.
    """
    text = value_formatter(type_info, row_print)
    add_prefix = prefix.__add__
    if text is not str:
        if prefix:
            per_record = lambda values: list(map(add_prefix, map(text, values)))  # noqa: E731
        else:
            per_record = lambda values: list(map(text, values))  # noqa: E731
        return _typed_batch_formatter(type_info, prefix) or per_record
    templates: dict[int, Callable[[Any], str]] = {}

    def untyped(values: Sequence[Any]) -> list[str]:
        if values:
            first = type(values[0])
            if first is tuple or first is str:
                kinds = set(map(type, values))
                if len(kinds) == 1:
                    if first is str:
                        return list(map(add_prefix, values)) if prefix else list(values)
                    arity = len(values[0])
                    template = templates.get(arity)
                    if template is None:
                        template = templates[arity] = _tuple_template(prefix, arity).__mod__
                    try:
                        return list(map(template, values))
                    except TypeError:  # tuples of several arities: not one template
                        pass
        if prefix:
            return list(map(add_prefix, map(str, values)))
        return list(map(str, values))

    return untyped
