"""``TypeSerializer``: writes values of one type to a byte stream and reads them back.

PyFlink's ``pyflink.common.serializer`` (Flink's ``TypeSerializer``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from io import BytesIO
from typing import Generic, TypeVar

T = TypeVar("T")


class TypeSerializer(ABC, Generic[T]):
    """Serializes ``T`` to / from a binary stream (PyFlink's ``TypeSerializer``).

    Serializers of one class are equal (they hold no configuration), as in PyFlink."""

    @abstractmethod
    def serialize(self, element: T, stream: BytesIO) -> None:
        """Writes ``element`` to ``stream``."""

    @abstractmethod
    def deserialize(self, stream: BytesIO) -> T:
        """Reads one element from ``stream``."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, self.__class__)

    def __hash__(self) -> int:
        return hash(self.__class__.__name__)

    def __repr__(self) -> str:
        return self.__class__.__name__


class VoidNamespaceSerializer(TypeSerializer[bytes]):
    """The namespace of state that has none: writes nothing, reads ``b''``.

    PyFlink's ``VoidNamespaceSerializer`` (the Python side of Flink's ``VoidNamespaceSerializer``)."""

    def serialize(self, element: bytes, stream: BytesIO) -> None:
        pass

    def deserialize(self, stream: BytesIO) -> bytes:
        return VOID


VOID = b""  # PyFlink's ``void``: the one value of the void namespace
