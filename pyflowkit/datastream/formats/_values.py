"""Text ↔ value conversion by declared type, shared by the CSV and JSON row formats.

Stands for the per-type converters of Flink's ``CsvToRowDataConverters`` /
``JsonRowDeserializationSchema`` (parse) and ``RowDataToCsvConverters`` (format).
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

from pyflowkit.common.typeinfo import (
    BasicType,
    BasicTypeInfo,
    LocalTimeTypeInfo,
    RowTypeInfo,
    SqlTimeTypeInfo,
    TypeInformation,
)

_INTS = {BasicType.BYTE, BasicType.SHORT, BasicType.INT, BasicType.LONG, BasicType.BIG_INT}
_FLOATS = {BasicType.FLOAT, BasicType.DOUBLE}


def parse_text(text: str, type_info: TypeInformation) -> Any:
    """A field's text as a value of ``type_info``; ``ValueError`` when it does not parse."""
    if isinstance(type_info, BasicTypeInfo):
        kind = type_info.basic_type
        if kind is BasicType.STRING or kind is BasicType.CHAR:
            return text
        if kind in _INTS:
            return int(text.strip())
        if kind in _FLOATS:
            return float(text.strip())
        if kind is BasicType.BIG_DEC:
            return Decimal(text.strip())
        if kind is BasicType.BOOLEAN:
            lowered = text.strip().lower()
            if lowered not in ("true", "false"):
                raise ValueError(f"not a boolean: {text!r}")
            return lowered == "true"
    if isinstance(type_info, (SqlTimeTypeInfo, LocalTimeTypeInfo)):
        name = str(type_info)
        if name in ("Date", "LocalDate"):
            return datetime.date.fromisoformat(text.strip())
        if name in ("Time", "LocalTime"):
            return datetime.time.fromisoformat(text.strip())
        return datetime.datetime.fromisoformat(text.strip())
    raise ValueError(f"no text conversion for type {type_info}")


def format_value(value: Any) -> str:
    """A value as CSV/JSON text writes it (Java's ``toString`` of the field)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    return str(value)


def row_type(type_info: Any, who: str) -> RowTypeInfo:
    """``type_info`` if it is a row type, else a clear error naming ``who``."""
    if not isinstance(type_info, RowTypeInfo):
        raise ValueError(
            f"{who} needs a row type (Types.ROW_NAMED([...], [...]) or Types.ROW([...])), "
            f"got {type_info!r}."
        )
    return type_info
