"""``JobID``: a job's 32-hex-character identifier (PyFlink's ``pyflink.common.job_id``)."""

from __future__ import annotations

import uuid

from pyflowkit.errors import IllegalArgumentException

_HEX = frozenset("0123456789abcdef")


class JobID(str):
    """A job id; ``str()`` is its 32 lower-case hex characters, as ``toString()`` in Flink.

    Mirrors PyFlink's ``JobID`` (Flink's ``org.apache.flink.api.common.JobID``); a ``str``
    so code that treated job ids as strings keeps working."""

    __slots__ = ()

    def __new__(cls, hex_string: str) -> JobID:
        text = hex_string.lower() if isinstance(hex_string, str) else None
        if text is None or len(text) != 32 or not _HEX.issuperset(text):
            raise IllegalArgumentException(
                f"A job id must be 32 hexadecimal characters (Flink's JobID), got {hex_string!r}."
            )
        return super().__new__(cls, text)

    @staticmethod
    def generate() -> JobID:
        """A random job id (Flink's ``JobID.generate``)."""
        return JobID(uuid.uuid4().hex)

    @staticmethod
    def from_hex_string(hex_string: str) -> JobID:
        """Flink's ``JobID.fromHexString``: parses 32 hex characters."""
        return JobID(hex_string)

    def to_hex_string(self) -> str:
        """Flink's ``toHexString``."""
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"JobID({str.__str__(self)})"
