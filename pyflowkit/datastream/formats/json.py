"""PyFlink's ``pyflink.datastream.formats.json``: JSON row (de)serialization schemas.

Flink's ``JsonRowSerializationSchema`` / ``JsonRowDeserializationSchema``: one JSON object per
message, fields by the row type's names (nested rows are nested objects, arrays are arrays).
"""

from __future__ import annotations

import datetime
import json
from decimal import Decimal
from typing import Any

from pyflowkit.common.serialization import DeserializationSchema, SerializationSchema
from pyflowkit.common.typeinfo import (
    BasicType,
    BasicTypeInfo,
    MapTypeInfo,
    RowTypeInfo,
    TypeInformation,
    Types,
)
from pyflowkit.common.types import Row
from pyflowkit.datastream.formats._csv_codec import is_array
from pyflowkit.datastream.formats._values import parse_text
from pyflowkit.datastream.formats._values import row_type as _row_type

__all__ = ["JsonRowDeserializationSchema", "JsonRowSerializationSchema"]


class JsonParseError(ValueError):
    """A JSON message that does not fit its row type (Flink's 'Failed to deserialize JSON')."""


def _from_json(node: Any, t: TypeInformation, path: str, fail_on_missing: bool) -> Any:
    if node is None:
        return None
    if isinstance(t, RowTypeInfo):
        if not isinstance(node, dict):
            raise JsonParseError(f"{path}: expected an object for {t}, got {node!r}")
        values = []
        for name, ft in zip(t.field_names, t.field_types, strict=False):
            if name not in node and fail_on_missing:
                raise JsonParseError(f"Could not find field with name '{name}'.")
            values.append(_from_json(node.get(name), ft, f"{path}.{name}", fail_on_missing))
        row = Row(*values)
        row.set_field_names(list(t.field_names))
        return row
    if is_array(t):
        if not isinstance(node, list):
            raise JsonParseError(f"{path}: expected an array for {t}, got {node!r}")
        elem = t.element_type  # type: ignore[attr-defined]
        return [_from_json(v, elem, f"{path}[]", fail_on_missing) for v in node]
    if isinstance(t, MapTypeInfo):
        if not isinstance(node, dict):
            raise JsonParseError(f"{path}: expected an object for {t}, got {node!r}")
        return {
            k: _from_json(v, t.value_type, f"{path}.{k}", fail_on_missing) for k, v in node.items()
        }
    if isinstance(t, BasicTypeInfo) and t.basic_type is BasicType.STRING:
        # a textual node's text, any other node's JSON (Jackson's asText / toString)
        return node if isinstance(node, str) else json.dumps(node, separators=(",", ":"))
    if isinstance(t, BasicTypeInfo) and t.basic_type is BasicType.BOOLEAN:
        if isinstance(node, bool):
            return node
    elif isinstance(node, (int, float)) and not isinstance(node, bool):
        if isinstance(t, BasicTypeInfo) and t.basic_type in (BasicType.FLOAT, BasicType.DOUBLE):
            return float(node)
        if isinstance(t, BasicTypeInfo) and t.basic_type is BasicType.BIG_DEC:
            return Decimal(str(node))
        if isinstance(node, int):
            return node
        if isinstance(t, BasicTypeInfo) and node == int(node):
            return int(node)
    try:
        return parse_text(node if isinstance(node, str) else json.dumps(node), t)
    except (ValueError, ArithmeticError) as exc:
        raise JsonParseError(f"{path}: cannot read {node!r} as {t}: {exc}") from None


def _to_json(value: Any, t: TypeInformation) -> Any:
    if value is None:
        return None
    if isinstance(t, RowTypeInfo):
        fields = list(value)
        if len(fields) != len(t.field_names):
            raise ValueError(
                f"row {value!r} has {len(fields)} fields, {t} has {len(t.field_names)}"
            )
        return {
            n: _to_json(v, ft)
            for n, v, ft in zip(t.field_names, fields, t.field_types, strict=False)
        }
    if is_array(t):
        return [_to_json(v, t.element_type) for v in value]  # type: ignore[attr-defined]
    if isinstance(t, MapTypeInfo):
        return {str(k): _to_json(v, t.value_type) for k, v in value.items()}
    if isinstance(value, Decimal):
        return float(value) if value != value.to_integral_value() else int(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return value


_JSON_SCHEMA_TYPES = {
    "string": Types.STRING,
    "boolean": Types.BOOLEAN,
    "integer": Types.BIG_INT,
    "number": Types.BIG_DEC,
}


def _type_of_json_schema(node: Any, path: str) -> TypeInformation:
    """Flink's ``JsonRowSchemaConverter.convert`` for the core JSON-schema types."""
    if not isinstance(node, dict):
        raise ValueError(f"JSON schema at {path}: expected an object, got {node!r}")
    kind = node.get("type")
    if isinstance(kind, list):  # ["null", "string"]: nullable
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    if kind == "object":
        props = node.get("properties", {})
        names = list(props)
        return Types.ROW_NAMED(
            names, [_type_of_json_schema(props[n], f"{path}.{n}") for n in names]
        )
    if kind == "array":
        items = node.get("items")
        return Types.OBJECT_ARRAY(_type_of_json_schema(items, f"{path}[]"))
    if kind == "string" and node.get("format") in ("date", "time", "date-time"):
        return {"date": Types.SQL_DATE, "time": Types.SQL_TIME}.get(
            node["format"], Types.SQL_TIMESTAMP
        )()
    if kind in _JSON_SCHEMA_TYPES:
        return _JSON_SCHEMA_TYPES[kind]()
    raise ValueError(f"JSON schema at {path}: unsupported type {node.get('type')!r}")


class JsonRowDeserializationSchema(DeserializationSchema):
    """PyFlink's ``JsonRowDeserializationSchema``: a JSON object (bytes) → ``Row``."""

    def __init__(
        self, type_info: RowTypeInfo, fail_on_missing_field: bool, ignore_parse_errors: bool
    ) -> None:
        self._type_info = type_info
        self._fail_on_missing_field = fail_on_missing_field
        self._ignore_parse_errors = ignore_parse_errors

    @staticmethod
    def builder() -> JsonRowDeserializationSchema.Builder:
        return JsonRowDeserializationSchema.Builder()

    def deserialize(self, message: bytes) -> Row | None:
        """The message's ``Row``; None for a bad message when parse errors are ignored."""
        try:
            node = json.loads(message)
            return _from_json(node, self._type_info, "$", self._fail_on_missing_field)
        except (JsonParseError, ValueError) as exc:
            if self._ignore_parse_errors:
                return None
            raise JsonParseError(f"Failed to deserialize JSON '{message!r}': {exc}") from None

    def get_produced_type(self) -> RowTypeInfo:
        return self._type_info

    class Builder:
        """PyFlink's ``JsonRowDeserializationSchema.Builder``."""

        def __init__(self) -> None:
            self._type_info: RowTypeInfo | None = None
            self._fail_on_missing_field = False
            self._ignore_parse_errors = False

        def type_info(self, type_info: TypeInformation) -> JsonRowDeserializationSchema.Builder:
            self._type_info = _row_type(type_info, "JsonRowDeserializationSchema.Builder")
            return self

        def json_schema(self, json_schema: str) -> JsonRowDeserializationSchema.Builder:
            """The row type from a JSON schema (object, array, string, integer, number,
            boolean; date/time formats)."""
            t = _type_of_json_schema(json.loads(json_schema), "$")
            self._type_info = _row_type(t, "JsonRowDeserializationSchema.Builder.json_schema")
            return self

        def fail_on_missing_field(self) -> JsonRowDeserializationSchema.Builder:
            self._fail_on_missing_field = True
            return self

        def ignore_parse_errors(self) -> JsonRowDeserializationSchema.Builder:
            self._ignore_parse_errors = True
            return self

        def build(self) -> JsonRowDeserializationSchema:
            if self._type_info is None:
                raise ValueError(
                    "JsonRowDeserializationSchema.Builder: set type_info(...) or json_schema(...) "
                    "before build()."
                )
            if self._fail_on_missing_field and self._ignore_parse_errors:
                raise ValueError(
                    "JSON format doesn't support failOnMissingField and ignoreParseErrors are both "
                    "true."
                )
            return JsonRowDeserializationSchema(
                self._type_info, self._fail_on_missing_field, self._ignore_parse_errors
            )


class JsonRowSerializationSchema(SerializationSchema):
    """PyFlink's ``JsonRowSerializationSchema``: ``Row`` → a compact JSON object (bytes)."""

    def __init__(self, type_info: RowTypeInfo) -> None:
        self._type_info = type_info

    @staticmethod
    def builder() -> JsonRowSerializationSchema.Builder:
        return JsonRowSerializationSchema.Builder()

    def serialize(self, element: Any) -> bytes:
        try:
            node = _to_json(element, self._type_info)
            return json.dumps(node, separators=(",", ":"), ensure_ascii=False).encode("UTF-8")
        except (TypeError, ValueError) as exc:
            raise ValueError(f"Could not serialize row '{element!r}': {exc}") from None

    class Builder:
        """PyFlink's ``JsonRowSerializationSchema.Builder``."""

        def __init__(self) -> None:
            self._type_info: RowTypeInfo | None = None

        def with_type_info(self, type_info: TypeInformation) -> JsonRowSerializationSchema.Builder:
            self._type_info = _row_type(type_info, "JsonRowSerializationSchema.Builder")
            return self

        def build(self) -> JsonRowSerializationSchema:
            if self._type_info is None:
                raise ValueError(
                    "JsonRowSerializationSchema.Builder: set with_type_info(...) before build()."
                )
            return JsonRowSerializationSchema(self._type_info)
