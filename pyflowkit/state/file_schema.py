"""Field-by-field checks of a JSON file pyflowkit wrote (savepoints, traces) before it is used.

Every error names the file, the field and what was expected, as Flink's
``Checkpoints.loadCheckpointMetadata`` refuses a metadata file it cannot trust before any task
restores from it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, NoReturn

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.java_semantics import INT_MAX_VALUE


def describe(value: Any) -> str:
    """A short, readable form of an offending value (its type when it is large)."""
    text = repr(value)
    if len(text) > 60:
        text = f"{text[:57]}..."
    return f"{text} ({type(value).__name__})"


def sha256_of(data: bytes) -> str:
    """The checksum written at save time and compared at load time."""
    return hashlib.sha256(data).hexdigest()


class FileSchema:
    """Reads fields of one JSON document of ``what`` (e.g. ``savepoint '/tmp/sp'``) from ``file``.

    Stands for the validation in Flink's ``MetadataV2V3SerializerBase.deserialize`` (each field
    read with its type and range checked; a mismatch is an error naming the file).
    """

    def __init__(self, what: str, file: str = "") -> None:
        self.what = what
        self.file = file

    def fail(self, field: str, expected: str, got: Any = None, *, show: bool = True) -> NoReturn:
        got_text = f", got {describe(got)}" if show else ""
        raise IllegalArgumentException(
            f"Cannot read {self.what}: {self._where(field)}: expected {expected}{got_text}."
        )

    def _where(self, field: str) -> str:
        if not field:
            return f"{self.file or 'the file'} (top level)"
        return f"{self.file} field {field!r}" if self.file else f"field {field!r}"

    def refuse(self, problem: str) -> NoReturn:
        raise IllegalArgumentException(
            f"Cannot read {self.what}: {self.file or 'the file'} {problem}."
        )

    def read_bytes(self, path: Path, missing: str = "") -> bytes:
        if not path.exists():
            self.refuse(f"is missing{missing}")
        if not path.is_file():
            self.refuse("is not a file")
        try:
            return path.read_bytes()
        except OSError as exc:
            self.refuse(f"cannot be read ({exc.strerror or exc})")

    def parse(self, data: bytes) -> Any:
        """The JSON document in ``data``; binary or truncated text is refused with the position."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.refuse(f"is not UTF-8 JSON text (binary data at byte {exc.start})")
        if not text.strip():
            self.refuse("is empty")
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            self.refuse(
                f"is not valid JSON (truncated or edited?): {exc.msg} (line {exc.lineno}, "
                f"column {exc.colno})"
            )
        except RecursionError:
            self.refuse("is nested too deeply to be a file pyflowkit wrote")

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, "a JSON object", value)
        return value

    def lst(self, value: Any, field: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(field, "a JSON list", value)
        return value

    def key(self, doc: dict[str, Any], key: str, field: str, expected: str) -> Any:
        """``doc[key]``; a missing key is refused naming the field and what it should hold."""
        if key not in doc:
            raise IllegalArgumentException(
                f"Cannot read {self.what}: {self._where(field)} is missing (expected {expected})."
            )
        return doc[key]

    def int_(self, value: Any, field: str, minimum: int = 0, maximum: int = INT_MAX_VALUE) -> int:
        if type(value) is not int or not minimum <= value <= maximum:
            bounds = (
                f">= {minimum}" if maximum > INT_MAX_VALUE else f"between {minimum} and {maximum}"
            )
            self.fail(field, f"an int {bounds}", value)
        return value

    def str_(self, value: Any, field: str, *, empty: bool = False, optional: bool = False) -> Any:
        if value is None and optional:
            return None
        if not isinstance(value, str) or (not empty and not value):
            kind = "a string" if empty else "a non-empty string"
            self.fail(field, f"{kind}{' or null' if optional else ''}", value)
        return value

    def one_of(self, value: Any, field: str, allowed: tuple[Any, ...]) -> Any:
        if value not in allowed or type(value) is bool:
            self.fail(field, "one of " + ", ".join(repr(a) for a in allowed), value)
        return value

    def only_keys(self, doc: dict[str, Any], field: str, allowed: tuple[str, ...]) -> None:
        unknown = sorted(k for k in doc if k not in allowed)
        if unknown:
            prefix = f"{field}." if field else ""
            raise IllegalArgumentException(
                f"Cannot read {self.what}: {self._where(prefix + unknown[0])} is unknown "
                f"(expected only: {', '.join(allowed)})."
            )
