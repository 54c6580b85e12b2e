"""A user's ``print()`` inside a function running on Spark reaches the driver's stdout.

A Python worker's stdout is not the driver's (Spark forwards it, if at all, to the executor's
log on stderr). While a subtask runs, ``sys.stdout`` is a ``SubtaskStdout`` that turns complete
lines into the subtask's print-sink lines, so the driver writes them to its stdout in the order
the subtask produced them, interleaved with that subtask's print sink as in a local Flink run.
"""

from __future__ import annotations

import io
from collections.abc import Callable


class SubtaskStdout(io.TextIOBase):
    """A text stream whose complete lines go to ``emit`` (partial ones wait for ``\\n``)."""

    def __init__(self, emit: Callable[[str, bool], None]) -> None:
        super().__init__()
        self._emit = emit
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        data = self._partial + text
        *lines, self._partial = data.split("\n")
        for line in lines:
            self._emit(line, False)
        return len(text)

    def pending(self) -> bool:
        """A partial line waits for its ``\\n``."""
        return bool(self._partial)

    def flush(self) -> None:
        """A pending partial line is written when the subtask ends (``close``), as a line."""

    def close(self) -> None:
        if self._partial:
            self._emit(self._partial, False)
            self._partial = ""
        super().close()
