"""Window serializers: ``TimeWindowSerializer``, ``CountWindowSerializer``,
``GlobalWindowSerializer`` (PyFlink's ``pyflink.datastream.window``).

Byte layouts are Flink's: ``TimeWindow.Serializer`` writes start and end as big-endian longs,
a count window its id as one long, ``GlobalWindow.Serializer`` a single 0 byte.
"""

from __future__ import annotations

import struct
from io import BytesIO

from pyflowkit.common.serializer import TypeSerializer
from pyflowkit.datastream.window.windows import CountWindow, GlobalWindow, TimeWindow

_LONG = struct.Struct(">q")
_TWO_LONGS = struct.Struct(">qq")


def _read(stream: BytesIO, size: int, what: str) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError(f"{what}: needs {size} bytes, the stream has {len(data)} left.")
    return data


class TimeWindowSerializer(TypeSerializer[TimeWindow]):
    """``TimeWindow`` as start, end: two big-endian longs (PyFlink's ``TimeWindowSerializer``)."""

    def serialize(self, element: TimeWindow, stream: BytesIO) -> None:
        stream.write(_TWO_LONGS.pack(element.start, element.end))

    def deserialize(self, stream: BytesIO) -> TimeWindow:
        start, end = _TWO_LONGS.unpack(_read(stream, 16, "TimeWindowSerializer"))
        return TimeWindow(start, end)


class CountWindowSerializer(TypeSerializer[CountWindow]):
    """``CountWindow`` as its id, a big-endian long (PyFlink's ``CountWindowSerializer``)."""

    def serialize(self, element: CountWindow, stream: BytesIO) -> None:
        stream.write(_LONG.pack(element.id))

    def deserialize(self, stream: BytesIO) -> CountWindow:
        return CountWindow(_LONG.unpack(_read(stream, 8, "CountWindowSerializer"))[0])


class GlobalWindowSerializer(TypeSerializer[GlobalWindow]):
    """The ``GlobalWindow`` as one 0 byte (PyFlink's ``GlobalWindowSerializer``)."""

    def serialize(self, element: GlobalWindow, stream: BytesIO) -> None:
        stream.write(b"\x00")

    def deserialize(self, stream: BytesIO) -> GlobalWindow:
        _read(stream, 1, "GlobalWindowSerializer")
        return GlobalWindow.get()
