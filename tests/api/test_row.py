"""Row semantics as PyFlink: ``ROW`` / ``ROW_NAMED`` records are ``Row`` objects in user functions."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Configuration, Row, RowKind, Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException, InvalidTypesException
from pyflowkit.runtime import MiniCluster
from tests.api.row_job import EXPECTED_OLDER, EXPECTED_SEEN, PEOPLE, row_job


def test_access_by_attribute_index_name_and_as_dict() -> None:
    r = Row(name="Alice", age=11)
    assert (r.name, r.age, r[0], r["age"], r[-1]) == ("Alice", 11, "Alice", 11, 11)
    assert r.as_dict() == {"name": "Alice", "age": 11}
    nested = Row(key=1, value=Row(name="a", age=2))
    assert nested.as_dict(True) == {"key": 1, "value": {"name": "a", "age": 2}}
    assert "name" in r and "Alice" not in r
    with pytest.raises(AttributeError):
        _ = r.missing
    with pytest.raises(TypeError, match="into dict"):
        Row(1, 2).as_dict()
    person = Row("name", "age")
    assert person("Alice", 11) == r


def test_row_kind_get_set_and_of_kind() -> None:
    r = Row(1, "a")
    assert r.get_row_kind() is RowKind.INSERT
    r.set_row_kind(RowKind.DELETE)
    assert r.get_row_kind() is RowKind.DELETE and RowKind.DELETE.short_string() == "-D"
    d = Row.of_kind(RowKind.UPDATE_BEFORE, name="x")
    assert d.get_row_kind() is RowKind.UPDATE_BEFORE and d.name == "x"
    with pytest.raises(TypeError, match="RowKind"):
        r.set_row_kind("DELETE")


def test_equality_and_hashing_as_pyflink() -> None:
    assert Row(a=1, b=2) == Row(b=2, a=1)  # named rows compare by field name
    assert Row(a=1, b=2) != Row(a=2, b=1)
    assert Row(1, 2) == Row(1, 2) and Row(1, 2) != Row(a=1, b=2)  # named never equals unnamed
    assert Row(1, 2) != (1, 2)
    assert Row(1, 2) != Row.of_kind(RowKind.DELETE, 1, 2)  # the kind takes part
    assert hash(Row(1, "x")) == hash((1, "x")) == hash(Row(a=1, b="x"))
    assert len({Row(1, 2), Row(1, 2), Row(2, 1)}) == 2


def test_printed_as_pyflink() -> None:
    assert repr(Row(name="a", n=1)) == "Row(name='a', n=1)"
    assert repr(Row("a", 1)) == "<Row('a', 1)>"
    assert str(Row(name="a")) == "Row(name='a')"


def test_row_type_info_conversions_as_pyflink() -> None:
    assert PEOPLE.need_conversion() and not Types.INT().need_conversion()
    assert PEOPLE.to_internal_type(Row(age=3, name="x")) == (0, "x", 3)
    assert PEOPLE.to_internal_type({"name": "y", "age": 4}) == (0, "y", 4)
    assert PEOPLE.to_internal_type(Row.of_kind(RowKind.DELETE, "z", 5)) == (3, "z", 5)
    assert PEOPLE.from_internal_type(("x", 3)) == ("x", 3)


def _local_env() -> StreamExecutionEnvironment:
    conf = Configuration()
    conf.set_string("execution.target", "local")
    env = StreamExecutionEnvironment.get_execution_environment(conf)
    env.set_parallelism(2)
    return env


def _values(printed: list[str], prefix: str) -> list[str]:
    return sorted(line.split("> ", 1)[1] for line in printed if line.startswith(prefix))


def test_functions_get_named_rows_on_the_simulated_cluster() -> None:
    env = _local_env()
    row_job(env)
    printed = MiniCluster(seed=2).submit(env, "rows").run().printed()
    assert _values(printed, "seen") == EXPECTED_SEEN
    assert _values(printed, "older") == EXPECTED_OLDER


def test_unnamed_row_type_names_fields_f0_f1() -> None:
    env = _local_env()
    ds = env.from_collection([(1, "a")], type_info=Types.ROW([Types.INT(), Types.STRING()]))
    assert list(ds.execute_and_collect()) == [Row(f0=1, f1="a")]


@pytest.mark.parametrize(
    ("element", "error", "message"),
    [
        (("alice",), IllegalArgumentException, r"has 1 fields, its declared type .* has 2"),
        (Row("a", 1, 2), IllegalArgumentException, r"has 3 fields"),
        (Row(name="a", years=3), IllegalArgumentException, r"has fields \['name', 'years'\]"),
        (42, InvalidTypesException, r"a Row, tuple or list of 2 fields is required"),
    ],
)
def test_a_record_that_does_not_fit_row_named_is_refused_naming_the_operator(
    element: Any, error: type[Exception], message: str
) -> None:
    env = _local_env()
    ok = env.from_collection([("x", 1)], type_info=PEOPLE)
    before = list(env.get_transformations()) if hasattr(env, "get_transformations") else None
    with pytest.raises(error, match=rf"^Source: Collection Source: record .*{message}"):
        env.from_collection([("bob", 2), element], type_info=PEOPLE)
    if before is not None:
        assert env.get_transformations() == before
    assert list(ok.execute_and_collect()) == [Row(name="x", age=1)]  # the pipeline is as it was


@pytest.mark.spark
def test_functions_get_named_rows_on_spark(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    row_job(env)
    env.execute("rows on spark", spark=spark)
    printed = capsys.readouterr().out.splitlines()
    assert _values(printed, "seen") == EXPECTED_SEEN
    assert _values(printed, "older") == EXPECTED_OLDER
