"""The hybrid source: reads its sources one after another (e.g. files, then a live source).

Flink's ``HybridSource`` with its ``HybridSourceReader``: a subtask reads its share of the
current source to the end, then switches to the next; the hybrid source ends with the last one.
Flink's enumerator switches when every reader has finished the current source; pyflowkit's
sources assign their splits without an enumerator, so each subtask switches when its own share is
read (the records and their per-subtask order are Flink's; across subtasks the second source may
start while another subtask still reads the first). The position of a reader is
``[source index, the current source's position]``, so a restore resumes in the right source.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.boundedness import Boundedness
from pyflowkit.operators.file_source import FileSource, FileSourceReader
from pyflowkit.operators.sources import Source, SourceReader

MAIN = "main"


def _create(source: Any, subtask: int, parallelism: int, clock: Callable[[], int] | None) -> Any:
    if isinstance(source, FileSource | HybridSource):
        return source.create_reader(subtask, parallelism, clock)
    return source.create_reader(subtask, parallelism)


class HybridSourceReader(SourceReader):
    """Flink's ``HybridSourceReader``: one underlying reader at a time."""

    def __init__(
        self,
        source: HybridSource,
        subtask_index: int,
        parallelism: int,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.source = source
        self.subtask_index = subtask_index
        self.parallelism = parallelism
        self.clock = clock
        self.index = 0
        self.current: Any = self._open(0)
        self.current_split_id: str | None = None
        self._finished: list[str] = []

    def _open(self, index: int) -> Any:
        return _create(self.source.sources[index], self.subtask_index, self.parallelism, self.clock)

    def _split(self, inner: str | None) -> str:
        return f"{self.index}:{inner or MAIN}"

    def _switch(self) -> None:
        """The current source is read: close it, release its splits, open the next."""
        self._collect_finished()
        if not isinstance(self.current, FileSourceReader):
            self._finished.append(self._split(None))
        closer = getattr(self.current, "close", None)
        if callable(closer):
            closer()
        self.index += 1
        self.current = self._open(self.index)

    def _collect_finished(self) -> None:
        take = getattr(self.current, "take_finished", None)
        if callable(take):
            self._finished.extend(self._split(s) for s in take())

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        while True:
            records = self.current.poll(max_records)
            if records:
                self.current_split_id = self._split(getattr(self.current, "current_split_id", None))
                return records
            if self.current.is_finished() and self.index + 1 < len(self.source.sources):
                self._switch()
                continue
            return []

    def take_finished(self) -> list[str]:
        """Splits finished since the last call (the source operator releases their watermarks)."""
        self._collect_finished()
        done, self._finished = self._finished, []
        return done

    def is_finished(self) -> bool:
        return self.index + 1 == len(self.source.sources) and self.current.is_finished()

    def snapshot_position(self) -> list[Any]:
        reader = self.current
        if callable(getattr(reader, "snapshot_splits", None)):
            return [self.index, reader.snapshot_splits(), list(getattr(reader, "seen_paths", []))]
        return [self.index, reader.snapshot_position(), None]

    def restore_position(self, position: Any) -> None:
        index, inner, seen = position
        index = int(index)
        if not 0 <= index < len(self.source.sources):
            raise IllegalArgumentException(
                f"HybridSource: the restored position names source {index}, but this hybrid "
                f"source has {len(self.source.sources)}."
            )
        closer = getattr(self.current, "close", None)
        if callable(closer):
            closer()
        self.index = index
        self.current = self._open(index)
        if callable(getattr(self.current, "restore_splits", None)):
            self.current.restore_splits(inner, seen or [])
        else:
            self.current.restore_position(inner)

    def close(self) -> None:
        closer = getattr(self.current, "close", None)
        if callable(closer):
            closer()


class HybridSource(Source):
    """Flink's ``HybridSource``: ``sources`` read in order; bounded iff the last one is."""

    def __init__(self, sources: Sequence[Any]) -> None:
        sources = list(sources)
        if not sources:
            raise IllegalArgumentException("HybridSource needs at least one source.")
        for i, source in enumerate(sources):
            if not callable(getattr(source, "create_reader", None)):
                raise IllegalArgumentException(
                    f"HybridSource: source {i} must be a Source (e.g. a FileSource or "
                    f"NumberSequenceSource), got {source!r}."
                )
        for i, source in enumerate(sources[:-1]):
            boundedness = getattr(source, "get_boundedness", None)
            value = boundedness() if callable(boundedness) else Boundedness.BOUNDED
            if getattr(value, "name", str(value)) != Boundedness.BOUNDED.name:
                raise IllegalArgumentException(
                    f"HybridSource: source {i} ({source!r}) is unbounded; only the last source "
                    "may be unbounded (the next one would never start)."
                )
        self.sources = sources

    def get_boundedness(self) -> Any:
        boundedness = getattr(self.sources[-1], "get_boundedness", None)
        return boundedness() if callable(boundedness) else Boundedness.BOUNDED

    def get_produced_type(self) -> Any:
        """The first source's record type (Flink requires every source to produce it)."""
        for source in self.sources:
            produced = getattr(source, "get_produced_type", None)
            value = produced() if callable(produced) else None
            if value is not None:
                return value
        return None

    def create_reader(
        self, subtask_index: int, parallelism: int, clock: Callable[[], int] | None = None
    ) -> HybridSourceReader:
        return HybridSourceReader(self, subtask_index, parallelism, clock)

    def __repr__(self) -> str:
        return f"HybridSource({self.sources!r})"
