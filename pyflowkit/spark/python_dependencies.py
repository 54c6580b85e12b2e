"""A job's Python dependencies on Spark: ``python.files`` → ``addPyFile``, cached files →
``addFile`` / ``SparkFiles``, ``python.archives`` → ``spark.archives``, ``python.executable`` →
``spark.pyspark.python`` (PyFlink's ``PythonOptions`` mapped to Spark's own mechanisms)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from typing import Any

from pyflowkit.common import python_dependencies as deps
from pyflowkit.errors import UnsupportedOperationException


def session_settings(configuration: Mapping[str, str]) -> dict[str, str]:
    """The ``spark.*`` settings a session started for this job needs (user ``spark.*`` keys
    win): ``spark.pyspark.python`` and ``spark.archives`` (``path#target`` as Flink's)."""
    out: dict[str, str] = {}
    python_exec = configuration.get(deps.PYTHON_EXECUTABLE)
    if python_exec:
        out["spark.pyspark.python"] = python_exec
    archives = deps.split_list(configuration.get(deps.PYTHON_ARCHIVES))
    if archives:
        out["spark.archives"] = ",".join(archives)
    return out


def ship(session: Any, configuration: Mapping[str, str]) -> None:
    """Add the job's Python files and cached files to ``session``; refuse an interpreter or
    archives a running session was not started with."""
    from pyflowkit.spark.session import is_connect

    wanted = session_settings(configuration)
    if wanted and not is_connect(session):
        conf = session.sparkContext.getConf()
        for key, value in wanted.items():
            current = conf.get(key, None)
            if current != value:
                raise UnsupportedOperationException(
                    f"The job sets {key}={value!r} ("
                    f"{'set_python_executable' if 'python' in key else 'add_python_archive'}), "
                    f"but the Spark session was started with {current!r}; it applies only when "
                    "a session starts. Let pyflowkit start the session (no spark= argument), or "
                    f"start yours with {key}={value!r}."
                )
    files = deps.split_list(configuration.get(deps.PYTHON_FILES))
    cached = deps.cached_files(configuration.get(deps.CACHED_FILES))
    for path in files:
        _add(session, _as_py_file(path), "pyfile")
    for path, _executable in cached.values():
        _add(session, path, "file")


def _as_py_file(path: str) -> str:
    """A directory zipped (Spark's ``addPyFile`` takes ``.py``, ``.zip``, ``.egg``)."""
    if not os.path.isdir(path):
        return path
    base = os.path.join(tempfile.mkdtemp(prefix="pyflowkit-pyfiles-"), os.path.basename(path))
    return shutil.make_archive(base, "zip", path)


def _add(session: Any, path: str, kind: str) -> None:
    from pyflowkit.spark.session import is_connect

    if is_connect(session):
        session.addArtifacts(path, **{kind: True})
    elif kind == "pyfile":
        session.sparkContext.addPyFile(path)
    else:
        session.sparkContext.addFile(path)


def spark_file(name: str, path: str) -> str:
    """Where a cached file is on this Spark executor (``SparkFiles.get``)."""
    from pyspark import SparkFiles

    return SparkFiles.get(os.path.basename(path))
