"""PyFlink names at PyFlink's module paths, equal to what the rest of the API builds."""

from __future__ import annotations

from pyflowkit.common import Types
from pyflowkit.common.typeinfo import BasicTypeInfo, MapTypeInfo, SqlTimeTypeInfo
from pyflowkit.datastream import functions


def test_basic_and_sql_time_type_info_accessors_equal_types() -> None:
    pairs = [
        (BasicTypeInfo.STRING_TYPE_INFO(), Types.STRING()),
        (BasicTypeInfo.INT_TYPE_INFO(), Types.INT()),
        (BasicTypeInfo.LONG_TYPE_INFO(), Types.LONG()),
        (BasicTypeInfo.DOUBLE_TYPE_INFO(), Types.DOUBLE()),
        (BasicTypeInfo.BIG_DEC_TYPE_INFO(), Types.BIG_DEC()),
        (SqlTimeTypeInfo.DATE(), Types.SQL_DATE()),
        (SqlTimeTypeInfo.TIMESTAMP(), Types.SQL_TIMESTAMP()),
    ]
    for built, expected in pairs:
        assert built == expected and str(built) == str(expected)
    m = MapTypeInfo(key_type_info=Types.STRING(), value_type_info=Types.INT())
    assert m == Types.MAP(Types.STRING(), Types.INT()) and str(m) == "Map<String, Integer>"


def test_time_domain_timer_service_and_stream_classes_at_pyflinks_paths() -> None:
    from pyflowkit.datastream.data_stream import (
        AllWindowedStream,
        BroadcastConnectedStream,
        BroadcastStream,
        ConnectedStreams,
        KeyedStream,
        WindowedStream,
    )
    from pyflowkit.datastream.time_domain import TimeDomain
    from pyflowkit.datastream.timerservice import TimerService

    assert TimeDomain is functions.TimeDomain and TimerService is functions.TimerService
    assert {c.__name__ for c in (KeyedStream, WindowedStream, AllWindowedStream)} == {
        "KeyedStream",
        "WindowedStream",
        "AllWindowedStream",
    }
    assert ConnectedStreams.__name__ == "ConnectedStreams"
    assert BroadcastStream.__name__ == "BroadcastStream"
    assert BroadcastConnectedStream.__name__ == "BroadcastConnectedStream"


def test_configuration_bytes_and_add_all_to_dict() -> None:
    import pytest

    from pyflowkit.common import Configuration

    c = Configuration()
    c.set_bytearray("k", b"\x00\xffab").set_string("s", "v")
    assert c.get_bytearray("k") == bytearray(b"\x00\xffab")
    assert c.get_string("k") == "AP9hYg=="  # Flink's string form of bytes: base64
    assert c.get_bytearray("missing", bytearray(b"d")) == bytearray(b"d")
    with pytest.raises(ValueError, match="'s': 'v' is not a byte array"):
        c.get_bytearray("s")
    target: dict = {"x": "1"}
    c.add_all_to_dict(target)
    assert target == {"x": "1", "k": "AP9hYg==", "s": "v"}
