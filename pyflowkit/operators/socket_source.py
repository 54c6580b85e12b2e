"""Flink's ``SocketTextStreamFunction``: delimited text read from a TCP socket (``socketTextStream``).

The function connects to ``hostname:port``, decodes the bytes it receives and emits one string per
``delimiter`` (a trailing ``\\r`` is stripped when the delimiter is ``\\n``). When the server closes
the connection it reconnects ``max_num_retries`` times (``-1``: for ever), ``delay_between_retries``
ms apart, then emits what is left in its buffer and ends. ``run`` is a generator: each step is one
read of at most ``READ_TIMEOUT_S``, so a host that steps it (the simulated cluster) is never blocked
longer than that while the socket is quiet.
"""

from __future__ import annotations

import codecs
import socket
import time
from collections.abc import Iterator
from typing import Any

from pyflowkit.datastream.functions import SourceFunction
from pyflowkit.errors import IllegalArgumentException

DEFAULT_CONNECTION_RETRY_SLEEP = 500  # ms, Flink's DEFAULT_CONNECTION_RETRY_SLEEP
READ_TIMEOUT_S = 0.05  # one step's longest wait for bytes
_READ_BYTES = 8192


class SocketTextStreamFunction(SourceFunction):
    """Reads strings from a socket, one per delimiter; non-parallel.

    Mirrors Flink's ``org.apache.flink.streaming.api.functions.source.SocketTextStreamFunction``.
    """

    positional_replay = False  # live data: a restored source reads what arrives from then on

    def __init__(
        self,
        hostname: str,
        port: int,
        delimiter: str = "\n",
        max_num_retries: int = 0,
        delay_between_retries: int = DEFAULT_CONNECTION_RETRY_SLEEP,
    ) -> None:
        if not isinstance(hostname, str) or not hostname:
            raise IllegalArgumentException("socket_text_stream(): hostname must not be null.")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            raise IllegalArgumentException(
                f"socket_text_stream(): port is out of range (1..65535), got {port!r}."
            )
        if not isinstance(delimiter, str) or not delimiter:
            raise IllegalArgumentException(
                f"socket_text_stream(): the delimiter must be a non-empty string, got {delimiter!r}."
            )
        if isinstance(max_num_retries, bool) or not isinstance(max_num_retries, int):
            raise IllegalArgumentException(
                f"socket_text_stream(): max_retry must be an int, got {max_num_retries!r}."
            )
        if max_num_retries < -1:
            raise IllegalArgumentException(
                "socket_text_stream(): maxNumRetries must be zero or larger (num retries), or -1 "
                f"(infinite retries); got {max_num_retries}."
            )
        if delay_between_retries < 0:
            raise IllegalArgumentException(
                "socket_text_stream(): delayBetweenRetries must be zero or positive, got "
                f"{delay_between_retries}."
            )
        self.hostname = hostname
        self.port = port
        self.delimiter = delimiter
        self.max_num_retries = max_num_retries
        self.delay_between_retries = delay_between_retries
        self.is_running = True
        self._socket: socket.socket | None = None

    def run(self, ctx: Any) -> Iterator[None]:
        """Flink's ``run``: read, split at the delimiter, reconnect on EOF as configured."""
        buffer = ""
        attempt = 0
        while self.is_running:
            decoder = codecs.getincrementaldecoder("utf-8")("replace")
            try:
                sock = socket.create_connection((self.hostname, self.port))
            except OSError as exc:
                raise ConnectionError(
                    f"Source: Socket Stream cannot connect to server socket "
                    f"{self.hostname}:{self.port} ({exc.strerror or exc})."
                ) from None
            self._socket = sock
            with sock:
                sock.settimeout(READ_TIMEOUT_S)
                while self.is_running:
                    try:
                        data = sock.recv(_READ_BYTES)
                    except TimeoutError:
                        yield None  # nothing arrived during this step
                        continue
                    except OSError:
                        break  # closed by cancel()
                    if not data:
                        break  # EOF: the server closed the connection
                    buffer += decoder.decode(data)
                    buffer = self._emit_records(buffer, ctx)
                    yield None
                buffer += decoder.decode(b"", final=True)
                buffer = self._emit_records(buffer, ctx)
            self._socket = None
            if self.is_running:
                attempt += 1
                if self.max_num_retries == -1 or attempt < self.max_num_retries:
                    time.sleep(self.delay_between_retries / 1000)
                else:
                    break
        if buffer:
            ctx.collect(buffer)  # trailing data

    def _emit_records(self, buffer: str, ctx: Any) -> str:
        delimiter = self.delimiter
        while True:
            pos = buffer.find(delimiter)
            if pos < 0:
                return buffer
            record = buffer[:pos]
            if delimiter == "\n" and record.endswith("\r"):
                record = record[:-1]
            ctx.collect(record)
            buffer = buffer[pos + len(delimiter) :]

    def cancel(self) -> None:
        """Flink's ``cancel``: stop, and close the socket so a blocked read returns."""
        self.is_running = False
        sock = self._socket
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_socket"] = None  # a live socket is not part of the function's definition
        return state
