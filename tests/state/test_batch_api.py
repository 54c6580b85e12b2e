"""The state layer's batch operations equal their per-record counterparts; fast paths use them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

import pyflowkit
from pyflowkit.datastream.functions import AggregateFunction
from pyflowkit.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    ReducingStateDescriptor,
)
from pyflowkit.java_semantics import key_identity
from pyflowkit.state.heap_keyed_state_backend import HeapKeyedStateBackend
from pyflowkit.state.key_groups import KeyGroupRange
from pyflowkit.state.timer_service import _TimerQueue

KEYS = st.sampled_from([1, True, 1.0, "a", "b", (1, "a"), (True, "a"), 7])
NAMESPACES = st.sampled_from(["w1", "w2", ("x", 3)])


class Avg(AggregateFunction):
    def create_accumulator(self) -> list[int]:
        return [0, 0]

    def add(self, value: int, acc: list[int]) -> list[int]:
        return [acc[0] + value, acc[1] + 1]

    def get_result(self, acc: list[int]) -> tuple[int, int]:
        return (acc[0], acc[1])

    def merge(self, a: list[int], b: list[int]) -> list[int]:
        return [a[0] + b[0], a[1] + b[1]]


def descriptors() -> list[Any]:
    return [
        ReducingStateDescriptor("r", lambda a, b: a * 31 + b),
        AggregatingStateDescriptor("g", Avg()),
        ListStateDescriptor("l"),
    ]


def backend() -> HeapKeyedStateBackend:
    return HeapKeyedStateBackend(128, KeyGroupRange(0, 127))


@given(st.lists(st.tuples(KEYS, NAMESPACES, st.lists(st.integers(-50, 50), max_size=4))))
def test_add_grouped_equals_add_per_value(groups: list[tuple[Any, Any, list[int]]]) -> None:
    for descriptor in descriptors():
        batch, single = backend(), backend()
        b_state = batch.get_or_create_keyed_state(descriptor)
        rows = [(k, batch.checked_key_group(k), ns, list(vs)) for k, ns, vs in groups]
        b_state.add_grouped(rows)
        s_state = single.get_or_create_keyed_state(descriptor)
        for k, ns, vs in groups:
            single.set_current_key(k)
            s_state.set_current_namespace(ns)
            for v in vs:
                s_state.add(v)
        assert batch.snapshot() == single.snapshot(), descriptor.name


TIMER_OPS = st.lists(
    st.tuples(st.sampled_from(["add", "remove"]), st.integers(0, 6), KEYS, NAMESPACES),
    max_size=30,
)


@given(TIMER_OPS, st.integers(0, 7))
def test_pop_due_and_add_all_equal_the_single_timer_operations(ops: list, time: int) -> None:
    single, batch = _TimerQueue(), _TimerQueue()
    pending: list[tuple[int, Any, Any]] = []
    for op, ts, key, ns in ops:
        if op == "add":
            single.add(ts, key, ns)
            pending.append((ts, key, ns))
        else:
            single.remove(ts, key, ns)
            batch.add_all(pending)
            pending = []
            batch.remove(ts, key, ns)
    batch.add_all(pending)
    assert batch.ordered() == single.ordered()
    one_by_one = []
    while (timer := single.pop_if_due(time)) is not None:
        one_by_one.append(timer)
    assert list(batch.pop_due(time)) == one_by_one
    assert batch.ordered() == single.ordered()
    assert batch.has_due(time) is False or all(t > time for t, _, _ in batch.ordered())


def test_pop_due_fires_timers_added_while_popping() -> None:
    queue = _TimerQueue()
    queue.add(1, "a", None)
    popped = []
    for ts, key, _ns in queue.pop_due(5):
        popped.append((ts, key))
        if key == "a":
            queue.add(3, "b", None)
            queue.add(9, "c", None)
    assert popped == [(1, "a"), (3, "b")] and queue.ordered() == [(9, "c", None)]


def test_key_group_lookup_gives_the_checked_group_per_java_identity() -> None:
    b = backend()
    lookup = b.key_group_lookup()
    assert lookup(key_identity(1)) is None
    groups = [(k, b.checked_key_group(k)) for k in (1, True, 1.0, "1", (1, 2))]
    for k, kg in groups:
        assert lookup(key_identity(k)) == kg
    assert len({kg for _, kg in groups[:3]}) > 1  # Java tells 1, True and 1.0 apart


# another object's state-layer internals (a class's own ``self.seq`` is its own business, and so
# is a Spark record sink's ``seq``, spark/records.py)
PRIVATE = re.compile(r"\._kg_cache\b|(?<!self)(?<!sink)\.(heap|live|seq|key_groups)\b|\._states\b")
STRING = re.compile(r"\"[^\"]*\"|'[^']*'")  # Spark column names such as "i.seq" are no fields


def _code(line: str) -> str:
    return STRING.sub('""', line.split("#")[0])


def test_fast_paths_use_no_private_state_fields() -> None:
    root = Path(pyflowkit.__file__).parent
    offenders = [
        f"{path.relative_to(root)}:{n}"
        for package in ("operators", "runtime", "spark", "cep")
        for path in sorted((root / package).rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(_code(line)) and "state.key_groups" not in line
    ]
    assert offenders == []
