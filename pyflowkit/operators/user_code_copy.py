"""Each operator instance gets its own copy of the user code (functions, sources, settings).

Stands for Flink deserialising the ``StreamOperatorFactory`` from the ``StreamConfig`` once per
subtask and attempt (``StreamConfig.getStreamOperatorFactory`` → ``InstantiationUtil``): fields a
function sets in ``open()`` are never shared between subtasks, and a restarted source starts from
a fresh reader. Large collections of immutable elements (``from_collection`` data) are shared —
copying them would cost time and change nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from itertools import chain
from typing import Any

_ATOMIC = (str, int, float, bool, bytes, complex, type(None))
_ATOMIC_TYPES = frozenset(_ATOMIC)
_SHARE_MIN_LEN = 64  # shorter sequences are cheap to copy
_SCAN_DEPTH = 3  # how deep into object attributes to look for such collections


def copy_user_code(params: Mapping[str, Any]) -> dict[str, Any]:
    """A private copy of ``OperatorFactory.params``; values that cannot be copied are shared."""
    memo = _immutable_memo(params)
    out: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, _ATOMIC):
            out[name] = value
            continue
        try:
            out[name] = copy.deepcopy(value, memo)
        except Exception:  # noqa: BLE001 - e.g. a generator or a lock: shared, as given
            out[name] = value
    return out


def _is_immutable_element(x: Any) -> bool:
    return isinstance(x, _ATOMIC) or (type(x) is tuple and all(isinstance(y, _ATOMIC) for y in x))


def _all_immutable(items: list[Any] | tuple[Any, ...]) -> bool:
    """Every element is atomic or a tuple of atomics (element types are checked in C first)."""
    types = set(map(type, items))
    if types <= _ATOMIC_TYPES:
        return True
    if types <= _ATOMIC_TYPES | {tuple}:
        tuples = items if types == {tuple} else [x for x in items if type(x) is tuple]
        return set(map(type, chain.from_iterable(tuples))) <= _ATOMIC_TYPES
    return all(map(_is_immutable_element, items))


def _immutable_memo(params: Mapping[str, Any]) -> dict[int, Any]:
    """A deepcopy memo mapping large sequences of immutable elements to themselves."""
    memo: dict[int, Any] = {}
    stack: list[tuple[Any, int]] = [(v, 0) for v in params.values()]
    seen: set[int] = set()
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, list | tuple) and len(obj) > _SHARE_MIN_LEN:
            if _all_immutable(obj):
                memo[id(obj)] = obj
                continue
        if depth < _SCAN_DEPTH and hasattr(obj, "__dict__") and not callable(obj):
            stack.extend((v, depth + 1) for v in vars(obj).values())
    return memo
