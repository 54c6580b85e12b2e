"""A program's job submitted to the local Spark service, as a Flink client submits its JobGraph.

Stands for Flink's ``RestClusterClient.submitJob`` + ``JobClient`` of an attached run: the program
compiles the JobGraph itself and sends it (cloudpickled, user functions included) to the service's
``Dispatcher`` (``job_dispatcher``), which runs it on the service's warm Spark session and streams
back what the job prints, then its ``JobExecutionResult`` or its failure. The program never
imports pyspark, pandas, pyarrow or grpc (2-8 s of a short program's start, depending on load).

Used for a bounded job of a program run from the shell whose target is Spark with no
``spark.master``/``spark.remote``/``spark.*`` settings, once the service runs; anything else (a
streaming query, the first program, which starts the service) takes the Spark Connect path, with
the same results. ``pyflowkit.spark.submit: false`` (``PYFLOWKIT_SPARK_SUBMIT=0``) keeps the Connect
path for every job.
"""

from __future__ import annotations

import os
import pickle
import signal
import socket
import struct
import sys
import threading
from collections.abc import Mapping
from functools import partial
from typing import Any

from pyflowkit.errors import JobExecutionException
from pyflowkit.spark import service

SUBMIT_OPTION = "pyflowkit.spark.submit"
SUBMIT_ENV = "PYFLOWKIT_SPARK_SUBMIT"
#: configuration keys that give a job its own session (never the service)
_OWN_SESSION = ("spark.",)
_HEADER = struct.Struct(">I")


class SubmissionRefused(Exception):
    """The service cannot run this job as submitted (a streaming query, say): run it as before."""


# ---------------------------------------------------------------------------------------------
# framing: a 4-byte length, then a pickle


def send(sock: socket.socket, message: Any) -> None:
    data = pickle.dumps(message, protocol=5)
    sock.sendall(_HEADER.pack(len(data)) + data)


def send_bytes(sock: socket.socket, data: bytes) -> None:
    sock.sendall(_HEADER.pack(len(data)) + data)


def receive_bytes(sock: socket.socket) -> bytes | None:
    """One framed message, or None when the peer closed the connection."""
    header = _read(sock, _HEADER.size)
    if header is None:
        return None
    body = _read(sock, _HEADER.unpack(header)[0])
    if body is None:
        return None
    return body


def receive(sock: socket.socket) -> Any:
    data = receive_bytes(sock)
    return None if data is None else pickle.loads(data)


def _read(sock: socket.socket, size: int) -> bytes | None:
    chunks, remaining = [], size
    while remaining:
        try:
            chunk = sock.recv(min(remaining, 1 << 20))
        except ConnectionError:
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


# ---------------------------------------------------------------------------------------------
# the client side


def enabled(configuration: Mapping[str, str]) -> bool:
    raw = configuration.get(SUBMIT_OPTION)
    if raw in (None, ""):
        raw = os.environ.get(SUBMIT_ENV, "1")
    return str(raw).strip().lower() not in ("0", "false", "no", "off")


def running_service(configuration: Mapping[str, str]) -> service.ServiceState | None:
    """The local service a default-target program would use, if it runs and takes submitted
    jobs (None: the program takes the Connect path, which starts a service if needed)."""
    if not enabled(configuration) or not service.enabled(configuration):
        return None
    if any(k.startswith(_OWN_SESSION) for k in configuration):
        return None
    if not service.is_script_process() or sys.platform == "win32":
        return None
    state = service.read_state()
    if (
        state is None
        or state.status != "running"
        or state.dispatcher_port is None
        or state.fingerprint != service.code_fingerprint()
        or service.server_gone(state)
    ):
        return None
    return state


def submit(job_graph: Any, configuration: Mapping[str, str], print_output: bool = True) -> Any:
    """Run ``job_graph`` on the running local service; its ``SparkJobExecutionResult``, or None
    when the service does not take it (the caller then runs it on a Spark session)."""
    state = running_service(configuration)
    if state is None:
        return None
    return submit_to(state, job_graph, configuration, print_output)


def submit_to(
    state: service.ServiceState,
    job_graph: Any,
    configuration: Mapping[str, str],
    print_output: bool = True,
) -> Any:
    """Submit ``job_graph`` to the Dispatcher of the service ``state``; its result, or None
    when the service does not run this kind of job (a streaming query, its own session)."""
    from pyflowkit.spark import cloudpickle_copy

    job_id = getattr(job_graph, "job_id", None) or ""
    request = {
        "job": cloudpickle_copy.dumps(job_graph, protocol=5),
        "configuration": dict(configuration),
        "print_output": print_output,
        "stdout_tty": _isatty(sys.stdout),
        "stderr_tty": _isatty(sys.stderr),
    }
    try:
        sock = _connect(state)
    except OSError:
        return None  # not listening (stopping): the Connect path decides
    service.touch_activity(state.directory)
    with sock, _CancelOnInterrupt(sock) as ctrl_c:
        send(sock, request)
        return _follow(sock, state, job_graph, job_id, ctrl_c)


def _connect(state: service.ServiceState) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", state.dispatcher_port), timeout=10)
    sock.settimeout(None)
    send_bytes(sock, (state.directory / "token").read_bytes().strip())
    return sock


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _follow(
    sock: socket.socket, state: service.ServiceState, job_graph: Any, job_id: str, ctrl_c: Any
) -> Any:
    """Write what the job prints as it arrives; return its result or raise its failure."""
    name = getattr(job_graph, "job_name", "")
    while True:
        message = receive(sock)
        if message is None:  # the service went away under the job
            if ctrl_c.pressed.is_set():
                raise KeyboardInterrupt(f"Job '{name}' ({job_id}) was cancelled (Ctrl-C).")
            gone = service.gone_error(state)
            raise JobExecutionException(
                job_id, f"Job '{name}' ({job_id}) failed on Spark: {gone}", gone
            )
        kind = message[0]
        if kind == "out":
            stream = sys.stderr if message[1] else sys.stdout
            stream.write(message[2])
            stream.flush()
        elif kind == "fallback":
            return None
        elif kind == "result":
            return _result(message[1], state, job_id)
        elif kind == "cancelled":
            raise KeyboardInterrupt(f"Job '{name}' ({job_id}) was cancelled (Ctrl-C).")
        elif kind == "failed":
            _, failed_id, text, cause = message
            raise JobExecutionException(failed_id, text, _cause(cause)) from None
        elif kind == "raise":
            raise pickle.loads(message[1]) from None
        else:
            raise RuntimeError(f"the local Spark service sent an unknown message {kind!r}")


def _cause(cause: tuple[str, str] | None) -> BaseException | None:
    if cause is None:
        return None
    kind, text = cause
    if kind == "SparkServiceGone":
        return service.SparkServiceGone(text)
    return RemoteJobFailure(f"{kind}: {text}")


class RemoteJobFailure(Exception):
    """The root failure of a job the local service ran (its type and message): the exception
    itself lives in the service (a PySpark or gRPC error this program does not import)."""


def _result(data: bytes, state: service.ServiceState, job_id: str) -> Any:
    result = pickle.loads(data)
    result.progress = partial(fetch, state, "progress", job_id)
    result.spark_plan = partial(fetch, state, "plan", job_id)
    return result


def fetch(state: service.ServiceState, what: str, job_id: str) -> Any:
    """A finished job's final progress or Spark plan, read from the service when first asked."""
    with _connect(state) as sock:
        send(sock, {"fetch": what, "job_id": job_id})
        message = receive(sock)
    if message is None or message[0] != "value":
        raise RuntimeError(f"the local Spark service no longer has the {what} of job {job_id}")
    return pickle.loads(message[1])


class _CancelOnInterrupt:
    """Ctrl-C while the service runs the job: ask it to cancel the job (then raise
    ``KeyboardInterrupt`` once it has stopped); a second Ctrl-C raises at once."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.pressed = threading.Event()
        self._previous: Any = None

    def __enter__(self) -> _CancelOnInterrupt:
        if threading.current_thread() is threading.main_thread():
            try:
                self._previous = signal.signal(signal.SIGINT, self._on_sigint)
            except ValueError:
                self._previous = None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def _on_sigint(self, signum: int, frame: Any) -> None:
        if self.pressed.is_set():
            raise KeyboardInterrupt
        self.pressed.set()
        try:
            send(self.sock, ("cancel",))
        except OSError:
            pass
