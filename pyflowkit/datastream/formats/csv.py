"""PyFlink's ``pyflink.datastream.formats.csv``: CSV schemas, reader format, bulk writers and
row (de)serialization schemas.

One codec (``_csv_codec.CsvDialect``) reads and writes every CSV form here, so a ``FileSource``
with ``CsvReaderFormat`` and a ``FileSink`` with ``CsvBulkWriters`` run the same code on the
simulated cluster and on Spark.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import IO, Any

from pyflowkit.common.serialization import (
    DeserializationSchema,
    RowDataBulkWriterFactory,
    SerializationSchema,
)
from pyflowkit.common.typeinfo import RowTypeInfo, TypeInformation, Types
from pyflowkit.common.types import Row
from pyflowkit.datastream.formats._csv_codec import CsvDialect, CsvParseError, check_csv_type
from pyflowkit.datastream.formats._values import row_type as _row_type
from pyflowkit.errors import IllegalArgumentException

__all__ = [
    "CsvSchema",
    "CsvSchemaBuilder",
    "CsvReaderFormat",
    "CsvBulkWriters",
    "CsvRowDeserializationSchema",
    "CsvRowSerializationSchema",
]


def _char(char: Any, what: str) -> str:
    if not isinstance(char, str) or len(char) != 1:
        raise ValueError(f"{what} must be a single char, got {char!r}")
    return char


class CsvSchema:
    """PyFlink's ``CsvSchema`` (Jackson's ``CsvSchema``): named, typed columns plus CSV settings."""

    def __init__(
        self,
        names: list[str],
        types: list[TypeInformation],
        dialect: CsvDialect,
        use_header: bool = False,
        strict_headers: bool = False,
        skip_first_data_row: bool = False,
    ) -> None:
        self._names = list(names)
        self._types = list(types)
        self._dialect = dialect
        self._use_header = use_header
        self._strict_headers = strict_headers
        self._skip_first_data_row = skip_first_data_row

    @staticmethod
    def builder() -> CsvSchemaBuilder:
        """A ``CsvSchemaBuilder`` (Jackson's ``CsvSchema.builder()``)."""
        return CsvSchemaBuilder()

    def get_type_info(self) -> RowTypeInfo:
        """The records' type: ``Types.ROW_NAMED(column names, column types)``."""
        return RowTypeInfo(self._types, self._names)

    def size(self) -> int:
        return len(self._names)

    def __len__(self) -> int:
        return self.size()

    def __str__(self) -> str:
        d = self._dialect
        cols = ", ".join(f"{n}: {t}" for n, t in zip(self._names, self._types, strict=False))
        return (
            f"CsvSchema([{cols}], column separator {d.column_separator!r}, quote "
            f"{d.quote_char!r}, escape {d.escape_char!r}, header {self._use_header})"
        )

    __repr__ = __str__


class CsvSchemaBuilder:
    """PyFlink's ``CsvSchemaBuilder`` (Jackson's ``CsvSchema.Builder``)."""

    def __init__(self) -> None:
        self._names: list[str] = []
        self._types: list[TypeInformation] = []
        self._dialect = CsvDialect()
        self._use_header = False
        self._strict_headers = False
        self._skip_first_data_row = False

    def build(self) -> CsvSchema:
        return CsvSchema(
            self._names,
            self._types,
            copy.deepcopy(self._dialect),
            self._use_header,
            self._strict_headers,
            self._skip_first_data_row,
        )

    def _add(self, name: str, type_info: TypeInformation) -> CsvSchemaBuilder:
        if not isinstance(name, str) or not name:
            raise ValueError(
                f"CsvSchemaBuilder: a column name must be a non-empty str, got {name!r}"
            )
        if name in self._names:
            raise ValueError(f"CsvSchemaBuilder: duplicate column {name!r}")
        if not isinstance(type_info, TypeInformation):
            raise ValueError(
                f"CsvSchemaBuilder: column {name!r} needs a TypeInformation (e.g. Types.INT()), "
                f"got {type_info!r}"
            )
        self._names.append(name)
        self._types.append(type_info)
        check_csv_type(RowTypeInfo([type_info], [name]), "CsvSchemaBuilder")
        return self

    def add_array_column(
        self, name: str, separator: str = ";", element_type: TypeInformation | None = None
    ) -> CsvSchemaBuilder:
        """An array column split at ``separator``; elements of ``element_type`` (String)."""
        self._add(name, Types.LIST(element_type or Types.STRING()))
        self._dialect.column_array_separators[len(self._names) - 1] = separator
        return self

    def add_boolean_column(self, name: str) -> CsvSchemaBuilder:
        return self._add(name, Types.BOOLEAN())

    def add_number_column(
        self, name: str, number_type: TypeInformation | None = None
    ) -> CsvSchemaBuilder:
        """A number column of ``number_type`` (default ``Types.LONG()``, SQL's BIGINT)."""
        return self._add(name, number_type or Types.LONG())

    def add_string_column(self, name: str) -> CsvSchemaBuilder:
        return self._add(name, Types.STRING())

    def add_columns_from(self, schema: CsvSchema) -> CsvSchemaBuilder:
        for i, (name, t) in enumerate(zip(schema._names, schema._types, strict=False)):
            self._add(name, t)
            if i in schema._dialect.column_array_separators:
                sep = schema._dialect.column_array_separators[i]
                self._dialect.column_array_separators[len(self._names) - 1] = sep
        return self

    def clear_columns(self) -> CsvSchemaBuilder:
        self._names.clear()
        self._types.clear()
        self._dialect.column_array_separators.clear()
        return self

    def set_allow_comments(self, allow: bool = True) -> CsvSchemaBuilder:
        """Skip lines starting with ``#``."""
        self._dialect.allow_comments = bool(allow)
        return self

    def set_any_property_name(self, name: str) -> CsvSchemaBuilder:
        """Columns past the schema's go to property ``name`` (a row keeps only its own fields),
        instead of failing the record with 'Too many entries'."""
        self._dialect.ignore_extra_columns = bool(name)
        return self

    def disable_array_element_separator(self) -> CsvSchemaBuilder:
        self._dialect.array_separator = ""
        return self

    def remove_array_element_separator(self, index: int) -> CsvSchemaBuilder:
        if not 0 <= index < len(self._names):
            raise IndexError(f"CsvSchemaBuilder: no column {index} (schema has {len(self._names)})")
        self._dialect.column_array_separators[index] = ""
        return self

    def set_array_element_separator(self, separator: str) -> CsvSchemaBuilder:
        self._dialect.array_separator = separator
        return self

    def set_column_separator(self, char: str) -> CsvSchemaBuilder:
        self._dialect.column_separator = _char(char, "Column separator")
        return self

    def disable_escape_char(self) -> CsvSchemaBuilder:
        self._dialect.escape_char = None
        return self

    def set_escape_char(self, char: str) -> CsvSchemaBuilder:
        self._dialect.escape_char = _char(char, "Escape char")
        return self

    def set_line_separator(self, separator: str) -> CsvSchemaBuilder:
        """The line separator written (reading recognises ``\\n``, ``\\r``, ``\\r\\n``)."""
        self._dialect.line_separator = separator
        return self

    def set_null_value(self, null_value: str) -> CsvSchemaBuilder:
        self._dialect.null_value = null_value
        return self

    def disable_quote_char(self) -> CsvSchemaBuilder:
        self._dialect.quote_char = None
        return self

    def set_quote_char(self, char: str) -> CsvSchemaBuilder:
        self._dialect.quote_char = _char(char, "Quote char")
        return self

    def set_skip_first_data_row(self, skip: bool = True) -> CsvSchemaBuilder:
        self._skip_first_data_row = bool(skip)
        return self

    def set_strict_headers(self, strict: bool = True) -> CsvSchemaBuilder:
        """With a header: its column names must be the schema's, in order."""
        self._strict_headers = bool(strict)
        return self

    def set_use_header(self, use: bool = True) -> CsvSchemaBuilder:
        """The file's first line is a header, not data."""
        self._use_header = bool(use)
        return self

    def size(self) -> int:
        return len(self._names)

    def __len__(self) -> int:
        return self.size()


class CsvReaderFormat:
    """PyFlink's ``CsvReaderFormat`` (Flink's ``CsvReaderFormat``): a ``StreamFormat`` reading
    ``Row`` records of a ``CsvSchema``; not splittable, positions count records."""

    is_splittable = False

    def __init__(self, schema: CsvSchema) -> None:
        if not isinstance(schema, CsvSchema):
            raise IllegalArgumentException(
                f"CsvReaderFormat.for_schema() needs a CsvSchema (CsvSchema.builder()...build()), "
                f"got {schema!r}."
            )
        self.schema = schema

    @staticmethod
    def for_schema(schema: CsvSchema) -> CsvReaderFormat:
        return CsvReaderFormat(schema)

    def get_produced_type(self) -> RowTypeInfo:
        return self.schema.get_type_info()

    def open(self, path: str) -> IO[str]:
        return open(path, encoding="UTF-8", newline="")

    def read_records(self, file: IO[str]) -> Iterator[Row]:
        """The file's rows (header checked or skipped as the schema says)."""
        schema, row_type = self.schema, self.schema.get_type_info()
        records = schema._dialect.reader(file)
        path = getattr(file, "name", "<file>")
        if schema._use_header:
            header = next(records, None)
            if header is not None and schema._strict_headers and header != schema._names:
                raise CsvParseError(
                    f"CsvReaderFormat: {path}: mismatched header {header!r}, the schema's "
                    f"columns are {schema._names!r} (set_strict_headers)."
                )
        elif schema._skip_first_data_row:
            next(records, None)
        for fields in records:
            try:
                yield schema._dialect.to_row(fields, row_type)
            except CsvParseError as exc:
                raise CsvParseError(f"CsvReaderFormat: {path}: {exc}") from None

    def __repr__(self) -> str:
        return f"CsvReaderFormat({self.schema})"


class CsvBulkWriters:
    """PyFlink's ``CsvBulkWriters``: bulk writer factories for ``FileSink.for_bulk_format``."""

    @staticmethod
    def for_schema(schema: CsvSchema) -> RowDataBulkWriterFactory:
        """Rows written as CSV lines with the schema's separators and quoting (no header)."""
        if not isinstance(schema, CsvSchema):
            raise IllegalArgumentException(
                f"CsvBulkWriters.for_schema() needs a CsvSchema, got {schema!r}."
            )
        row_type = schema.get_type_info()
        dialect = copy.deepcopy(schema._dialect)

        def encode(element: Any) -> bytes:
            return dialect.format_row(element, row_type).encode("UTF-8")

        return RowDataBulkWriterFactory(encode, row_type)


class CsvRowDeserializationSchema(DeserializationSchema):
    """PyFlink's ``CsvRowDeserializationSchema``: one CSV record (bytes) → ``Row``."""

    def __init__(self, row_type: RowTypeInfo, dialect: CsvDialect, ignore_parse_errors: bool):
        self._row_type = row_type
        self._dialect = dialect
        self._ignore_parse_errors = ignore_parse_errors

    def deserialize(self, message: bytes) -> Row | None:
        """The record's ``Row``; None for a comment line, or a bad one if errors are ignored."""
        text = message.decode("UTF-8") if isinstance(message, bytes) else str(message)
        try:
            fields = next(self._dialect.reader(text.splitlines()), None)
            if fields is None:
                return None
            return self._dialect.to_row(fields, self._row_type)
        except (CsvParseError, ValueError) as exc:
            if self._ignore_parse_errors:
                return None
            raise CsvParseError(f"Failed to deserialize CSV row {text!r}: {exc}") from None

    def get_produced_type(self) -> RowTypeInfo:
        return self._row_type

    class Builder:
        """PyFlink's ``CsvRowDeserializationSchema.Builder``."""

        def __init__(self, type_info: TypeInformation) -> None:
            self._row_type = _row_type(type_info, "CsvRowDeserializationSchema.Builder")
            check_csv_type(self._row_type, "CsvRowDeserializationSchema.Builder")
            self._dialect = CsvDialect()
            self._ignore_parse_errors = False

        def set_field_delimiter(self, delimiter: str) -> CsvRowDeserializationSchema.Builder:
            self._dialect.column_separator = _char(delimiter, "Field delimiter")
            return self

        def set_allow_comments(self, allow_comments: bool) -> CsvRowDeserializationSchema.Builder:
            self._dialect.allow_comments = bool(allow_comments)
            return self

        def set_array_element_delimiter(
            self, delimiter: str
        ) -> CsvRowDeserializationSchema.Builder:
            self._dialect.array_separator = delimiter
            return self

        def set_quote_character(self, c: str) -> CsvRowDeserializationSchema.Builder:
            self._dialect.quote_char = _char(c, "Quote character")
            return self

        def set_escape_character(self, c: str) -> CsvRowDeserializationSchema.Builder:
            self._dialect.escape_char = _char(c, "Escape character")
            return self

        def set_null_literal(self, null_literal: str) -> CsvRowDeserializationSchema.Builder:
            self._dialect.null_value = null_literal
            return self

        def set_ignore_parse_errors(
            self, ignore_parse_errors: bool
        ) -> CsvRowDeserializationSchema.Builder:
            self._ignore_parse_errors = bool(ignore_parse_errors)
            return self

        def build(self) -> CsvRowDeserializationSchema:
            return CsvRowDeserializationSchema(
                self._row_type, copy.deepcopy(self._dialect), self._ignore_parse_errors
            )


class CsvRowSerializationSchema(SerializationSchema):
    """PyFlink's ``CsvRowSerializationSchema``: ``Row`` → one CSV line (bytes, with its line
    delimiter)."""

    def __init__(self, row_type: RowTypeInfo, dialect: CsvDialect) -> None:
        self._row_type = row_type
        self._dialect = dialect

    def serialize(self, element: Any) -> bytes:
        try:
            return self._dialect.format_row(element, self._row_type).encode("UTF-8")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Could not serialize row {element!r} as CSV: {exc}") from None

    class Builder:
        """PyFlink's ``CsvRowSerializationSchema.Builder``."""

        def __init__(self, type_info: TypeInformation) -> None:
            self._row_type = _row_type(type_info, "CsvRowSerializationSchema.Builder")
            check_csv_type(self._row_type, "CsvRowSerializationSchema.Builder")
            self._dialect = CsvDialect(null_value="")

        def set_field_delimiter(self, c: str) -> CsvRowSerializationSchema.Builder:
            self._dialect.column_separator = _char(c, "Field delimiter")
            return self

        def set_line_delimiter(self, delimiter: str) -> CsvRowSerializationSchema.Builder:
            if delimiter not in ("\n", "\r", "\r\n", ""):
                raise ValueError(
                    "Unsupported new line delimiter. Only \\n, \\r, \\r\\n, or empty string are "
                    f"supported, got {delimiter!r}."
                )
            self._dialect.line_separator = delimiter
            return self

        def set_array_element_delimiter(self, delimiter: str) -> CsvRowSerializationSchema.Builder:
            self._dialect.array_separator = delimiter
            return self

        def disable_quote_character(self) -> CsvRowSerializationSchema.Builder:
            self._dialect.quote_char = None
            return self

        def set_quote_character(self, c: str) -> CsvRowSerializationSchema.Builder:
            self._dialect.quote_char = _char(c, "Quote character")
            return self

        def set_escape_character(self, c: str) -> CsvRowSerializationSchema.Builder:
            self._dialect.escape_char = _char(c, "Escape character")
            return self

        def set_null_literal(self, s: str) -> CsvRowSerializationSchema.Builder:
            self._dialect.null_value = s
            return self

        def build(self) -> CsvRowSerializationSchema:
            return CsvRowSerializationSchema(self._row_type, copy.deepcopy(self._dialect))
