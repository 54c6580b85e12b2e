"""Java value semantics Flink relies on: ``int``/``long`` bounds and when two keys are the same key.

Stands for ``java.lang.Integer``/``Long`` ``MIN_VALUE``/``MAX_VALUE`` and for ``equals`` of boxed
keys: Python finds ``1 == True == 1.0`` (and hashes them alike) where Java's ``Integer``,
``Boolean`` and ``Double`` never are equal, so keyed state, timers and routing caches must not
merge them. Like ``pyflowkit.errors`` it sits below every layer (it imports nothing of
pyflowkit), so the user API, the graph, operators, state and both hosts share one definition.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

INT_MIN_VALUE = -(2**31)  # Integer.MIN_VALUE
INT_MAX_VALUE = 2**31 - 1  # Integer.MAX_VALUE
LONG_MIN_VALUE = -(2**63)  # Long.MIN_VALUE
LONG_MAX_VALUE = 2**63 - 1  # Long.MAX_VALUE

# Exact key types that are their own identity: only a str equals a str, and an int (never a bool,
# whose type is not int) equals only an int of the same value. Hot loops test
# ``type(key) in SELF_IDENTIFYING_KEY_TYPES`` before calling ``key_identity``.
SELF_IDENTIFYING_KEY_TYPES = frozenset((str, int))


def key_identity(key: Any) -> Hashable:
    """A dict key equal for two keys exactly when Java's ``equals`` holds for them.

    ``str`` and ``int`` keys are their own identity; any other key is paired with its type
    signature (recursively through tuples), so ``1``, ``True`` and ``1.0`` stay apart.
    """
    tk = type(key)
    if tk is str or tk is int:
        return key
    return (_type_signature(key), key)


def _type_signature(key: Any) -> Any:
    if isinstance(key, tuple):
        return (type(key), *(_type_signature(k) for k in key))
    return type(key)
