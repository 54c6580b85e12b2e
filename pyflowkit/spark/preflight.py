"""Checks run before a Spark session starts: one clear sentence instead of a JVM stack trace.

pyflowkit's own guard (no Flink class): Java >= 17, pyspark/pyarrow versions, a reachable master.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlparse

MIN_JAVA = 17
MIN_PYSPARK = (4, 0)
MIN_PYARROW = (18, 0)
DEFAULT_CONNECT_PORT = 15002
DEFAULT_STANDALONE_PORT = 7077


class SparkEnvironmentError(RuntimeError):
    """The machine cannot run the Spark executor (no Java, old versions, unreachable master)."""


def find_java() -> str | None:
    """The ``java`` Spark's launcher would use: ``$JAVA_HOME/bin/java`` first, then ``PATH``."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("java")


def parse_java_major(version_output: str) -> int | None:
    """Major version from ``java -version`` output: ``"17.0.15"`` → 17, ``"1.8.0_392"`` → 8."""
    match = re.search(r'version "(\d+)(?:\.(\d+))?', version_output)
    if not match:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2) is not None:
        return int(match.group(2))
    return major


def check_java() -> int:
    """Return Java's major version, or raise ``SparkEnvironmentError`` saying what to install."""
    java = find_java()
    if java is None:
        raise SparkEnvironmentError(
            "Spark needs Java 17 or newer, but no Java was found (looked at $JAVA_HOME/bin/java "
            "and PATH). Install a JDK 17+ (e.g. `apt-get install openjdk-17-jre-headless`) or set "
            "JAVA_HOME, or run on the simulated cluster with execution.target=local."
        )
    try:
        proc = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SparkEnvironmentError(f"Could not run '{java} -version': {exc}") from None
    major = parse_java_major(proc.stderr + proc.stdout)
    if major is None:
        raise SparkEnvironmentError(
            f"Could not read the Java version from '{java} -version': {proc.stderr.strip()!r}"
        )
    if major < MIN_JAVA:
        raise SparkEnvironmentError(
            f"Spark 4 needs Java {MIN_JAVA} or newer, but {java} is Java {major}. Install a JDK "
            f"17+ and point JAVA_HOME at it."
        )
    return major


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:2])


def check_python_packages() -> None:
    """pyspark >= 4.0 and pyarrow >= 18 (PySpark's own runtime minimum for Arrow APIs)."""
    try:
        import pyspark
    except ImportError:
        raise SparkEnvironmentError(
            "The Spark executor needs pyspark (pip install 'pyspark>=4.0'), or run on the "
            "simulated cluster with execution.target=local."
        ) from None
    if _version_tuple(pyspark.__version__) < MIN_PYSPARK:
        raise SparkEnvironmentError(
            f"pyflowkit needs pyspark >= 4.0, found {pyspark.__version__} "
            f"(pip install -U 'pyspark>=4.0')."
        )
    try:
        import pyarrow
    except ImportError:
        raise SparkEnvironmentError(
            "The Spark executor needs pyarrow >= 18 (pip install 'pyarrow>=18')."
        ) from None
    if _version_tuple(pyarrow.__version__) < MIN_PYARROW:
        raise SparkEnvironmentError(
            f"pyflowkit needs pyarrow >= 18, found {pyarrow.__version__} "
            f"(pip install -U 'pyarrow>=18')."
        )


def master_address(master: str) -> tuple[str, int] | None:
    """(host, port) to probe for ``spark://`` and ``sc://`` URLs; ``None`` for local/yarn/k8s."""
    if master.startswith("spark://"):
        first = master[len("spark://") :].split(",")[0]  # HA lists: probe the first master
        host, _, port = first.partition(":")
        return host, int(port or DEFAULT_STANDALONE_PORT)
    if master.startswith("sc://"):
        parsed = urlparse(master.replace("sc://", "http://", 1))
        return parsed.hostname or "localhost", parsed.port or DEFAULT_CONNECT_PORT
    return None


_LOCAL_MASTER = re.compile(
    r"local(\[(\*|[1-9]\d*)(,\s*[1-9]\d*)?\])?$|local-cluster\[\s*\d+\s*,\s*\d+\s*,\s*\d+\s*\]$"
)


def check_master_url(master: str) -> None:
    """Spark's own master URL rules, checked before a JVM starts (spark-submit would print them
    with a stack trace and exit, and PySpark then raise ``[JAVA_GATEWAY_EXITED]``)."""
    if master.startswith("sc://"):
        return
    if not master.startswith(("yarn", "spark", "k8s", "local")):
        raise SparkEnvironmentError(
            f"Invalid spark.master {master!r}: Master must either be yarn or start with spark, "
            "k8s, or local (e.g. local[*], spark://host:7077, k8s://https://host:443, yarn), or "
            "be sc://host:port for Spark Connect."
        )
    if master.startswith("local") and not _LOCAL_MASTER.match(master):
        raise SparkEnvironmentError(
            f"Invalid spark.master {master!r}: Could not parse Master URL: '{master}' (local, "
            "local[N], local[*], local[N,F] or local-cluster[N,C,M])."
        )


def check_master_reachable(master: str, timeout: float = 3.0) -> None:
    """Raise ``SparkEnvironmentError`` if a standalone/Connect master refuses connections."""
    address = master_address(master)
    if address is None:
        return
    try:
        with socket.create_connection(address, timeout=timeout):
            pass
    except OSError as exc:
        raise SparkEnvironmentError(
            f"Spark master {master} is unreachable ({address[0]}:{address[1]}: {exc}). Start the "
            f"cluster, fix 'spark.master', or leave it unset for an embedded local session."
        ) from None
