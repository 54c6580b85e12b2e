"""Shared test setup: Hypothesis profiles, a quiet session-scoped Spark session, marker plumbing.

The Spark setup follows ../shared/reference/environment-notes.md §2.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import NamedTuple

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# ---------------------------------------------------------------------------------------------
# Hypothesis: `ci` (default) keeps the suite fast; `make soak` selects `soak`.
# ---------------------------------------------------------------------------------------------
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # the test extra is not installed; property tests will fail to import anyway
    settings = None
else:
    _slow_ok = [HealthCheck.too_slow]
    settings.register_profile("ci", max_examples=50, deadline=None, suppress_health_check=_slow_ok)
    settings.register_profile(
        "soak", max_examples=5000, deadline=None, suppress_health_check=_slow_ok
    )
    settings.register_profile("dev", max_examples=10, deadline=None)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# ---------------------------------------------------------------------------------------------
# Spark: a quiet local[2] session shared by the whole test process.
# ---------------------------------------------------------------------------------------------
warnings.filterwarnings(
    "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
)
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no 'hostname resolves to loopback' WARN
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
# `%load_ext pyflowkit` and `pyflowkit run` start Spark in the background; in tests (and the
# notebook kernels they start) only tests/spark/test_warmup.py turns that on.
os.environ.setdefault("PYFLOWKIT_SPARK_PREWARM", "0")
# Programs the tests run from the shell use the local Spark service as users' programs do
# (pyflowkit.spark.service); its state lives in a directory of this test run, not the user's,
# and whatever service the run started is stopped when the run ends (pytest_sessionfinish).
_SERVICE_DIR = Path(tempfile.gettempdir(), f"pyflowkit-test-services-{os.getuid()}-{os.getpid()}")
os.environ["PYFLOWKIT_SPARK_SERVICE_DIR"] = str(_SERVICE_DIR)  # never the user's own


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _SERVICE_DIR.is_dir():
        return
    from pyflowkit.spark import service

    for directory in _SERVICE_DIR.iterdir():
        if directory.is_dir():
            service.stop(directory)
    shutil.rmtree(_SERVICE_DIR, ignore_errors=True)


def spark_log4j_path() -> Path:
    """The quiet log4j2 file shipped in the package, found without importing pyflowkit."""
    spec = importlib.util.find_spec("pyflowkit")
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / "_spark_log4j2.properties"
            if candidate.is_file():
                return candidate
    return REPO_ROOT / "pyflowkit" / "_spark_log4j2.properties"


def java_available() -> bool:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return True
    return shutil.which("java") is not None


def build_spark_session(app: str = "pyflowkit-tests", rocksdb: bool = True, **conf: str):
    """A fast, quiet local[2] SparkSession (environment-notes §2); extra ``conf`` overrides."""
    from pyspark.sql import SparkSession

    from pyflowkit.spark.session import clear_connect_mark

    clear_connect_mark()  # a job on the local service earlier in this run marked it Connect
    log4j = spark_log4j_path()
    builder = (
        SparkSession.builder.master("local[2]")
        .appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log4j}")
        .config("spark.sql.streaming.stopTimeout", "10s")
    )
    if rocksdb:  # required by transformWithState* / transformWithStateInPandas
        builder = builder.config(
            "spark.sql.streaming.stateStore.providerClass",
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        )
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory):
    """Session-scoped quiet local[2] SparkSession; skipped (failed in CI) without Java/pyspark."""
    if not java_available():
        if IN_CI:
            pytest.fail("Java 17+ is required for Spark tests but was not found")
        pytest.skip("Java not found (install Java 17+ or set JAVA_HOME)")
    pytest.importorskip("pyspark")
    warehouse = tmp_path_factory.mktemp("spark-warehouse")
    session = build_spark_session(**{"spark.sql.warehouse.dir": str(warehouse)})
    yield session
    session.stop()


class FirstProgram(NamedTuple):
    """``python word_count.py`` run from the shell as the test session's first program."""

    result: subprocess.CompletedProcess
    seconds: float
    env: dict[str, str]


@pytest.fixture(scope="session")
def spark_service_first_program() -> FirstProgram:
    """The first program of this test run from the shell, with no master configured: as a
    user's first program, it starts the local Spark service (in this run's directory,
    ``_SERVICE_DIR``); the tests on the service then connect to that one JVM. Bounded: a
    service that does not start fails the tests that need it (the program falls back)."""
    if not java_available():
        pytest.skip("Java not found (install Java 17+ or set JAVA_HOME)")
    pytest.importorskip("grpc", reason="Spark Connect needs grpcio")
    from pyflowkit.spark import service

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED", service.SERVICE_ENV)
    }
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    program = REPO_ROOT / "pyflowkit" / "examples" / "word_count.py"
    service.stop()  # one an earlier program of this run started (pyflowkit run): start afresh
    began = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(program)],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=service.START_TIMEOUT_S + 120,
        check=False,
    )
    seconds = time.perf_counter() - began
    if result.returncode != 0 or service.read_state() is None:
        pytest.fail(f"the first program did not start the local Spark service:\n{result.stderr}")
    yield FirstProgram(result, seconds, env)
    service.stop()


@pytest.fixture(scope="session")
def spark_service(spark_service_first_program):
    """A Spark Connect session on the local Spark service the first program started, as a
    program whose default target is Spark gets it (its shared server-side session)."""
    from pyspark.sql.connect.session import SparkSession as ConnectSession

    from pyflowkit.spark import service

    state = service.read_state()
    if state is None:
        pytest.fail("the local Spark service stopped")
    session = ConnectSession.builder.remote(state.remote()).getOrCreate()
    session.release_session_on_close = False
    yield session
    session.stop()


class SubmittedHost:
    """The local Spark service's Dispatcher: a JobGraph submitted as a program run from the
    shell submits it (``job_submission``), run on the service's own session."""

    def __init__(self, state) -> None:
        self.state = state

    def execute(self, job_graph, print_output: bool = False):
        from pyflowkit.spark import job_submission

        result = job_submission.submit_to(self.state, job_graph, {}, print_output)
        assert result is not None, "the service's dispatcher did not take the job"
        return result


@pytest.fixture(params=["embedded", "service", "submitted"])
def spark_host(request, monkeypatch):
    """The embedded local session, then the local Spark service through Spark Connect, then a
    JobGraph submitted to the service: the same test on all three.
    A program on the service has only the Connect session; PySpark picks Connect's column
    functions by ``SPARK_CONNECT_MODE_ENABLED``, set here while the test runs."""
    if request.param == "embedded":
        return request.getfixturevalue("spark")
    if request.param == "submitted":
        from pyflowkit.spark import service

        request.getfixturevalue("spark_service_first_program")
        state = service.read_state()
        if state is None or state.dispatcher_port is None:
            pytest.fail("the local Spark service runs no dispatcher")
        return SubmittedHost(state)
    session = request.getfixturevalue("spark_service")
    monkeypatch.setenv("SPARK_CONNECT_MODE_ENABLED", "1")
    return session


# ---------------------------------------------------------------------------------------------
# Flink version profile: @pytest.mark.flink_version("1.11") pins the environments a test makes
# to one profile (issue #24: a test asserting 1.11 runtime behaviour says so).
# ---------------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _flink_version_marker(request: pytest.FixtureRequest):
    marker = request.node.get_closest_marker("flink_version")
    if marker is None:
        yield
        return
    from pyflowkit.common.flink_version import entry_point_version

    with entry_point_version(marker.args[0]):
        yield


# ---------------------------------------------------------------------------------------------
# Markers: tests using the `spark` fixture get the `spark` marker, so `-m "not spark"` works.
# Browser tests are skipped without chromium locally; in CI a missing chromium is an error.
# ---------------------------------------------------------------------------------------------
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    has_chromium = shutil.which("chromium") is not None
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)
        if item.get_closest_marker("browser") and not has_chromium and not IN_CI:
            item.add_marker(
                pytest.mark.skip(reason="chromium not installed (apt-get install chromium)")
            )
