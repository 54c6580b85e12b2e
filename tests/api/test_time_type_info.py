"""PyFlink's date/time type information: DateTypeInfo, TimeTypeInfo, TimestampTypeInfo,
InstantTypeInfo, LocalTimeTypeInfo (pyflink.common.typeinfo): internal forms and equality."""

from __future__ import annotations

import calendar
import datetime
import pickle
import time

import pytest

from pyflowkit.common import Instant, Types
from pyflowkit.common.typeinfo import (
    BasicType,
    BasicTypeInfo,
    DateTypeInfo,
    InstantTypeInfo,
    LocalTimeTypeInfo,
    SqlTimeTypeInfo,
    TimestampTypeInfo,
    TimeTypeInfo,
)
from pyflowkit.datastream.formats._values import parse_text

LOCAL_OFFSET_US = calendar.timegm(time.localtime(0)) * 10**6


def test_sql_time_factories_give_pyflinks_classes():
    assert type(Types.SQL_DATE()) is DateTypeInfo and type(SqlTimeTypeInfo.DATE()) is DateTypeInfo
    assert type(Types.SQL_TIME()) is TimeTypeInfo and type(SqlTimeTypeInfo.TIME()) is TimeTypeInfo
    assert type(Types.SQL_TIMESTAMP()) is TimestampTypeInfo
    assert [str(t) for t in (DateTypeInfo(), TimeTypeInfo(), TimestampTypeInfo())] == [
        "Date",
        "Time",
        "Timestamp",
    ]
    assert DateTypeInfo() == SqlTimeTypeInfo("Date") and DateTypeInfo() != TimeTypeInfo()
    assert len({DateTypeInfo(), SqlTimeTypeInfo("Date"), Types.SQL_DATE()}) == 1


def test_date_is_days_since_the_epoch():
    info = DateTypeInfo()
    assert info.need_conversion()
    assert info.to_internal_type(datetime.date(1970, 1, 2)) == 1
    assert info.to_internal_type(datetime.date(1969, 12, 31)) == -1
    assert info.from_internal_type(19723) == datetime.date(2024, 1, 1)
    assert info.to_internal_type(None) is None and info.from_internal_type(None) is None


def test_time_is_microseconds_of_the_day():
    info = TimeTypeInfo()
    aware = datetime.time(1, 2, 3, 4, tzinfo=datetime.timezone.utc)
    assert info.to_internal_type(aware) == (3723 * 10**6) + 4
    plus_one = datetime.time(1, 0, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    assert info.to_internal_type(plus_one) == 0
    naive = datetime.time(13, 14, 15, 16)
    assert info.to_internal_type(naive) == (13 * 3600 + 14 * 60 + 15) * 10**6 + 16 - LOCAL_OFFSET_US
    assert info.from_internal_type(info.to_internal_type(naive)) == naive


def test_timestamp_is_microseconds_since_the_epoch():
    info = TimestampTypeInfo()
    aware = datetime.datetime(1970, 1, 1, 0, 0, 1, 5, tzinfo=datetime.timezone.utc)
    assert info.to_internal_type(aware) == 10**6 + 5
    naive = datetime.datetime(2024, 2, 29, 12, 30, 0, 250)
    assert info.from_internal_type(info.to_internal_type(naive)) == naive


def test_instant_type_info_converts_instants():
    info = Types.INSTANT()
    assert type(info) is InstantTypeInfo and info == BasicTypeInfo(BasicType.INSTANT)
    assert BasicTypeInfo.INSTANT_TYPE_INFO() == info and str(info) == "Instant"
    assert info.need_conversion() and not BasicTypeInfo.LONG_TYPE_INFO().need_conversion()
    instant = Instant.of_epoch_milli(1_700_000_000_123)
    assert info.to_internal_type(instant) == 1_700_000_000_123_000
    assert info.from_internal_type(1_700_000_000_123_999) == instant


def test_local_time_type_info():
    tt = LocalTimeTypeInfo.TimeType
    assert [m.name for m in tt] == ["LOCAL_DATE", "LOCAL_TIME", "LOCAL_DATE_TIME"]
    infos = [LocalTimeTypeInfo(m) for m in tt]
    assert [str(i) for i in infos] == ["LocalDate", "LocalTime", "LocalDateTime"]
    assert infos[0] == LocalTimeTypeInfo(tt.LOCAL_DATE) and infos[0] != infos[1]
    assert pickle.loads(pickle.dumps(infos[2])) == infos[2]
    assert parse_text("2024-01-02", infos[0]) == datetime.date(2024, 1, 2)
    assert parse_text("10:11:12", infos[1]) == datetime.time(10, 11, 12)
    assert parse_text("2024-01-02T10:11:12", infos[2]) == datetime.datetime(2024, 1, 2, 10, 11, 12)
    with pytest.raises(TypeError, match="needs a LocalTimeTypeInfo.TimeType"):
        LocalTimeTypeInfo("LOCAL_DATE")
