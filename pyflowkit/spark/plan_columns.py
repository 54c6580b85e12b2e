"""Column expressions a batch plan uses, built once per Spark session and reused by every job.

Each ``F.col``/``F.lit`` in classic PySpark costs several py4j round trips; the plan's filters,
sort keys and partitioning expressions are the same from job to job (unresolved expressions, which
any DataFrame may share), so each is made once per session. pyflowkit's own plumbing, no Flink
counterpart (Flink's ``JobGraph`` deployment has no such cost).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any
from weakref import WeakKeyDictionary

_cache: WeakKeyDictionary[Any, dict[Hashable, Any]] = WeakKeyDictionary()
_lock = threading.Lock()  # the warm-up thread and the user's run plan jobs at the same time


def session_column(session: Any, key: Hashable, make: Callable[[], Any]) -> Any:
    """The Column ``make()`` built for ``session`` under ``key`` (made on first use)."""
    with _lock:
        try:
            columns = _cache.setdefault(session, {})
        except TypeError:  # a session that cannot be weakly referenced: build each time
            columns = None
        column = None if columns is None else columns.get(key)
    if column is None:
        column = make()  # py4j calls outside the lock; two threads may both build, one is kept
        if columns is not None:
            with _lock:
                column = columns.setdefault(key, column)
    return column


def edge_is(session: Any, k: int) -> Any:
    """``edge == k``: the rows of JobEdge ``k``."""
    from pyspark.sql import functions as F

    return session_column(session, ("edge ==", k), lambda: F.col("edge") == k)


def sink_rows(session: Any) -> Any:
    """``edge < 0``: print, collect and metric rows."""
    from pyspark.sql import functions as F

    return session_column(session, "edge < 0", lambda: F.col("edge") < 0)


def input_order(session: Any) -> list[Any]:
    """The sort keys of a stage's input: ``seq``, ``edge``, ``producer`` ascending."""
    from pyspark.sql import functions as F

    return session_column(
        session, "input order", lambda: [F.col("seq"), F.col("edge"), F.col("producer")]
    )
