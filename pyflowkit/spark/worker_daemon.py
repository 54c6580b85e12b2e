"""The local Spark service's Python worker daemon: Spark's ``pyspark.daemon`` with pyflowkit's
stage code imported before it forks workers (``spark.python.daemon.module``).

Stands for ``pyspark.daemon`` (Spark's ``PythonWorkerFactory`` starts it once per executor and
forks a worker per task slot from it). A forked worker inherits the daemon's modules, so the
~90 pyflowkit modules a stage function's unpickling imports (about 1.5-2 s at load) are paid
once per service instead of once per new worker: Spark kills workers idle for a minute, so
without this a program that comes a minute after the last one paid that import in every worker.
Flink has no counterpart: its TaskManagers are JVMs with the job's classes loaded per task.
"""

from __future__ import annotations

import contextlib
import sys

#: What unpickling and running a stage function imports. Pure Python: like ``pyspark.daemon``,
#: which imports ``pyspark.worker`` only after the fork, nothing here may start a thread before
#: the daemon forks (pyarrow, pandas and numpy are imported by each worker, after the fork).
#: The DataStream API a user's module imports is not preloaded (the spark layer may not import it).
PRELOAD = (
    "pyflowkit.spark.stage",
    "pyflowkit.spark.typed_columns",
    "pyflowkit.operators.factory",
    "pyflowkit.graph.job_graph",
    "pyflowkit.graph.settings",
    "pyflowkit.common.time_utils",
)


def preload() -> None:
    """Import ``PRELOAD`` and the built-in operators (stdout kept clean: the daemon reports its
    port there)."""
    import importlib

    with contextlib.redirect_stdout(sys.stderr):
        for name in PRELOAD:
            importlib.import_module(name)
        from pyflowkit.operators import registry

        registry.registered_operators()  # imports the built-in operator modules


if __name__ == "__main__":
    try:
        preload()
    except Exception as exc:  # noqa: BLE001 — a worker then imports what it needs itself
        print(f"pyflowkit: worker daemon preload failed: {exc!r}", file=sys.stderr)
    from pyspark.daemon import manager

    manager()
