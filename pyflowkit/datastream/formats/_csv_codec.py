"""CSV text ↔ rows by a row type: the one codec behind every CSV format in pyflowkit.

Stands for Jackson's ``CsvParser``/``CsvGenerator`` as Flink's CSV formats configure them
(``CsvToRowDataConverters``, ``RowDataToCsvConverters``, ``CsvRowSerializationSchema``).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.common.typeinfo import (
    BasicArrayTypeInfo,
    ListTypeInfo,
    ObjectArrayTypeInfo,
    PrimitiveArrayTypeInfo,
    RowTypeInfo,
    TypeInformation,
)
from pyflowkit.common.types import Row
from pyflowkit.datastream.formats._values import format_value, parse_text

_ARRAYS = (BasicArrayTypeInfo, ListTypeInfo, ObjectArrayTypeInfo, PrimitiveArrayTypeInfo)


def is_array(type_info: TypeInformation) -> bool:
    return isinstance(type_info, _ARRAYS)


def check_csv_type(row_type: RowTypeInfo, who: str) -> None:
    """Flink's CSV formats take flat rows: scalar fields and arrays of scalars."""
    for name, t in zip(row_type.field_names, row_type.field_types, strict=False):
        inner = t.element_type if is_array(t) else t  # type: ignore[attr-defined]
        if isinstance(inner, RowTypeInfo) or is_array(inner):
            raise ValueError(
                f"{who}: field {name!r} has type {t}; CSV rows hold scalars and arrays of scalars "
                "(nested rows and nested arrays are not supported by Flink's CSV format)."
            )


class CsvParseError(ValueError):
    """A CSV record that does not fit its row type (Flink's ``IOException``: 'Failed to
    deserialize CSV row')."""


@dataclass
class CsvDialect:
    """Jackson's ``CsvSchema`` settings plus per-column array separators."""

    column_separator: str = ","
    quote_char: str | None = '"'
    escape_char: str | None = None
    line_separator: str = "\n"
    null_value: str | None = None
    array_separator: str = ";"
    column_array_separators: dict[int, str] = field(default_factory=dict)
    allow_comments: bool = False
    ignore_extra_columns: bool = False

    def array_separator_of(self, index: int) -> str:
        return self.column_array_separators.get(index, self.array_separator)

    # ---- reading ----
    def reader(self, lines: Iterable[str]) -> Iterator[list[str]]:
        """The records of ``lines`` as lists of field texts (blank lines and, if allowed,
        ``#`` comment lines skipped)."""
        if self.allow_comments:
            lines = (line for line in lines if not line.startswith("#"))
        kwargs: dict[str, Any] = {
            "delimiter": self.column_separator,
            "escapechar": self.escape_char,
            "strict": False,
        }
        if self.quote_char is None:
            kwargs["quoting"] = csv.QUOTE_NONE
        else:
            kwargs["quotechar"] = self.quote_char
        for fields in csv.reader(lines, **kwargs):
            if fields:
                yield fields

    def to_row(self, fields: Sequence[str], row_type: RowTypeInfo) -> Row:
        """One record's field texts as a named ``Row`` of ``row_type``."""
        names, types = row_type.field_names, row_type.field_types
        if len(fields) > len(names) and not self.ignore_extra_columns:
            raise CsvParseError(
                f"Too many entries: expected at most {len(names)} ({', '.join(names)}), "
                f"got {len(fields)}: {list(fields)!r}"
            )
        values = []
        for i, (name, t) in enumerate(zip(names, types, strict=False)):
            text = fields[i] if i < len(fields) else None
            try:
                values.append(self._value(text, t, i))
            except (ValueError, ArithmeticError) as exc:
                raise CsvParseError(f"field {name!r} ({t}): cannot read {text!r}: {exc}") from None
        row = Row(*values)
        row.set_field_names(list(names))
        return row

    def _value(self, text: str | None, t: TypeInformation, index: int) -> Any:
        if text is None or (self.null_value is not None and text == self.null_value):
            return None
        if is_array(t):
            sep = self.array_separator_of(index)
            if text == "":
                return []
            parts = text.split(sep) if sep else [text]
            return [parse_text(p, t.element_type) for p in parts]  # type: ignore[attr-defined]
        if text == "" and str(t) != "String":
            return None  # an empty non-string field reads as null
        return parse_text(text, t)

    # ---- writing ----
    def format_row(self, row: Any, row_type: RowTypeInfo) -> str:
        """One row as a CSV line, ending with the line separator."""
        values = list(row)
        if len(values) != len(row_type.field_types):
            raise ValueError(
                f"row {row!r} has {len(values)} fields, the row type {row_type} has "
                f"{len(row_type.field_types)}"
            )
        texts = [
            self._text(v, t, i)
            for i, (v, t) in enumerate(zip(values, row_type.field_types, strict=False))
        ]
        return self.column_separator.join(texts) + self.line_separator

    def _text(self, value: Any, t: TypeInformation, index: int) -> str:
        if value is None:
            return self.null_value or ""
        if is_array(t):
            text = self.array_separator_of(index).join(format_value(v) for v in value)
        else:
            text = format_value(value)
        return self._quoted(text)

    def _quoted(self, text: str) -> str:
        esc, quote = self.escape_char, self.quote_char
        if esc:
            text = text.replace(esc, esc + esc)
        specials = {self.column_separator, "\n", "\r"} | ({quote} if quote else set())
        if quote is None or not any(c in text for c in specials):
            return text
        inner = text.replace(quote, (esc or quote) + quote)
        return f"{quote}{inner}{quote}"
