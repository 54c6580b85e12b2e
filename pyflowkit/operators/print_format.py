"""How the print sink renders a value (Flink's ``PrintSinkOutputWriter`` + Java ``toString``).

Choice (documented): PyFlink prints untyped (pickled) streams via Python's ``str()`` (its
``DataStream._align_output_type`` maps them to strings with ``str``), so ``('a', 1)`` prints as
``('a', 1)``. A stream declared with ``Types.TUPLE`` prints as Flink's ``Tuple.toString``:
``(a,1)``; ``Types.ROW`` as Flink 1.11's ``Row.toString``: ``a,1``; basic types as Java's
``toString`` (``true``, ``1.0``, ``1.0E10``, ``null``).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from pyflowkit.common.typeinfo import (
    BasicTypeInfo,
    ListTypeInfo,
    RowTypeInfo,
    TupleTypeInfo,
    TypeInformation,
)


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
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign, digits, exp = Decimal(repr(x)).as_tuple()
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + int(exp)  # digits before the decimal point
    a = abs(x)
    if 1e-3 <= a < 1e7:
        if point <= 0:
            body = "0." + "0" * (-point) + text
        elif point >= len(text):
            body = text + "0" * (point - len(text)) + ".0"
        else:
            body = text[:point] + "." + text[point:]
    else:
        body = text[0] + "." + (text[1:] or "0") + "E" + str(point - 1)
    return ("-" if sign else "") + body


def java_to_string(value: Any) -> str:
    """Java's ``toString`` of a value as Flink's Tuple fields show it (``StringUtils.arrayAwareToString``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_to_string(value)
    if isinstance(value, tuple):
        return "(" + ",".join(java_to_string(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(java_to_string(v) for v in value) + "]"
    if hasattr(value, "_flink_row_fields"):
        return ",".join(java_to_string(v) for v in value._flink_row_fields())
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{java_to_string(k)}={java_to_string(v)}" for k, v in value.items())
            + "}"
        )
    return str(value)


def format_value(value: Any, type_info: TypeInformation | None) -> str:
    """The text the print sink writes for ``value`` of a stream declared as ``type_info``."""
    if isinstance(type_info, TupleTypeInfo | RowTypeInfo | BasicTypeInfo | ListTypeInfo):
        return java_to_string(value)
    return value if isinstance(value, str) else str(value)
