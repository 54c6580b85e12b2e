"""``SimpleStringSchema`` and ``Encoder`` (PyFlink's ``pyflink.common.serialization``)."""

from __future__ import annotations

from typing import Any


class SimpleStringSchema:
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
