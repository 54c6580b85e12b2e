"""What a failed Structured Streaming query says to the user, as Flink's job failure would.

Spark's ``StreamingQueryException`` text ends with a dump of the query (``=== Streaming Query
===``, offsets, the logical plan): not a cause a Flink user meets. Here its first part is kept,
and a failure of one of Spark's own sources (which stands for a Flink source function) is said as
that source fails in Flink: ``SocketTextStreamFunction`` with nothing listening throws
``java.net.ConnectException: Connection refused`` from ``Socket.connect``, naming no more than
that, so the source and ``host:port`` are added. (PySpark appends the JVM stack trace, whose
first line carries the dump, to the message: cut too.)
"""

from __future__ import annotations

import re
from typing import Any

_DUMP = re.compile(r"\s*=== Streaming Query ===.*", re.DOTALL)
_SQLSTATE = re.compile(r"\s*SQLSTATE: \w+\s*$")
_REFUSED = re.compile(r"(java\.net\.)?ConnectException|Connection refused")


def query_error_text(error: BaseException) -> str:
    """Spark's message without the query dump, the JVM stack trace PySpark appends and the
    SQLSTATE tag."""
    text = str(getattr(error, "_desc", None) or error)  # PySpark's CapturedException message
    text = text.split("\n\nJVM stacktrace:", 1)[0]
    text = _DUMP.sub("", text).strip()
    return _SQLSTATE.sub("", text).strip()


def socket_endpoints(job_graph: Any) -> list[tuple[str, str, int]]:
    """(source vertex name, host, port) of each socket source the job reads on Spark."""
    from pyflowkit.operators.socket_source import SocketTextStreamFunction

    out = []
    for vertex in getattr(job_graph, "vertices", ()):
        function = vertex.stream_nodes[0].operator_factory.params.get("function")
        if isinstance(function, SocketTextStreamFunction):
            out.append((vertex.stream_nodes[0].operator_name, function.hostname, function.port))
    return out


def source_failure(job_graph: Any, error: BaseException) -> str | None:
    """Flink's wording of a failure of Spark's own source, or None when it is not one."""
    text = query_error_text(error)
    sockets = socket_endpoints(job_graph)
    if sockets and _REFUSED.search(text):
        name, host, port = sockets[0]
        return (
            f"java.net.ConnectException: Connection refused in {name} (1/1): nothing listens "
            f"on {host}:{port} (start the server first, e.g. nc -lk {port})"
        )
    return None


def failure_text(job_graph: Any, error: BaseException) -> str:
    """One line for a query failure that carries no user traceback."""
    named = source_failure(job_graph, error)
    if named is not None:
        return named
    text = query_error_text(error)
    return text.splitlines()[0] if text else type(error).__name__


__all__ = ["failure_text", "query_error_text", "socket_endpoints", "source_failure"]
