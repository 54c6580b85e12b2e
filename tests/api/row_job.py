"""A job over ``Types.ROW_NAMED`` records (importable on Spark's workers)."""

from __future__ import annotations

from typing import Any

from pyflowkit.common import Row, RowKind, Types
from pyflowkit.datastream import StreamExecutionEnvironment

PEOPLE = Types.ROW_NAMED(["name", "age"], [Types.STRING(), Types.INT()])
OUT = Types.ROW_NAMED(["name", "next_age"], [Types.STRING(), Types.INT()])
ROWS = [("alice", 30), ["bob", 41], Row("carol", 25), Row(age=52, name="dave")]


def describe(r: Any) -> str:
    """What a user function sees of one record (type, attribute, index and dict access)."""
    return f"{type(r).__name__}|{r.name}|{r[1]}|{r['age']}|{sorted(r.as_dict().items())}"


def older(r: Any) -> Row:
    out = Row(name=r.name, next_age=r.age + 1)
    if r.age > 50:
        out.set_row_kind(RowKind.UPDATE_AFTER)
    return out


def row_job(env: StreamExecutionEnvironment) -> None:
    people = env.from_collection(ROWS, type_info=PEOPLE)
    people.map(describe, output_type=Types.STRING()).print("seen")
    people.map(older, output_type=OUT).map(
        lambda r: f"{r!r} {r.get_row_kind().short_string()}", output_type=Types.STRING()
    ).print("older")


EXPECTED_SEEN = sorted(
    [
        "Row|alice|30|30|[('age', 30), ('name', 'alice')]",
        "Row|bob|41|41|[('age', 41), ('name', 'bob')]",
        "Row|carol|25|25|[('age', 25), ('name', 'carol')]",
        "Row|dave|52|52|[('age', 52), ('name', 'dave')]",
    ]
)
EXPECTED_OLDER = sorted(
    [
        "Row(name='alice', next_age=31) +I",
        "Row(name='bob', next_age=42) +I",
        "Row(name='carol', next_age=26) +I",
        "Row(name='dave', next_age=53) +U",
    ]
)
