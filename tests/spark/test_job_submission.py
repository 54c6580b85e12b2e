"""The program's side of a job submitted to the local Spark service (``job_submission``), against
a stand-in dispatcher on a loopback socket (no JVM): the token goes first, what the job prints
is written as it arrives, Ctrl-C asks the service to cancel the job and ends in
``KeyboardInterrupt`` naming it, and a service that vanishes under the job fails the program at
once with ``JobExecutionException`` naming the service."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyflowkit.errors import JobExecutionException
from pyflowkit.spark import job_submission as wire
from pyflowkit.spark import service

JOB = SimpleNamespace(job_id="4f2a", job_name="Word Count")


def fake_service(tmp_path: Path, handle) -> tuple[service.ServiceState, list]:
    """A ServiceState whose dispatcher is ``handle(conn, seen)`` on a thread."""
    (tmp_path / "token").write_text("secret\n")
    server = socket.create_server(("127.0.0.1", 0))
    seen: list = []

    def serve() -> None:
        conn, _ = server.accept()
        with conn, server:
            seen.append(wire.receive_bytes(conn))  # the token
            seen.append(wire.receive(conn))  # the request
            handle(conn, seen)

    threading.Thread(target=serve, daemon=True).start()
    state = service.ServiceState(
        tmp_path, os.getpid(), None, 1, time.time(), 60.0, "running", "", "", "", None
    )
    return service.ServiceState(
        **{**state.__dict__, "dispatcher_port": server.getsockname()[1]}
    ), seen


def test_printed_chunks_arrive_in_order_then_the_failure(tmp_path, capsys) -> None:
    def handle(conn, seen) -> None:
        wire.send(conn, ("out", False, "1> (to,1)\n"))
        wire.send(conn, ("out", True, "oops\n"))
        wire.send(conn, ("out", False, "2> (be,1)\n"))
        wire.send(conn, ("failed", "4f2a", "Traceback ...\n\nJob failed", ("ValueError", "x")))

    state, seen = fake_service(tmp_path, handle)
    with pytest.raises(JobExecutionException) as info:
        wire.submit_to(state, JOB, {"a": "b"})
    assert str(info.value) == "Traceback ...\n\nJob failed" and info.value.job_id == "4f2a"
    assert str(info.value.cause) == "ValueError: x"
    assert capsys.readouterr() == ("1> (to,1)\n2> (be,1)\n", "oops\n")
    token, request = seen
    assert token == b"secret" and request["configuration"] == {"a": "b"}
    assert request["print_output"] is True and isinstance(request["job"], bytes)


def test_ctrl_c_cancels_the_job_on_the_service(tmp_path) -> None:
    def handle(conn, seen) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the user presses Ctrl-C while the job runs
        seen.append(wire.receive(conn))
        wire.send(conn, ("cancelled",))

    state, seen = fake_service(tmp_path, handle)
    with pytest.raises(
        KeyboardInterrupt, match=r"Job 'Word Count' \(4f2a\) was cancelled \(Ctrl-C\)"
    ):
        wire.submit_to(state, JOB, {})
    assert seen[2] == ("cancel",)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_a_service_that_vanishes_fails_the_program_at_once(tmp_path) -> None:
    def handle(conn, seen) -> None:
        conn.shutdown(socket.SHUT_RDWR)  # the supervisor was killed

    state, _ = fake_service(tmp_path, handle)
    began = time.perf_counter()
    with pytest.raises(JobExecutionException) as info:
        wire.submit_to(state, JOB, {})
    assert time.perf_counter() - began < 5
    assert str(info.value).startswith(
        "Job 'Word Count' (4f2a) failed on Spark: the local Spark service (Spark Connect on "
        "127.0.0.1:1, JVM pid None) stopped while this program was using it"
    )
    assert isinstance(info.value.cause, service.SparkServiceGone)
