"""Start the embedded Spark session, and its Python workers, in the background before a run.

No Flink counterpart: a Flink client submits to a cluster that is already up. Spark's JVM and
Python workers take seconds to start, so pyflowkit starts them as soon as a Spark run becomes
likely (``%load_ext pyflowkit``, ``pyflowkit run``); ``get_session`` then waits for, or reuses,
what the warm-up started. ``PYFLOWKIT_SPARK_PREWARM=0`` turns it off. The JVM a warm-up starts writes its stderr to
``session.jvm_log_path()``, so a notebook that never runs on Spark shows no JVM line.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

PREWARM_ENV = "PYFLOWKIT_SPARK_PREWARM"

_lock = threading.Lock()
_warmups: dict[tuple, Future] = {}


@dataclass(frozen=True)
class WarmupReport:
    """How long the background start took: the session, then a tiny job on every core."""

    reason: str
    session_seconds: float
    workers_seconds: float


def enabled() -> bool:
    """False when ``PYFLOWKIT_SPARK_PREWARM`` is ``0``/``false``/``no``/``off``."""
    return os.environ.get(PREWARM_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def prewarm(
    configuration: Mapping[str, str] | None = None,
    *,
    reason: str,
    job: Callable[[], Any] | None = None,
) -> Future[WarmupReport] | None:
    """Start the session ``configuration`` asks for on a daemon thread; never blocks.

    ``job`` builds a tiny JobGraph to run once, quietly, so that the JVM plans and runs every kind
    of stage (source, shuffle, keyed chain, collect) and the Python workers import the stage
    modules before the user's first job; without it one ``mapInArrow`` stage per core runs.

    Returns the warm-up's future (shared by repeated calls with the same settings), or None when
    warm-up is off or cannot help (no pyspark, no Java for a local JVM). Failures stay in the
    future: the real run raises them with its own clear message.
    """
    if not enabled() or importlib.util.find_spec("pyspark") is None:
        return None
    from pyflowkit.spark import preflight
    from pyflowkit.spark.session import resolve_master

    master, conf = resolve_master(configuration)
    if not (master or "").startswith("sc://") and preflight.find_java() is None:
        return None
    key = (master, tuple(sorted(conf.items())))
    with _lock:
        if key in _warmups:
            return _warmups[key]
        future: Future[WarmupReport] = Future()
        _warmups[key] = future
    settings = dict(configuration or {})
    thread = threading.Thread(
        target=_warm,
        args=(settings, reason, job, future),
        name="pyflowkit-spark-warmup",
        daemon=True,
    )
    thread.start()
    return future


def warmup_for(configuration: Mapping[str, str] | None = None) -> Future[WarmupReport] | None:
    """The warm-up started for these settings, if any (for status displays and tests)."""
    from pyflowkit.spark.session import resolve_master

    master, conf = resolve_master(configuration)
    with _lock:
        return _warmups.get((master, tuple(sorted(conf.items()))))


def _warm(
    settings: dict[str, str],
    reason: str,
    job: Callable[[], Any] | None,
    future: Future[WarmupReport],
) -> None:
    from pyflowkit.spark.session import get_session, jvm_log_path

    try:
        started = time.perf_counter()
        session = get_session(settings, jvm_stderr=jvm_log_path())
        ready = time.perf_counter()
        if job is None:
            warm_python_workers(session)
        else:
            from pyflowkit.spark.executor import execute

            execute(job(), spark=session, print_output=False)
        done = time.perf_counter()
    except BaseException as exc:  # noqa: BLE001 — kept for the real run to report
        future.set_exception(exc)
        return
    future.set_result(WarmupReport(reason, ready - started, done - ready))


def warm_python_workers(session: Any) -> None:
    """Run one tiny ``mapInArrow`` stage per core so that Spark forks its Python workers and they
    import the stage modules; Spark reuses those workers for the job's own stages."""
    cores = _cores(session)
    frame = session.range(0, cores, 1, cores).mapInArrow(_import_stage_modules, "id long")
    frame.collect()


def _cores(session: Any) -> int:
    try:
        return max(1, int(session.sparkContext.defaultParallelism))
    except Exception:  # noqa: BLE001 — Spark Connect has no SparkContext
        return 2


def _import_stage_modules(batches: Iterator[Any]) -> Iterator[Any]:
    import pyflowkit.spark.stage  # noqa: F401 — what every stage of a job imports first

    yield from batches
