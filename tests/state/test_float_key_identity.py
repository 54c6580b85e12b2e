"""``0.0`` and ``-0.0`` are two keys, and every NaN is one, in keyed state: as PyFlink 1.20 keys
them (the pickled bytes, or the DOUBLE key coder's bytes) and as Java's ``Double.equals`` does
(1.11's ``keyBy``), where Python's ``==`` merges the zeros and finds no NaN equal (golden
``program__float_zero_nan_keys``, recorded on PyFlink 1.20.3)."""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream.state import ValueStateDescriptor
from pyflowkit.java_semantics import (
    TypedKey,
    declared_state_key,
    has_signed_zero_or_nan,
    java_state_key,
    key_identity,
    plain_key,
    state_key,
)
from pyflowkit.state import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange
from tests.runtime.test_pipelines import CountPerKey, env_p

NAN = float("nan")
# never two Python-equal keys in a row (the order PyFlink's golden used)
KEYS = [0.0, "x", -0.0, NAN, 1.0, float("nan"), 0.0, (-0.0, "a"), -0.0, (0.0, "a"), NAN]
RULES = [state_key, java_state_key, declared_state_key]


def test_identity_tells_the_zeros_apart_and_makes_nans_one() -> None:
    assert key_identity(0.0) != key_identity(-0.0)
    assert key_identity(NAN) == key_identity(float("nan"))
    assert key_identity((-0.0, "a")) != key_identity((0.0, "a"))
    assert key_identity((NAN, 1)) == key_identity((float("nan"), 1))
    assert key_identity(1.0) != key_identity(1) and key_identity(2.5) == key_identity(2.5)
    assert [has_signed_zero_or_nan(k) for k in (-0.0, NAN, (1, -0.0), 0.0, 1.0, 0, (0.0,))] == [
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_each_rule_keeps_zeros_apart_and_nans_together(rule: Any) -> None:
    assert rule(0.0) != rule(-0.0) and rule(-0.0) == rule(-0.0)
    assert rule(NAN) == rule(float("nan"))
    assert rule((0.0, "a")) != rule((-0.0, "a"))
    assert plain_key(rule(-0.0)) == 0.0 and repr(plain_key(rule(-0.0))) == "-0.0"


def test_a_declared_key_type_still_makes_python_equal_keys_one() -> None:
    # the key coder turns True into 1 under INT, 1 into 1.0 under DOUBLE: one key each
    assert declared_state_key(True) == declared_state_key(1)
    assert declared_state_key(1) == declared_state_key(1.0)
    assert declared_state_key(0) == declared_state_key(0.0)  # 0 as DOUBLE is 0.0, not -0.0
    assert type(declared_state_key(-0.0)) is TypedKey and declared_state_key(2.5) == 2.5


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.__name__)
def test_state_per_key_in_one_key_group(rule: Any) -> None:
    b = HeapKeyedStateBackend(1, KeyGroupRange(0, 0))
    b.state_key = rule
    state = b.get_partitioned_state(ValueStateDescriptor("n"))
    got = []
    for key in KEYS:
        b.set_current_key(key)
        state.update((state.value() or 0) + 1)
        got.append(f"{key!r}#{state.value()}")
    assert got == [
        "0.0#1",
        "'x'#1",
        "-0.0#1",
        "nan#1",
        "1.0#1",
        "nan#2",
        "0.0#2",
        "(-0.0, 'a')#1",
        "-0.0#2",
        "(0.0, 'a')#1",
        "nan#3",
    ]


def expected_counts() -> list[tuple[Any, int]]:
    seen: dict[str, int] = {}
    out = []
    for key in KEYS:
        seen[repr(key)] = seen.get(repr(key), 0) + 1  # repr: -0.0 / 0.0 apart, 'nan' one
        out.append((repr(key), seen[repr(key)]))
    return sorted(out)


@pytest.mark.parametrize("host", ["reference", "fast", "step"])
@pytest.mark.parametrize("p", [1, 2])
def test_a_job_counts_per_key_on_every_host(host: str, p: int) -> None:
    from pyflowkit.runtime import JobStatus, MiniCluster

    out: list[Any] = []
    env = env_p(p)
    (
        env.from_collection([(k, i) for i, k in enumerate(KEYS)])
        .key_by(lambda v: v[0])
        .process(CountPerKey())
        .map(lambda kc: (repr(kc[0]), kc[1]))
        .add_sink(out.append)
    )
    if host == "reference":
        from pyflowkit.reference.local_driver import run_local

        run_local(env)
    else:
        job = MiniCluster(task_managers=1, slots_per_task_manager=2, echo_print=False).submit(env)
        if host == "fast":
            job.run()
        else:
            while job.has_next():
                job.step()
        assert job.job_status is JobStatus.FINISHED, job.failure_traceback
    assert sorted(out) == expected_counts()


@pytest.mark.parametrize("p", [1, 2])
def test_a_declared_double_key_type_counts_per_key(p: int) -> None:
    from pyflowkit.reference.local_driver import run_local

    out: list[Any] = []
    env = env_p(p)
    floats = [k for k in KEYS if isinstance(k, float)]
    (
        env.from_collection(
            [(k, i) for i, k in enumerate(floats)],
            type_info=Types.TUPLE([Types.DOUBLE(), Types.INT()]),
        )
        .key_by(lambda v: v[0], key_type=Types.DOUBLE())
        .process(CountPerKey())
        .map(lambda kc: (repr(kc[0]), kc[1]))
        .add_sink(out.append)
    )
    run_local(env)
    assert sorted(out) == sorted(
        (repr(k), sum(repr(x) == repr(k) for x in floats[: i + 1])) for i, k in enumerate(floats)
    )
