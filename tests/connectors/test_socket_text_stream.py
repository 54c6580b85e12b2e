"""socket_text_stream (Flink's socketTextStream / SocketTextStreamFunction) on the simulated
cluster: a real TCP server thread in the test; records per delimiter, ``\\r`` stripped before
``\\n``, trailing data emitted at the end, reconnects up to max_retry, Flink's argument checks."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from pyflowkit.common import Types
from pyflowkit.datastream import StreamExecutionEnvironment
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.socket_source import SocketTextStreamFunction
from pyflowkit.operators.sources import SourceFunctionReader
from pyflowkit.runtime import MiniCluster


class TextServer:
    """Serves ``payloads`` (one per accepted connection, in pieces) and closes each connection."""

    def __init__(self, payloads: list[list[bytes]], pause: float = 0.0) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.payloads = payloads
        self.pause = pause
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with self.server:
            for pieces in self.payloads:
                conn, _ = self.server.accept()
                self.connections += 1
                with conn:
                    for piece in pieces:
                        conn.sendall(piece)
                        time.sleep(self.pause)


def _run(env: StreamExecutionEnvironment) -> list[str]:
    run = MiniCluster(echo_print=False).submit(env).run()
    run.raise_if_failed()
    return run.printed()


def test_socket_text_stream_reads_lines_from_a_server_on_the_simulated_cluster() -> None:
    server = TextServer(
        [
            [
                b"hello wor",
                b"ld\r\nsecond\n",
                "d\u00e9j\u00e0\n".encode()[:3],
                "d\u00e9j\u00e0\n".encode()[3:],
                b"tail",
            ]
        ],
        pause=0.02,
    )
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2)
    stream = env.socket_text_stream("127.0.0.1", server.port)
    assert stream.get_type() == Types.STRING()
    stream.map(lambda s: s.upper(), output_type=Types.STRING()).print()
    vertices = [(v.name, v.parallelism) for v in env.get_job_graph().vertices]
    assert vertices[0] == ("Source: Socket Stream", 1)  # non-parallel, whatever the env says
    printed = _run(env)
    bodies = sorted(line.split("> ", 1)[1] for line in printed)
    # the \r before \n is stripped; a multi-byte character split across reads is decoded whole;
    # the trailing "tail" (no delimiter) is emitted when the connection ends (max_retry 0)
    assert bodies == sorted(["HELLO WORLD", "SECOND", "D\u00c9J\u00c0", "TAIL"])


def test_custom_delimiter_and_reconnects_up_to_max_retry() -> None:
    server = TextServer([[b"a|b|"], [b"c|d"], [b"never read|"]])
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.socket_text_stream("127.0.0.1", server.port, "|", 2).print()
    function = env.get_job_graph().vertices[0].stream_nodes[0].operator_factory.params["function"]
    function.delay_between_retries = 10
    assert _run(env) == ["a", "b", "c", "d"]  # two attempts: the third connection is not made
    assert server.connections == 2


class _Ctx:
    def __init__(self) -> None:
        self.records: list[Any] = []

    def collect(self, value: Any) -> None:
        self.records.append(value)


def test_a_quiet_socket_ends_a_poll_instead_of_blocking_and_is_not_replayed() -> None:
    server = TextServer([[b"one\n", b"two\n"]], pause=0.3)
    reader = SourceFunctionReader(SocketTextStreamFunction("127.0.0.1", server.port))
    first = reader.poll(100)  # does not wait for 100 lines: a quiet step ends the poll
    deadline = time.monotonic() + 10
    got = [v for v, _ in first]
    while len(got) < 2 and time.monotonic() < deadline:
        got += [v for v, _ in reader.poll(100)]
    assert got == ["one", "two"]
    restored = SourceFunctionReader(SocketTextStreamFunction("127.0.0.1", server.port))
    restored.restore_position(2)  # live data is not replayed: nothing is skipped or read
    assert restored.snapshot_position() == 2 and restored.retained() == 0


def test_socket_text_stream_arguments_are_checked_as_flink_does() -> None:
    env = StreamExecutionEnvironment.get_execution_environment()
    with pytest.raises(IllegalArgumentException, match="port is out of range"):
        env.socket_text_stream("localhost", 70000)
    with pytest.raises(IllegalArgumentException, match="maxNumRetries must be zero or larger"):
        env.socket_text_stream("localhost", 9999, "\n", -2)
    with pytest.raises(IllegalArgumentException, match="hostname must not be null"):
        env.socket_text_stream(None, 9999)  # type: ignore[arg-type]


def test_an_unreachable_server_fails_the_job_naming_the_source() -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there now
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)
    env.socket_text_stream("127.0.0.1", port).print()
    run = MiniCluster(echo_print=False).submit(env).run()
    with pytest.raises(Exception, match="Socket Stream cannot connect to server socket"):
        run.raise_if_failed()
