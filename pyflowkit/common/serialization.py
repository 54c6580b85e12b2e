"""Serialization schemas, ``Encoder`` and bulk writer factories (PyFlink's
``pyflink.common.serialization``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class SerializationSchema:
    """PyFlink's ``SerializationSchema``: turns a record into bytes (``serialize``)."""

    def serialize(self, element: Any) -> bytes:
        raise NotImplementedError(f"{type(self).__name__} does not implement serialize()")


class DeserializationSchema:
    """PyFlink's ``DeserializationSchema``: turns bytes into a record (``deserialize``)."""

    def deserialize(self, message: bytes) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not implement deserialize()")


class BulkWriterFactory:
    """PyFlink's ``BulkWriterFactory`` (Flink's ``BulkWriter.Factory``): how a bulk-format
    ``FileSink`` writes records into a part file; ``encode`` gives one record's bytes."""

    def __init__(self, encode: Callable[[Any], bytes]) -> None:
        if not callable(encode):
            raise TypeError(f"BulkWriterFactory needs a callable encoder, got {encode!r}")
        self.encode = encode


class RowDataBulkWriterFactory(BulkWriterFactory):
    """PyFlink's ``RowDataBulkWriterFactory``: a bulk writer factory for rows of ``row_type``."""

    def __init__(self, encode: Callable[[Any], bytes], row_type: Any) -> None:
        super().__init__(encode)
        self._row_type = row_type

    def get_row_type(self) -> Any:
        return self._row_type


class SimpleStringSchema(SerializationSchema, DeserializationSchema):
    """Flink's ``SimpleStringSchema``: str ↔ bytes in one charset."""

    def __init__(self, charset: str = "UTF-8") -> None:
        "".encode(charset)  # fail early on an unknown charset
        self.charset = charset

    def serialize(self, element: str) -> bytes:
        return element.encode(self.charset)

    def deserialize(self, message: bytes) -> str:
        return message.decode(self.charset)


class Encoder:
    """Flink's ``Encoder``: how a row-format file sink writes one record."""

    def __init__(self, charset_name: str = "UTF-8") -> None:
        "".encode(charset_name)
        self.charset_name = charset_name

    @staticmethod
    def simple_string_encoder(charset_name: str = "UTF-8") -> Encoder:
        """Flink's ``SimpleStringEncoder``: ``str(value)`` plus a newline."""
        return Encoder(charset_name)

    def encode(self, element: Any) -> bytes:
        return (str(element) + "\n").encode(self.charset_name)
