"""The lines a run's print sinks wrote, as ``run.printed()`` shows them: a bounded window.

Flink writes print-sink lines to the TaskManager's stdout and keeps nothing; pyflowkit also keeps
the last ``window`` lines (``None``: every line) so a notebook can show them after the run. Lines
are kept in the batches the sinks wrote (no second copy), oldest batches dropped first.
"""

from __future__ import annotations

from collections import deque

DEFAULT_PRINTED_WINDOW = 10_000


class PrintedLines:
    """The last ``window`` printed lines of a run in print order, with the sink each came from."""

    def __init__(self, window: int | None = DEFAULT_PRINTED_WINDOW) -> None:
        self.window = window
        self.total = 0  # lines printed in the whole run, kept or not
        self._batches: deque[tuple[str, list[str]]] = deque()  # (sink name, lines), in order
        self._kept = 0  # lines in _batches (the first batch may hold more than the window)

    def add(self, sink: str, lines: list[str]) -> None:
        """Keep a batch of lines the sink ``sink`` wrote (the list is kept as it is)."""
        n = len(lines)
        if not n:
            return
        self.total += n
        window = self.window
        if window == 0:
            return
        batches = self._batches
        batches.append((sink, lines))
        self._kept += n
        if window is not None:
            while self._kept - len(batches[0][1]) >= window:
                self._kept -= len(batches.popleft()[1])

    def lines(self, sink: str | None = None) -> list[str]:
        """The kept lines in print order (only sink ``sink``'s when given)."""
        skip = 0 if self.window is None else max(0, self._kept - self.window)
        out: list[str] = []
        for name, lines in self._batches:
            if skip:
                lines, skip = lines[skip:], max(0, skip - len(lines))
            if sink is None or name == sink:
                out.extend(lines)
        return out

    def __len__(self) -> int:
        return self._kept if self.window is None else min(self._kept, self.window)
