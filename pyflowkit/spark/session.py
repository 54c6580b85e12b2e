"""The SparkSession a job runs on: given, configured (``spark.master``, ``spark.*``) or embedded.

pyflowkit's counterpart of Flink's ``PipelineExecutorFactory`` choice (which cluster runs the job).
The embedded session is quiet (environment-notes §2), started on first use, reused, stopped at exit.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import tempfile
import threading
import warnings
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from pyflowkit.spark import preflight

DEFAULT_MASTER = "local[*]"
APP_NAME = "pyflowkit"
_LOG4J = Path(__file__).resolve().parent.parent / "_spark_log4j2.properties"

_lock = threading.Lock()
_embedded: Any = None  # the SparkSession pyflowkit started itself
_embedded_key: tuple | None = None
_starting: dict[tuple, Future] = {}  # sessions being built (by a background warm-up), by key
_atexit_registered = False
# PySpark marks the process as Spark Connect (``SPARK_CONNECT_MODE_ENABLED``) when a session is
# built with ``spark.remote`` and never unmarks it: a classic session built later in the same
# process then fails with CONNECT_URL_NOT_SET. True while the mark is the local service's.
_connect_mark_ours = False
_CONNECT_MARK = "SPARK_CONNECT_MODE_ENABLED"
JVM_LOG_ENV = "PYFLOWKIT_SPARK_JVM_LOG"


def log4j_path() -> Path:
    """The quiet log4j2 file shipped in the package."""
    return _LOG4J


def jvm_log_path() -> Path:
    """Where the JVM a background warm-up starts writes its stderr (``PYFLOWKIT_SPARK_JVM_LOG``,
    else ``<tmp>/pyflowkit-spark-jvm-<pid>.log``): a notebook that never runs on Spark shows no
    JVM line (environment-notes §2: ipykernel forwards fd 2 into the running cell)."""
    configured = os.environ.get(JVM_LOG_ENV, "").strip()
    if configured:
        return Path(configured)
    return Path(tempfile.gettempdir()) / f"pyflowkit-spark-jvm-{os.getpid()}.log"


def spark_conf_from(configuration: Mapping[str, str] | None) -> dict[str, str]:
    """Every ``spark.*`` key of a Flink ``Configuration``, passed to Spark as is."""
    return {k: str(v) for k, v in (configuration or {}).items() if k.startswith("spark.")}


def _is_loopback_master(master: str) -> bool:
    if master.startswith("local"):
        return True
    address = preflight.master_address(master)
    return address is not None and address[0] in ("127.0.0.1", "localhost")


def quiet_settings(master: str) -> dict[str, str]:
    """Environment-notes §2: no UI, no console progress, quiet log4j, loopback driver for local."""
    settings = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
        "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{_LOG4J}",
        "spark.sql.shuffle.partitions": "2",
        # PySpark's DataFrame call-site capture walks the stack and imports IPython/ipykernel on
        # every API call pyflowkit's planner makes (0.2-0.6 s per program); its call sites would
        # name pyflowkit's planner, never the user's code.
        "spark.python.sql.dataFrameDebugging.enabled": "false",
    }
    if _is_loopback_master(master):
        settings["spark.driver.bindAddress"] = "127.0.0.1"
        settings["spark.driver.host"] = "127.0.0.1"
    return settings


def _prepare_process() -> None:
    warnings.filterwarnings(
        "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
    )
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # py4j logs "Closing down clientserver connection" at INFO when the gateway closes (at exit):
    # with a root handler on stdout (basicConfig, notebooks) it lands in the program's output.
    # The py4j loggers keep a level the user set; otherwise they report warnings only.
    for name in ("py4j", "py4j.clientserver", "py4j.java_gateway"):
        logger = logging.getLogger(name)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.WARNING)


def _stop_embedded() -> None:
    global _embedded, _embedded_key
    with _lock:
        session, _embedded, _embedded_key = _embedded, None, None
    if session is not None:
        try:
            session.stop()
        except Exception:  # interpreter shutdown: the JVM may already be gone
            pass


def stop() -> None:
    """Stop the embedded session pyflowkit started (a session passed in is left alone)."""
    _stop_embedded()


def resolve_master(configuration: Mapping[str, str] | None) -> tuple[str | None, dict[str, str]]:
    """``(master or remote, other spark.* keys)`` a configuration asks for; master None = default."""
    conf = spark_conf_from(configuration)
    remote = conf.pop("spark.remote", None)
    return remote or conf.pop("spark.master", None), conf


def get_session(
    configuration: Mapping[str, str] | None = None,
    spark: Any = None,
    *,
    jvm_stderr: Path | None = None,
    use_service: bool = True,
) -> Any:
    """The session to run on: ``spark`` if given; else the one ``spark.master``/``spark.remote``
    configure; else the active session; else an embedded ``local[*]`` one (started once, reused).
    A session a background warm-up is still starting for the same settings is waited for.
    ``jvm_stderr``: a file for the stderr of the JVM this call starts (the warm-up passes one).
    ``use_service=False``: never the local Spark service (a Structured Streaming query needs a
    classic session: Spark Connect cannot serialize pyflowkit's ``foreachBatch``)."""
    if spark is not None:
        return spark
    master, conf = resolve_master(configuration)
    _prepare_process()
    preflight.check_python_packages()
    if master is None:
        from pyspark.sql import SparkSession

        active = SparkSession.getActiveSession()
        if active is not None and not conf and (use_service or not _is_connect(active)):
            return active
        master = (use_service and _service_remote(configuration, conf)) or DEFAULT_MASTER
    return _embedded_session(master, conf, jvm_stderr)


def _is_connect(session: Any) -> bool:
    return type(session).__module__.startswith("pyspark.sql.connect")


def _service_remote(configuration: Mapping[str, str] | None, conf: Mapping[str, str]) -> str | None:
    """The local Spark service's ``sc://`` URL for a script with no master configured (started
    on first use; see ``service.SERVICE_OPTION``), unless a ``spark.*`` key other than a runtime
    SQL setting asks for a session of its own (a Connect session cannot change those)."""
    if any(not key.startswith("spark.sql.") for key in conf):
        return None
    from pyflowkit.spark import service

    # Settings or Python files of its own: a session of its own (they would leak into the shared one)
    own = bool(conf) or any(key.startswith("python.") for key in (configuration or {}))
    return service.default_remote(configuration, shared=not own)


def _embedded_session(master: str, conf: dict[str, str], jvm_stderr: Path | None = None) -> Any:
    global _embedded, _embedded_key, _atexit_registered
    key = (master, tuple(sorted(conf.items())))
    with _lock:
        if _embedded is not None and _embedded_key == key:
            return _embedded
        pending = _starting.get(key)
        owner = pending is None
        if owner:
            pending = _starting[key] = Future()
    if not owner:
        return pending.result()  # another thread is starting this very session: share it
    try:
        if _embedded is not None:
            _stop_embedded()  # a different master/conf: getOrCreate would silently reuse the old one
        preflight.check_master_url(master)
        if not master.startswith("sc://"):
            preflight.check_java()
        preflight.check_master_reachable(master)
        session = _build(master, conf, jvm_stderr)
    except BaseException as exc:
        with _lock:
            _starting.pop(key, None)
        pending.set_exception(exc)
        raise
    with _lock:
        _embedded, _embedded_key = session, key
        _starting.pop(key, None)
        if not _atexit_registered:
            atexit.register(_stop_embedded)
            _atexit_registered = True
    pending.set_result(session)
    return session


def clear_connect_mark() -> None:
    """Before a classic session is built: drop the process's Spark Connect mark if a session
    on the local service set it (a job on the service ran earlier in this process)."""
    global _connect_mark_ours
    if _connect_mark_ours:
        os.environ.pop(_CONNECT_MARK, None)
        _connect_mark_ours = False


def _build(master: str, conf: Mapping[str, str], jvm_stderr: Path | None = None) -> Any:
    from pyspark.sql import SparkSession

    global _connect_mark_ours
    if master.startswith("sc://"):
        builder = SparkSession.builder.remote(master)
        for k, v in conf.items():
            builder = builder.config(k, v)
        marked = _CONNECT_MARK in os.environ
        session = builder.getOrCreate()
        _connect_mark_ours = _connect_mark_ours or (not marked and _CONNECT_MARK in os.environ)
        from pyflowkit.spark import service

        if service.is_shared_session_url(master):  # stop() closes the connection, keeps it
            session.release_session_on_close = False
        state = service.state_of_url(master)
        if state is not None:  # a service that dies under the program fails it at once
            service.watch(session, state)
        return session
    clear_connect_mark()
    active = SparkSession.getActiveSession()
    if active is not None:  # one SparkContext per JVM: replace a session we did not configure
        active.stop()
    app_name = conf.get("spark.app.name", APP_NAME)
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = quiet_settings(master)
    settings.update(conf)
    for k, v in settings.items():
        builder = builder.config(k, v)
    if jvm_stderr is not None:
        _launch_gateway(
            {"spark.master": master, "spark.app.name": app_name, **settings}, jvm_stderr
        )
    return builder.getOrCreate()


def _launch_gateway(options: Mapping[str, Any], stderr_path: Path) -> None:
    """Start the driver JVM as ``getOrCreate`` would (``spark-submit`` with the same ``--conf``),
    its stderr appended to ``stderr_path``; nothing when this process already has a JVM."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    with SparkContext._lock:
        if SparkContext._gateway is not None:
            return
        launch_conf = SparkConf(loadDefaults=False)
        for key, value in options.items():
            launch_conf.set(key, str(value))
        stderr_path.parent.mkdir(parents=True, exist_ok=True)
        with open(stderr_path, "ab") as err:
            gateway = launch_gateway(launch_conf, popen_kwargs={"stderr": err})
        SparkContext._ensure_initialized(gateway=gateway)


def is_connect(session: Any) -> bool:
    """True for a Spark Connect session (no SparkContext, no JVM in this process)."""
    return type(session).__module__.startswith("pyspark.sql.connect")
