"""The local Spark service: a Spark Connect server on 127.0.0.1 that outlives one program.

No Flink counterpart as such; it plays the part of Flink's long-running local cluster
(``start-cluster.sh``): programs submit to a JVM that is already up instead of starting their own.
``pyflowkit spark start/stop/status`` manage it; a program whose default target is Spark and that
configures no ``spark.master``/``spark.remote`` starts it on first use (``SERVICE_OPTION``).
One service per Python environment (interpreter + pyflowkit location), its state (pid, port,
token, log) in a per-user directory readable only by its owner; clients authenticate with a token.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: ``pyflowkit.spark.service`` (``true``/``false``, default ``true``): when a job's target is Spark
#: and neither ``spark.master`` nor ``spark.remote`` is set, a program run as a script
#: (``python prog.py``, ``python -m``, ``pyflowkit run``) connects to the local Spark service,
#: starting it on first use, instead of starting its own JVM. ``false``, or the environment
#: variable ``PYFLOWKIT_SPARK_SERVICE=0``, keeps the embedded in-process session.
SERVICE_OPTION = "pyflowkit.spark.service"
SERVICE_ENV = "PYFLOWKIT_SPARK_SERVICE"
#: ``pyflowkit.spark.service.idle-timeout``: minutes without a connected program after which a
#: service started automatically stops itself (default 30; env ``PYFLOWKIT_SPARK_SERVICE_IDLE``).
IDLE_TIMEOUT_OPTION = "pyflowkit.spark.service.idle-timeout"
IDLE_TIMEOUT_ENV = "PYFLOWKIT_SPARK_SERVICE_IDLE"
DEFAULT_IDLE_MINUTES = 30.0
#: Where service state lives (default ``$XDG_RUNTIME_DIR/pyflowkit`` or ``~/.cache/pyflowkit``).
DIR_ENV = "PYFLOWKIT_SPARK_SERVICE_DIR"
CONNECT_SERVER = "org.apache.spark.sql.connect.service.SparkConnectServer"
DAEMON_MODULE = "pyflowkit.spark.service_daemon"
START_TIMEOUT_S = 180.0
#: A start holds the lock while the JVM starts; a second starter waits that long and a bit.
LOCK_TIMEOUT_S = START_TIMEOUT_S + 60.0
STOP_TIMEOUT_S = 30.0
SHARED_SESSION_PARAM = "session_id"
_FALSE = ("0", "false", "no", "off")


class SparkServiceError(RuntimeError):
    """The local Spark service could not be started, reached or stopped."""


class SparkServiceGone(SparkServiceError):
    """The local Spark service's Connect server exited while a program was using it.

    Flink's client meets the same when its session cluster dies under a job (the REST calls
    fail); Spark Connect's client would retry for up to ten minutes, so the session a program
    gets from the service fails at once instead (``watch``)."""


@dataclass(frozen=True)
class ServiceState:
    """What ``service.json`` records about a running service (written by its supervisor)."""

    directory: Path
    pid: int  # the supervisor (service_daemon)
    jvm_pid: int | None
    port: int
    started: float
    idle_timeout_s: float
    status: str  # starting | running
    python: str
    pyflowkit: str
    fingerprint: str
    dispatcher_port: int | None = None  # where programs submit JobGraphs (``job_dispatcher``)

    @property
    def log(self) -> Path:
        return self.directory / "service.log"

    @property
    def url(self) -> str:
        """``sc://`` URL without the token (for people)."""
        return f"sc://localhost:{self.port}"

    def remote(self, shared: bool = True) -> str:
        """The ``spark.remote`` a client connects with (token included). ``shared``: join the
        service's one server-side session, whose Python workers are already up (each new
        Connect session starts its own Python worker daemon, ~5 s on 2 cores)."""
        token = (self.directory / "token").read_text().strip()
        url = f"sc://localhost:{self.port}/;token={token}"
        if shared:
            url += f";{SHARED_SESSION_PARAM}={(self.directory / 'session').read_text().strip()}"
        return url

    def last_active(self) -> float:
        try:
            return (self.directory / "activity").stat().st_mtime
        except OSError:
            return self.started


# ---------------------------------------------------------------------------------------------
# where and which


def base_dir() -> Path:
    configured = os.environ.get(DIR_ENV, "").strip()
    if configured:
        return Path(configured)
    runtime = os.environ.get("XDG_RUNTIME_DIR", "").strip()
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / "pyflowkit" / "spark-service"
    return Path.home() / ".cache" / "pyflowkit" / "spark-service"


def _pyflowkit_dir() -> Path:
    return Path(__file__).resolve().parent.parent


def environment_key() -> str:
    """One service per Python environment: the interpreter and the pyflowkit it imports."""
    text = f"{os.path.realpath(sys.executable)}\n{_pyflowkit_dir()}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def service_dir() -> Path:
    return base_dir() / environment_key()


def code_fingerprint() -> str:
    """Changes when pyflowkit's source changes (an editable install being worked on): the
    service's Python workers import pyflowkit, so a service with older code is restarted."""
    newest, count = 0.0, 0
    for path in _pyflowkit_dir().rglob("*.py"):
        try:
            newest = max(newest, path.stat().st_mtime)
        except OSError:
            continue
        count += 1
    return f"{count}:{newest:.3f}"


# ---------------------------------------------------------------------------------------------
# state


def _pid_alive(pid: int) -> bool:
    """The pid runs. A supervisor this process started and never waited for is our child: once
    it exits it stays a zombie (``kill(pid, 0)`` still succeeds) until reaped, so reap it here;
    without this ``stop()`` from the starting process waited its whole 30 s bound."""
    try:
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass  # not our child: kill(pid, 0) below tells
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # an exited process its new parent has not reaped yet is gone too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _is_supervisor(pid: int) -> bool:
    """The pid is alive and (where /proc tells) runs the service supervisor, not a reused pid."""
    if not _pid_alive(pid):
        return False
    cmdline = Path(f"/proc/{pid}/cmdline")
    if cmdline.exists():
        try:
            return DAEMON_MODULE in cmdline.read_bytes().decode(errors="replace")
        except OSError:
            return False
    return True


def read_state(directory: Path | None = None) -> ServiceState | None:
    """The recorded service, or None; a stale record (its supervisor gone) is removed."""
    directory = directory or service_dir()
    path = directory / "service.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    state = ServiceState(
        directory=directory,
        pid=int(data["pid"]),
        jvm_pid=data.get("jvm_pid"),
        port=int(data["port"]),
        started=float(data["started"]),
        idle_timeout_s=float(data["idle_timeout_s"]),
        status=str(data.get("status", "starting")),
        python=str(data.get("python", "")),
        pyflowkit=str(data.get("pyflowkit", "")),
        fingerprint=str(data.get("fingerprint", "")),
        dispatcher_port=data.get("dispatcher_port"),
    )
    if not _is_supervisor(state.pid):  # stale: the supervisor died (kill -9, reboot)
        _kill_orphan_jvm(state.jvm_pid)
        clear_state(directory)
        return None
    return state


def _kill_orphan_jvm(pid: int | None) -> None:
    """A Connect server JVM left behind by a supervisor killed with SIGKILL."""
    if not pid or not _pid_alive(pid):
        return
    try:
        if CONNECT_SERVER not in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
            return
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass


def _jvm_running(pid: int | None) -> bool:
    """The Connect server JVM ``pid`` runs (not exited, not a zombie, not a reused pid)."""
    if not pid or not _pid_alive(pid):
        return False
    try:
        return CONNECT_SERVER in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return True  # no /proc: alive is all we can tell


def server_gone(state: ServiceState) -> bool:
    """A running service whose Connect server JVM has exited (killed, crashed, out of memory):
    its supervisor notices within ``service_daemon.POLL_S`` and removes the record; until then
    the record still says running."""
    return (
        state.status == "running" and state.jvm_pid is not None and not _jvm_running(state.jvm_pid)
    )


def gone_error(state: ServiceState) -> SparkServiceGone:
    """What a program whose service died under it is told: the service, its log, what to do."""
    return SparkServiceGone(
        f"the local Spark service (Spark Connect on 127.0.0.1:{state.port}, JVM pid "
        f"{state.jvm_pid}) stopped while this program was using it (its log: {state.log}). "
        "Run the program again to start a new service (or start one with `pyflowkit spark "
        f"start`), or set {SERVICE_OPTION}=false ({SERVICE_ENV}=0) to run on an in-process "
        "Spark session."
    )


def write_state(directory: Path, **fields: object) -> None:
    tmp = directory / "service.json.tmp"
    tmp.write_text(json.dumps(fields, indent=1))
    os.replace(tmp, directory / "service.json")


def clear_state(directory: Path) -> None:
    for name in ("service.json", "token", "session"):
        try:
            (directory / name).unlink()
        except FileNotFoundError:
            pass


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _DirLock:
    """An exclusive ``flock`` on the service directory: one starter (or stopper) at a time.

    Waits at most ``timeout`` seconds (a start holds it while the JVM starts, up to
    ``START_TIMEOUT_S``), then raises ``SparkServiceError`` naming the holder's pid."""

    def __init__(self, directory: Path, timeout: float = LOCK_TIMEOUT_S) -> None:
        self.path = directory / "lock"
        self.timeout = timeout

    def __enter__(self) -> _DirLock:
        import fcntl

        self.file = open(self.path, "a+")  # noqa: SIM115
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    self.file.seek(0)
                    holder = self.file.read().strip() or "unknown"
                    self.file.close()
                    raise SparkServiceError(
                        f"the local Spark service's lock {self.path} is still held after "
                        f"{self.timeout:g} s (by pid {holder}, starting or stopping it)"
                    ) from None
                time.sleep(0.1)
        self.file.seek(0)
        self.file.truncate()
        self.file.write(str(os.getpid()))
        self.file.flush()
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()


def _prepare_dir(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(directory, 0o700)  # the token lets a client run code as this user


# ---------------------------------------------------------------------------------------------
# start, stop, status


def idle_timeout_minutes(configuration: Mapping[str, str] | None = None) -> float:
    raw = (configuration or {}).get(IDLE_TIMEOUT_OPTION) or os.environ.get(IDLE_TIMEOUT_ENV)
    if raw in (None, ""):
        return DEFAULT_IDLE_MINUTES
    try:
        minutes = float(str(raw).strip().removesuffix("min").strip())
    except ValueError:
        raise SparkServiceError(
            f"{IDLE_TIMEOUT_OPTION} must be a number of minutes, got {raw!r}"
        ) from None
    if minutes <= 0:
        raise SparkServiceError(f"{IDLE_TIMEOUT_OPTION} must be > 0 minutes, got {raw!r}")
    return minutes


def start(
    idle_minutes: float = DEFAULT_IDLE_MINUTES,
    port: int | None = None,
    *,
    announce: str | None = None,
    timeout: float = START_TIMEOUT_S,
) -> tuple[ServiceState, bool]:
    """Start the service (or return the running one); ``(state, started_now)``.

    ``announce``: a line for stderr when this call starts it (the automatic start says why).
    Waits until the Connect server accepts connections."""
    directory = service_dir()
    _prepare_dir(directory)
    with _DirLock(directory):
        state = read_state(directory)
        if state is not None and server_gone(state):
            print(
                f"pyflowkit: the local Spark service (pid {state.pid}) lost its Spark Connect "
                f"server (JVM pid {state.jvm_pid} exited; log {state.log}); starting a new one",
                file=sys.stderr,
            )
            _stop(state)
            state = None
        if state is not None and state.fingerprint != code_fingerprint():
            print(
                f"pyflowkit: restarting the local Spark service (pid {state.pid}): "
                "pyflowkit's code changed since it started",
                file=sys.stderr,
            )
            _stop(state)
            state = None
        if state is not None:
            state = _wait_ready(state, timeout)
            touch_activity(directory)  # an explicit start restarts the idle clock
            return state, False
        port = port or free_port()
        if announce:
            print(announce.format(port=port, idle=_minutes_text(idle_minutes)), file=sys.stderr)
            sys.stderr.flush()
        for name, value in (("token", secrets.token_hex(24)), ("session", str(uuid.uuid4()))):
            (directory / name).write_text(value)
            os.chmod(directory / name, 0o600)
        env = dict(os.environ)
        pythonpath = [str(_pyflowkit_dir().parent), *filter(None, [env.get("PYTHONPATH")])]
        env["PYTHONPATH"] = os.pathsep.join(pythonpath)
        env.pop("SPARK_REMOTE", None)
        with open(directory / "service.log", "ab") as log:
            daemon = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    DAEMON_MODULE,
                    str(directory),
                    str(port),
                    str(idle_minutes * 60.0),
                    code_fingerprint(),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                cwd=directory,
                env=env,
                start_new_session=True,  # outlives this program, not killed by its Ctrl-C
                close_fds=True,
            )
        daemon.returncode = 0  # never waited for: the service outlives this process
        deadline = time.monotonic() + timeout
        why = f"it did not accept connections within {timeout:.0f} s"
        while time.monotonic() < deadline:
            state = read_state(directory)
            if state is not None and state.status == "running":
                return state, True
            if not _pid_alive(daemon.pid) or _zombie(daemon):
                why = "its supervisor exited"
                break
            time.sleep(0.2)
        else:  # do not leave a half-started JVM behind: stop what this call started
            _stop(read_state(directory) or _starting_state(directory, daemon.pid, port))
        tail = _log_tail(directory / "service.log")
        raise SparkServiceError(
            f"the local Spark service did not start: {why} "
            f"(log {directory / 'service.log'}):\n{tail}"
        )


def _starting_state(directory: Path, pid: int, port: int) -> ServiceState:
    """A record for a supervisor that has not written its own yet (to stop it)."""
    return ServiceState(directory, pid, None, port, time.time(), 0.0, "starting", "", "", "")


def _zombie(proc: subprocess.Popen) -> bool:
    try:
        return os.waitpid(proc.pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def _wait_ready(state: ServiceState, timeout: float) -> ServiceState:
    """Wait (at most ``timeout`` s) until a service another process is starting accepts
    connections."""
    deadline = time.monotonic() + timeout
    while state.status != "running":
        if time.monotonic() > deadline:
            raise SparkServiceError(
                f"the local Spark service (pid {state.pid}) did not accept connections within "
                f"{timeout:.0f} s (log {state.log}):\n{_log_tail(state.log)}"
            )
        time.sleep(0.2)
        fresh = read_state(state.directory)
        if fresh is None:
            raise SparkServiceError(
                f"the local Spark service stopped while starting (log {state.log}):\n"
                f"{_log_tail(state.log)}"
            )
        state = fresh
    return state


def _log_tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _minutes_text(minutes: float) -> str:
    return f"{minutes:g} min"


def stop(directory: Path | None = None) -> ServiceState | None:
    """Stop the service of this environment; returns what was stopped (None: none ran)."""
    directory = directory or service_dir()
    if not directory.exists():
        return None
    with _DirLock(directory):
        state = read_state(directory)
        if state is None:
            return None
        _stop(state)
        return state


def _stop(state: ServiceState, timeout: float = STOP_TIMEOUT_S) -> None:
    """SIGTERM the supervisor (it stops its JVM, then removes the state); after ``timeout`` s
    SIGKILL both and say so."""
    try:
        os.kill(state.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + timeout
    while _pid_alive(state.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _pid_alive(state.pid):
        print(
            f"pyflowkit: the local Spark service (pid {state.pid}) did not stop within "
            f"{timeout:.0f} s of SIGTERM; killing it and its JVM",
            file=sys.stderr,
        )
        for pid in filter(None, (state.jvm_pid, state.pid)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    clear_state(state.directory)


def all_states() -> list[ServiceState]:
    """Every service recorded under ``base_dir()`` (one per Python environment)."""
    root = base_dir()
    if not root.is_dir():
        return []
    states = (read_state(d) for d in sorted(root.iterdir()) if d.is_dir())
    return [s for s in states if s is not None]


def describe(state: ServiceState, now: float | None = None) -> list[str]:
    """The lines ``pyflowkit spark status`` prints for one service."""
    now = time.time() if now is None else now
    idle = max(0.0, now - state.last_active())
    return [
        f"Spark service: {state.status}, pid {state.pid} (JVM pid {state.jvm_pid})",
        f"  url:          {state.url} (Spark Connect, 127.0.0.1 only, token in "
        f"{state.directory / 'token'})",
        "  jobs:         "
        + (
            f"127.0.0.1:{state.dispatcher_port} (programs submit their JobGraphs here)"
            if state.dispatcher_port
            else "not accepting submitted jobs yet"
        ),
        f"  uptime:       {_duration(now - state.started)}",
        f"  idle:         {_duration(idle)} (stops itself after "
        f"{_duration(state.idle_timeout_s)} idle)",
        f"  python:       {state.python}",
        f"  pyflowkit:    {state.pyflowkit}",
        f"  log:          {state.log}",
    ]


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


# ---------------------------------------------------------------------------------------------
# automatic use


ANNOUNCE = (
    "pyflowkit: starting a local Spark service (Spark Connect on 127.0.0.1:{port}, idle timeout "
    "{idle}) so that later programs start in seconds; pyflowkit spark stop ends it"
)


def enabled(configuration: Mapping[str, str] | None = None) -> bool:
    """``SERVICE_OPTION`` if set, else ``PYFLOWKIT_SPARK_SERVICE``, else true."""
    raw = (configuration or {}).get(SERVICE_OPTION)
    if raw in (None, ""):
        raw = os.environ.get(SERVICE_ENV, "1")
    return str(raw).strip().lower() not in _FALSE


def is_script_process() -> bool:
    """A program run from the shell (``python prog.py``, ``python -m mod``, ``pyflowkit run``):
    not an interactive interpreter and not a Jupyter kernel, which keep their own session."""
    if hasattr(sys, "ps1") or sys.flags.interactive or "ipykernel" in sys.modules:
        return False
    main = sys.modules.get("__main__")
    return bool(getattr(main, "__file__", None))


def touch_activity(directory: Path) -> None:
    try:
        (directory / "activity").touch()
    except OSError:
        pass


def default_remote(
    configuration: Mapping[str, str] | None = None, shared: bool = True
) -> str | None:
    """The ``spark.remote`` of the local service for a default-target program (started on
    first use), or None when the automatic service does not apply or could not start (then the
    program runs on an embedded session, as with the service turned off). ``shared``: the
    service's shared server-side session (see ``ServiceState.remote``)."""
    if not enabled(configuration) or not is_script_process() or sys.platform == "win32":
        return None
    if not connect_client_available():
        return None
    from pyflowkit.spark import preflight

    if preflight.find_java() is None:
        return None  # the embedded session's preflight says what is missing
    try:
        state = read_state()
        if (
            state is None
            or state.status != "running"
            or state.fingerprint != code_fingerprint()
            or server_gone(state)
        ):
            state, _ = start(idle_timeout_minutes(configuration), announce=ANNOUNCE)
        elif not _listening(state.port):
            state = _wait_ready(state, START_TIMEOUT_S)
        remote = state.remote(shared)
    except (SparkServiceError, OSError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(
            f"pyflowkit: {first}; running on an in-process Spark session instead "
            f"({SERVICE_OPTION}=false skips the service)",
            file=sys.stderr,
        )
        return None
    touch_activity(state.directory)
    return remote


def connect_client_available() -> bool:
    """Spark Connect's Python client (grpcio, grpcio-status, googleapis-common-protos, zstandard)
    is installed: pyflowkit depends on it, but an environment may lack it."""
    import importlib.util

    try:
        return all(
            importlib.util.find_spec(name) is not None
            for name in ("grpc", "grpc_status", "google.rpc", "zstandard")
        )
    except (ImportError, ValueError):
        return False


def is_shared_session_url(url: str) -> bool:
    """A URL naming the service's shared session: a program must not release it at exit."""
    return url.startswith("sc://localhost:") and f";{SHARED_SESSION_PARAM}=" in url


# ---------------------------------------------------------------------------------------------
# a service that dies under a program


def state_of_url(url: str) -> ServiceState | None:
    """The recorded service a ``sc://localhost:PORT/`` URL points at, or None."""
    state = read_state() if url.startswith("sc://localhost:") else None
    if state is None or not url.startswith(f"sc://localhost:{state.port}/"):
        return None
    return state


def watch(session: Any, state: ServiceState) -> None:
    """Make a Connect session on the local service fail fast when the service's JVM is gone.

    Spark Connect's client retries an unreachable server (``UNAVAILABLE``) with a backoff bounded
    only after about ten minutes (``DefaultPolicy``). A policy placed first checks, on such an
    error, whether the service's JVM still runs: when it does not, the call raises
    ``gone_error`` at once; otherwise the client's own policies decide, as before."""
    from pyspark.sql.connect.client.retries import RetryPolicy

    class ServiceGonePolicy(RetryPolicy):
        def can_retry(self, exc: BaseException) -> bool:
            if _unavailable(exc) and server_gone(state):
                raise gone_error(state) from exc
            return False  # never this policy's to retry: the next one decides

    client = session.client
    client.set_retry_policies([ServiceGonePolicy(max_retries=0), *client.get_retry_policies()])
    session._pyflowkit_service = state  # noqa: SLF001 — see ``gone_error_of``


def gone_error_of(session: Any) -> SparkServiceGone | None:
    """``gone_error`` when ``session`` runs on the local service and its JVM has exited (an
    error Spark Connect did not retry, such as a reset stream, is explained by it)."""
    state = getattr(session, "_pyflowkit_service", None)
    return gone_error(state) if state is not None and server_gone(state) else None


def _unavailable(exc: BaseException) -> bool:
    try:
        import grpc
    except ImportError:
        return False
    return isinstance(exc, grpc.RpcError) and exc.code() == grpc.StatusCode.UNAVAILABLE
