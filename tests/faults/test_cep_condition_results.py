"""A CEP condition must return a bool (issue 26: ``'false'`` matched everything, ``None`` nothing).

Flink's behaviour, not an error of pyflowkit's invention: Java's ``IterativeCondition.filter``
returns ``boolean``, so a Flink condition cannot return a str or null, and PyFlink 1.20 has no
Python CEP to compare with. pyflowkit refuses such a result when the condition is evaluated:
the job fails with Flink's "Failure happened in filter function." naming the pattern state and
the condition, the cause a ``TypeError`` naming the value returned and the rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from pyflowkit.cep import CEP, IterativeCondition, Pattern, SimpleCondition
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import FlinkRuntimeException
from pyflowkit.runtime import JobStatus, MiniCluster
from tests.faults.helpers import chain_of

EVENTS = [("a", 10), ("a", 80), ("a", 90), ("a", 20)]


def false_as_str(e: Any) -> Any:
    return "false"


def returns_none(e: Any) -> Any:
    return None  # e.g. a condition that forgot its return statement


def returns_int(e: Any) -> Any:
    return e[1] > 50 and 1


class StrFilter(SimpleCondition):
    def filter(self, value: Any) -> Any:
        return "true" if value[1] > 50 else "false"


class NoneIterative(IterativeCondition):
    def filter(self, value: Any, ctx: Any) -> Any:
        if value[1] > 50:
            return True
        return None


def high(e: Any) -> bool:
    return e[1] > 50


def numpy_high(e: Any) -> Any:
    return np.int64(e[1]) > 50  # numpy.bool: a bool, accepted


def run_pattern(pattern: Pattern) -> Any:
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    stream = env.from_collection(EVENTS).key_by(lambda e: e[0])
    # the records carry no timestamps: match in processing time (since Flink 1.12 CEP follows
    # the environment's EventTime default and would drop them as late)
    CEP.pattern(stream, pattern).in_processing_time().select(
        lambda m: [e[1] for es in m.values() for e in es]
    ).print()
    run = MiniCluster(echo_print=False, seed=1).submit(env.get_job_graph())
    run.run()
    return run


# (case, pattern, state named, condition named, value and type named)
REFUSED = [
    (
        "str 'false'",
        lambda: Pattern.begin("start").where(false_as_str),
        "start",
        "false_as_str",
        "'false' of type str",
    ),
    (
        "None",
        lambda: Pattern.begin("start").where(returns_none),
        "start",
        "returns_none",
        "None of type NoneType",
    ),
    (
        "int",
        lambda: Pattern.begin("first").where(high).next("second").where(returns_int),
        "second",
        "returns_int",
        "1 of type int",
    ),
    (
        "SimpleCondition str",
        lambda: Pattern.begin("hot").where(StrFilter()),
        "hot",
        "StrFilter",
        "'false' of type str",
    ),
    (
        "IterativeCondition None",
        lambda: Pattern.begin("hot").where(NoneIterative()),
        "hot",
        "NoneIterative",
        "None of type NoneType",
    ),
    (
        "or_ of a None",
        lambda: Pattern.begin("hot").where(high).or_(returns_none),
        "hot",
        "",
        "None of type NoneType",
    ),
]


@pytest.mark.parametrize(
    ("pattern", "state", "condition", "returned"),
    [pytest.param(*case[1:], id=case[0]) for case in REFUSED],
)
def test_a_condition_returning_a_non_bool_fails_the_job_naming_it(
    pattern, state, condition, returned
) -> None:
    run = run_pattern(pattern())
    assert run.job_status is JobStatus.FAILED
    chain = chain_of(run.failure_cause)
    cep_error = next(
        c for c in chain if isinstance(c, FlinkRuntimeException) and "filter function" in str(c)
    )
    text = str(cep_error)
    assert "Failure happened in filter function." in text
    assert f"CEP pattern state '{state}'" in text
    assert condition in text
    assert f"the condition returned {returned}, not a bool" in text
    assert "IterativeCondition.filter returns a boolean" in text
    assert run.printed() == []  # nothing matched before the refusal


@pytest.mark.parametrize(
    "condition", [pytest.param(high, id="bool"), pytest.param(numpy_high, id="numpy.bool")]
)
def test_bool_results_match_as_before(condition) -> None:
    run = run_pattern(Pattern.begin("first").where(condition).next("second").where(condition))
    assert run.job_status is JobStatus.FINISHED
    assert [line.split("> ", 1)[-1] for line in run.printed()] == ["[80, 90]"]
