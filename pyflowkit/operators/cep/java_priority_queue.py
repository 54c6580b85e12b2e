"""Java 8's ``java.util.PriorityQueue`` on a plain list, so CEP matches come out in Flink's order.

Flink's ``NFAState`` keeps computation states in ``PriorityQueue``s and iterates them in heap-array
order; the same sift-up/sift-down steps, and the iterator's ``remove`` (with its "forget me not"
queue), give the same array and therefore the same order. The queue is a plain list (state stays
plain data); ``key`` maps an element to its sort key (the comparator).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

Key = Callable[[Any], Any]


def offer(queue: list[Any], item: Any, key: Key) -> None:
    """``PriorityQueue.offer``: append, then ``siftUp``."""
    k = len(queue)
    queue.append(item)
    if k == 0:
        return
    kx = key(item)
    while k > 0:
        parent = (k - 1) >> 1
        e = queue[parent]
        if kx >= key(e):
            break
        queue[k] = e
        k = parent
    queue[k] = item


def add_all(queue: list[Any], items: Iterable[Any], key: Key) -> None:
    """``AbstractQueue.addAll``: ``add`` each item in iteration order."""
    for item in items:
        offer(queue, item, key)


def _sift_down(queue: list[Any], k: int, x: Any, size: int, key: Key) -> None:
    half = size >> 1
    kx = key(x)
    while k < half:
        child = (k << 1) + 1
        c = queue[child]
        right = child + 1
        if right < size and key(c) > key(queue[right]):
            child = right
            c = queue[child]
        if kx <= key(c):
            break
        queue[k] = c
        k = child
    queue[k] = x


def poll(queue: list[Any], key: Key) -> Any:
    """``PriorityQueue.poll``: the head (or None); the last element sifts down from the root."""
    if not queue:
        return None
    result = queue[0]
    x = queue.pop()
    if queue:
        _sift_down(queue, 0, x, len(queue), key)
    return result


def _remove_at(queue: list[Any], i: int, key: Key) -> Any:
    """``PriorityQueue.removeAt``: the moved element if it went up past ``i`` (else None)."""
    s = len(queue) - 1
    if s == i:
        queue.pop()
        return None
    moved = queue.pop()
    _sift_down(queue, i, moved, s, key)
    if queue[i] is moved:
        # siftUp(i, moved)
        k = i
        km = key(moved)
        while k > 0:
            parent = (k - 1) >> 1
            e = queue[parent]
            if km >= key(e):
                break
            queue[k] = e
            k = parent
        queue[k] = moved
        if queue[i] is not moved:
            return moved
    return None


def remove_if(queue: list[Any], predicate: Callable[[Any], bool], key: Key) -> bool:
    """``Collection.removeIf`` through Java 8's ``PriorityQueue.Itr`` (``remove`` with forget-me-not)."""
    removed = False
    cursor = 0
    forget_me_not: deque[Any] = deque()
    while cursor < len(queue) or forget_me_not:
        if cursor < len(queue):
            last_ret = cursor
            item = queue[cursor]
            cursor += 1
            if predicate(item):
                moved = _remove_at(queue, last_ret, key)
                removed = True
                if moved is None:
                    cursor -= 1
                else:
                    forget_me_not.append(moved)
        else:
            item = forget_me_not.popleft()
            if predicate(item):
                for i, e in enumerate(queue):  # removeEq: by identity
                    if e is item:
                        _remove_at(queue, i, key)
                        break
                removed = True
    return removed


def remove_all(queue: list[Any], items: list[Any], key: Key) -> bool:
    """``AbstractCollection.removeAll(items)``: ``removeIf(items::contains)`` (equality)."""
    if not items:
        return False
    return remove_if(queue, items.__contains__, key)
