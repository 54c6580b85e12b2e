"""The local Spark service's Dispatcher: runs the JobGraphs programs submit on the warm session.

Stands for Flink's ``Dispatcher`` (``submitJob``: the cluster receives a compiled JobGraph and
runs it; ``JobResult`` back to the client). It lives in the service's supervisor, holds one Spark
Connect session on the service's own server (its shared server-side session, whose Python
workers are warm) and runs each submitted job with ``executor.execute`` on it, one thread per
job. What a job prints is sent to its program as it is written (the print sink's lines after the
job, in the order the embedded session writes them); the result, or the failure, last.
Listens on 127.0.0.1 only; a connection must first send the service's token.
"""

from __future__ import annotations

import hmac
import io
import pickle
import socket
import sys
import threading
import time
import traceback
from collections import OrderedDict
from pathlib import Path
from typing import Any

from pyflowkit.spark import job_submission as wire

#: finished jobs whose plan and final progress a program may still ask for
KEEP_RESULTS = 32


class _Routed(io.TextIOBase):
    """``sys.stdout``/``sys.stderr`` of the supervisor: a thread running a job writes to its
    program; every other thread writes to the service log, as before."""

    def __init__(self, default: Any, to_err: bool) -> None:
        self.default = default
        self.to_err = to_err
        self.local = threading.local()

    def write(self, text: str) -> int:
        target = getattr(self.local, "target", None)
        if target is None:
            return self.default.write(text)
        target(self.to_err, text)
        return len(text)

    def flush(self) -> None:
        if getattr(self.local, "target", None) is None:
            self.default.flush()

    def isatty(self) -> bool:
        tty = getattr(self.local, "tty", None)
        return self.default.isatty() if tty is None else tty[self.to_err]


class _JobStream(io.TextIOBase):
    """The program's stderr or stdout, for a listener on another thread (the progress line)."""

    def __init__(self, send: Any, to_err: bool, tty: bool) -> None:
        self.send, self.to_err, self.tty = send, to_err, tty

    def write(self, text: str) -> int:
        self.send(self.to_err, text)
        return len(text)

    def isatty(self) -> bool:
        return self.tty


class _Submitted:
    """What ``executor.execute`` reads from an environment, for a submitted JobGraph."""

    def __init__(self, job_graph: Any, configuration: dict[str, str]) -> None:
        self.job_graph, self.configuration = job_graph, configuration

    def get_job_graph(self, job_name: str | None = None) -> Any:
        return self.job_graph

    def get_configuration(self) -> dict[str, str]:
        return self.configuration


class _Later:
    """A finished job's final progress and Spark plan, computed when a program asks for them
    (``SparkJobExecutionResult`` reads both lazily on the embedded session too)."""

    def __init__(self, progress: Any, plan: Any) -> None:
        self._progress, self._plan = progress, plan

    @property
    def progress(self) -> Any:
        if callable(self._progress):
            self._progress = self._progress()
        return self._progress

    @property
    def spark_plan(self) -> Any:
        return self._plan


class Dispatcher:
    """``Dispatcher(directory).start()`` listens; ``port`` is recorded in ``service.json``."""

    def __init__(self, directory: Path, remote: str) -> None:
        self.directory = directory
        self.remote = remote
        self.token = (directory / "token").read_bytes().strip()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.running = 0  # jobs running now (the supervisor's idle clock)
        self._session: Any = None
        self._session_lock = threading.Lock()
        self._finished: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._stdout = _Routed(sys.stdout, False)
        self._stderr = _Routed(sys.stderr, True)

    def start(self) -> Dispatcher:
        sys.stdout, sys.stderr = self._stdout, self._stderr
        threading.Thread(target=self._accept, name="pyflowkit-dispatcher", daemon=True).start()
        threading.Thread(target=self._warm, name="pyflowkit-dispatcher-warm", daemon=True).start()
        return self

    def close(self) -> None:
        try:
            self.server.close()
        except OSError:
            pass

    # -- the session ---------------------------------------------------------------------------
    def session(self) -> Any:
        with self._session_lock:
            if self._session is None:
                from pyflowkit.spark.session import get_session

                self._session = get_session({"spark.remote": self.remote})
            return self._session

    def _warm(self) -> None:
        """Import the client and the executor and connect before the first job arrives."""
        try:
            self.session().range(1).collect()
            import pyflowkit.spark.executor  # noqa: F401
        except Exception as exc:  # noqa: BLE001 — the first job meets (and reports) it
            self.log(f"warm-up failed: {exc!r}")

    # -- connections ---------------------------------------------------------------------------
    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return  # closed
            threading.Thread(
                target=self._serve, args=(conn,), name="pyflowkit-job", daemon=True
            ).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(30)
            token = wire.receive_bytes(conn)
            if token is None or not hmac.compare_digest(token, self.token):
                return
            request = wire.receive(conn)
            conn.settimeout(None)
            if not isinstance(request, dict):
                return
            if "fetch" in request:
                self._fetch(conn, request)
                return
            with self._lock:
                self.running += 1
            try:
                self._run(conn, request)
            except OSError:
                pass  # the program went away
            finally:
                with self._lock:
                    self.running -= 1

    def _fetch(self, conn: socket.socket, request: dict) -> None:
        with self._lock:
            result = self._finished.get(request.get("job_id"))
        if result is None:
            wire.send(conn, ("missing",))
            return
        value = result.progress if request["fetch"] == "progress" else result.spark_plan
        if request["fetch"] == "plan":
            value.physical_plan  # noqa: B018 — explained now, in the session
        wire.send(conn, ("value", pickle.dumps(value, protocol=5)))

    # -- one job -------------------------------------------------------------------------------
    def _run(self, conn: socket.socket, request: dict) -> None:
        from pyflowkit.spark import python_dependencies as python_deps

        began = time.perf_counter()
        configuration = request["configuration"]
        try:
            job_graph = pickle.loads(request["job"])
        except Exception as exc:  # noqa: BLE001 — a module only the program can import
            wire.send(conn, ("fallback", f"cannot load the job here: {exc!r}"))
            return
        from pyflowkit.spark import executor

        if python_deps.session_settings(configuration) or executor.runs_as_streaming_query(
            job_graph, configuration
        ):
            wire.send(conn, ("fallback", "needs its own session"))
            return
        send_lock = threading.Lock()

        def send_out(to_err: bool, text: str) -> None:
            with send_lock:
                wire.send(conn, ("out", to_err, text))

        session = self.session()
        loaded = time.perf_counter()
        job_id = getattr(job_graph, "job_id", None) or ""
        cancelled, done = threading.Event(), threading.Event()
        threading.Thread(
            target=self._watch_cancel,
            args=(conn, session, job_id, cancelled, done),
            name="pyflowkit-job-cancel",
            daemon=True,
        ).start()
        progress = None
        if configuration.get("pyflowkit.spark.progress") == "text":
            progress = executor.TextProgressLine(
                _JobStream(send_out, True, request.get("stderr_tty", False))
            )
        for routed in (self._stdout, self._stderr):
            routed.local.target = send_out
            routed.local.tty = (request.get("stdout_tty", False), request.get("stderr_tty", False))
        try:
            result = executor.execute(
                _Submitted(job_graph, configuration),
                spark=session,
                progress=progress,
                print_output=False,
            )
        except BaseException as exc:  # noqa: BLE001 — every failure goes to the program
            for routed in (self._stdout, self._stderr):
                routed.local.target = None
            done.set()
            with send_lock:
                wire.send(conn, self._failure(exc, cancelled.is_set()))
            return
        finally:
            for routed in (self._stdout, self._stderr):
                routed.local.target = None
        done.set()
        ran = time.perf_counter()
        printed = result.__dict__.pop("_printed", ())
        if request.get("print_output", True):
            for to_err, chunk in printed:
                send_out(to_err, "\n".join(chunk) + "\n")
        later = _Later(result._progress, result._spark_plan)  # noqa: SLF001
        with self._lock:  # not the records: a service may run for hours
            self._finished[result.get_job_id()] = later
            while len(self._finished) > KEEP_RESULTS:
                self._finished.popitem(last=False)
        result.progress, result.spark_plan = None, None  # the program reads them on demand
        try:
            data = pickle.dumps(result, protocol=5)
        except Exception:  # noqa: BLE001 — records of a class defined in the program
            from pyspark import cloudpickle

            data = cloudpickle.dumps(result, protocol=5)
        with send_lock:
            wire.send(conn, ("result", data))
        self.log(
            f"job '{job_graph.job_name}' ({job_id}): loaded in {loaded - began:.3f} s, ran in "
            f"{ran - loaded:.3f} s (Spark {result.get_net_runtime() / 1000:.3f} s), results sent "
            f"in {time.perf_counter() - ran:.3f} s"
        )

    def log(self, line: str) -> None:
        """A line in the service log (whichever thread writes it)."""
        self._stdout.default.write(f"[{time.ctime()}] dispatcher: {line}\n")
        self._stdout.default.flush()

    @staticmethod
    def _failure(exc: BaseException, cancelled: bool) -> tuple:
        from pyflowkit.errors import JobExecutionException

        if cancelled:
            return ("cancelled",)
        if isinstance(exc, JobExecutionException):
            cause = exc.cause
            described = None if cause is None else (type(cause).__name__, str(cause))
            return ("failed", exc.job_id, str(exc), described)
        try:
            data = pickle.dumps(exc, protocol=5)
            pickle.loads(data)
        except Exception:  # noqa: BLE001
            text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            data = pickle.dumps(RuntimeError(text), protocol=5)
        return ("raise", data)

    @staticmethod
    def _watch_cancel(
        conn: socket.socket,
        session: Any,
        job_id: str,
        cancelled: threading.Event,
        done: threading.Event,
    ) -> None:
        """A ``cancel`` from the program (Ctrl-C), or the program gone: cancel the job."""
        from pyflowkit.spark.interrupt import cancel_job_group

        try:
            message = wire.receive(conn)
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):
            message = None
        if (message is None or message == ("cancel",)) and not done.is_set():
            cancelled.set()
            try:
                cancel_job_group(session, f"pyflowkit-{job_id}")
            except Exception:  # noqa: BLE001 — the job has ended meanwhile
                pass
