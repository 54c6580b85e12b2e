"""The Java 8 ``PriorityQueue`` emulation that orders computation states: heap invariant, poll
order, and ``removeIf`` through the iterator (with its forget-me-not queue) keeping everything else."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pyflowkit.operators.cep import java_priority_queue as pq


def key(x: tuple[int, int]) -> int:
    return x[0]


def heap_ok(queue: list[tuple[int, int]]) -> bool:
    return all(key(queue[(i - 1) >> 1]) <= key(queue[i]) for i in range(1, len(queue)))


items = st.lists(st.tuples(st.integers(0, 20), st.integers(0, 1000)), max_size=40)


@given(items)
def test_offer_keeps_the_heap_and_poll_sorts(values: list[tuple[int, int]]) -> None:
    queue: list[tuple[int, int]] = []
    for v in values:
        pq.offer(queue, v, key)
        assert heap_ok(queue)
    polled = [pq.poll(queue, key) for _ in range(len(values))]
    assert [key(v) for v in polled] == sorted(key(v) for v in values)
    assert pq.poll(queue, key) is None


@given(items, st.integers(0, 20))
def test_remove_if_removes_exactly_the_matching_elements(
    values: list[tuple[int, int]], cut: int
) -> None:
    queue: list[tuple[int, int]] = []
    pq.add_all(queue, values, key)
    removed = pq.remove_if(queue, lambda v: key(v) >= cut, key)
    assert heap_ok(queue)
    assert Counter(queue) == Counter(v for v in values if key(v) < cut)
    assert removed == any(key(v) >= cut for v in values)


def test_java_array_order_after_offers() -> None:
    """java.util.PriorityQueue: offering 5, 3, 4, 1, 2 leaves the array [1, 2, 4, 5, 3]."""
    queue: list[tuple[int, int]] = []
    for n in (5, 3, 4, 1, 2):
        pq.offer(queue, (n, 0), key)
    assert [k for k, _ in queue] == [1, 2, 4, 5, 3]
    # removeIf(x == 1) in Java 8: removeAt(0) moves 3 to the root and sifts it down
    pq.remove_if(queue, lambda v: v[0] == 1, key)
    assert [k for k, _ in queue] == [2, 3, 4, 5]
