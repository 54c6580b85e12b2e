"""A configured checkpoint/savepoint location as a local path, read as Flink reads it.

Stands for ``org.apache.flink.core.fs.Path`` (a ``java.net.URI``: ``file:/data/chk``, the form
Flink prints, and ``file:///data/chk`` are the same path) and for the check in
``FileSystem.getUnguardedFileSystem``: a ``file`` URI with an authority (``file://var/x``, where a
slash was forgotten) is refused with Flink's ``IOException`` text. Every place a configured path is
read (``state.checkpoints.dir``, ``state.savepoints.dir``, ``execution.savepoint.path``, a
savepoint directory given to a JobClient) goes through ``local_path``.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote

from pyflowkit.errors import IllegalArgumentException, IOException, UnsupportedOperationException


def local_path(path: Any, who: str) -> str:
    """``path`` (a str, a ``PathLike`` or a ``file:`` URI) as an absolute local path."""
    path = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(path, str) or not path:
        raise IllegalArgumentException(f"{who}: a directory path is needed, got {path!r}.")
    scheme, colon, rest = path.partition(":")
    if colon and scheme.lower() == "file":
        if rest.startswith("//"):
            authority, slash, tail = rest[2:].partition("/")
            if authority:
                supposed = f"file:///{authority}{slash}{tail}"
                raise IOException(
                    f"Found local file path with authority '{authority}' in path '{path}'. "
                    f"Hint: Did you forget a slash? (correct path would be '{supposed}')"
                )
            rest = slash + tail
        rest = unquote(rest)
        if rest.startswith("/"):  # Path normalises repeated slashes
            rest = "/" + rest.lstrip("/")
        return os.path.abspath(rest or ".")
    if "://" in path:
        raise UnsupportedOperationException(
            f"{who}: {path!r} names a remote file system; the simulated cluster and Spark's "
            "driver write checkpoints to local paths only (use a path or a file:// URI)."
        )
    return os.path.abspath(path)
