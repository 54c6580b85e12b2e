"""``KeyedStream.execute_and_collect()`` yields ``Row(f0=key, f1=record)`` as PyFlink 1.20 does (its
keyed stream is the ``Row(key, record)`` stream of ``key_by``'s ``_stream_key_by_map_operator``;
``KeyedStream`` inherits ``DataStream.execute_and_collect``), on the simulated cluster and Spark."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration, Types
from pyflowkit.common.types import Row
from pyflowkit.datastream import StreamExecutionEnvironment


def _env(parallelism: int = 2) -> StreamExecutionEnvironment:
    conf = Configuration().set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(parallelism)
    return env


def _pairs(env: StreamExecutionEnvironment) -> Any:
    return env.from_collection(
        [("a", 1), ("b", 2), ("a", 3)], type_info=Types.TUPLE([Types.STRING(), Types.INT()])
    )


def _expected() -> list[Row]:
    return [Row(f0="a", f1=("a", 1)), Row(f0="a", f1=("a", 3)), Row(f0="b", f1=("b", 2))]


def _sorted(rows: list[Any]) -> list[Any]:
    return sorted(rows, key=lambda r: (r[0], r[1]))


def test_keyed_stream_collects_key_and_record_rows() -> None:
    got = list(_pairs(_env()).key_by(lambda t: t[0]).execute_and_collect())
    assert all(type(r) is Row and r._fields == ["f0", "f1"] for r in got)
    assert _sorted(got) == _expected()
    assert [r.f0 for r in _sorted(got)] == ["a", "a", "b"]


def test_the_key_is_converted_by_its_declared_type_and_limit_works() -> None:
    env = _env(1)
    keyed = env.from_collection([1.5, 2.5]).key_by(lambda x: x * 2, key_type=Types.FLOAT())
    got = keyed.execute_and_collect("keyed", limit=2)
    assert got == [Row(f0=3.0, f1=1.5), Row(f0=5.0, f1=2.5)]


def test_other_streams_still_collect_bare_records() -> None:
    env = _env()
    assert sorted(_pairs(env).execute_and_collect()) == [("a", 1), ("a", 3), ("b", 2)]
    values = list(_pairs(env).key_by(lambda t: t[0]).map(lambda t: t[1]).execute_and_collect())
    assert sorted(values) == [1, 2, 3]


@pytest.mark.spark
def test_keyed_stream_collects_key_and_record_rows_on_spark(spark: Any) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    got = list(_pairs(env).key_by(lambda t: t[0]).execute_and_collect("keyed", spark=spark))
    assert _sorted(got) == _expected()
    assert all(r._fields == ["f0", "f1"] for r in got)
