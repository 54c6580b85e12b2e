"""The file source: split enumeration, split assignment and a positional split reader.

Stands for Flink's ``FileSource`` with ``NonSplittingRecursiveEnumerator``, ``TextLineFormat`` and
``FileSourceReader``. A split is one whole file (text lines are not splittable), so its position is
Flink's ``CheckpointedPosition(NO_OFFSET, recordsAfterOffset)``: the number of lines already read.
Flink's enumerator hands splits to readers on request; pyflowkit assigns split ``i`` (in
enumeration order) to subtask ``i % parallelism``, the order Flink gives when readers ask in turn,
and deterministic on every host (the simulated cluster and Spark executors share no enumerator).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import IO, Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.boundedness import Boundedness
from pyflowkit.operators.sources import Source, SourceReader

_END = object()  # end of a split's records


class TextLineFormat:
    """Flink's ``TextLineFormat``: one ``str`` record per line, line breaks ``\\n``, ``\\r\\n``,
    ``\\r`` (Java's ``BufferedReader.readLine``); not splittable."""

    is_splittable = False

    def __init__(self, charset_name: str = "UTF-8") -> None:
        if not isinstance(charset_name, str):
            raise IllegalArgumentException(
                f"StreamFormat.text_line_format(): charset_name must be a str, got {charset_name!r}."
            )
        try:
            "".encode(charset_name)
        except LookupError:
            raise IllegalArgumentException(
                f"StreamFormat.text_line_format(): unknown charset {charset_name!r}."
            ) from None
        self.charset_name = charset_name

    def get_produced_type(self) -> Any:
        """``getProducedType``: ``Types.STRING()``."""
        from pyflowkit.common.typeinfo import Types

        return Types.STRING()

    def open(self, path: str) -> IO[str]:
        # newline=None: universal newlines, as readLine splits on \n, \r\n and \r
        return open(path, encoding=self.charset_name, newline=None)

    def read_records(self, file: IO[str]) -> Iterator[Any]:
        """Flink's ``StreamFormat.Reader.read``: the file's records, one per line."""
        for line in file:
            yield line[:-1] if line.endswith("\n") else line

    def __repr__(self) -> str:
        return f"TextLineFormat({self.charset_name!r})"


@dataclass(frozen=True)
class FileSourceSplit:
    """Flink's ``FileSourceSplit``: one file; ``records_to_skip`` is the checkpointed position."""

    split_id: str
    path: str
    records_to_skip: int = 0

    def to_state(self) -> list[Any]:
        """Plain data for operator state (survives a JSON savepoint)."""
        return [self.split_id, self.path, self.records_to_skip]

    @staticmethod
    def from_state(entry: Sequence[Any]) -> FileSourceSplit:
        split_id, path, skip = entry
        return FileSourceSplit(str(split_id), str(path), int(skip))


def accept_file(path: str) -> bool:
    """Flink's ``DefaultFileFilter``: skip names starting with ``.`` or ``_`` (hidden/temporary)."""
    name = os.path.basename(os.path.normpath(path))
    return bool(name) and name[0] not in "._"


def enumerate_files(paths: Sequence[str], source_name: str = "FileSource") -> list[str]:
    """``NonSplittingRecursiveEnumerator.enumerateSplits``: files under ``paths``, recursively,
    in path order (each directory's entries sorted by name, for determinism)."""
    files: list[str] = []

    def walk(path: str) -> None:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                child = os.path.join(path, name)
                if accept_file(child):
                    walk(child)
        else:
            files.append(path)

    for path in paths:
        if not os.path.exists(path):
            raise IllegalArgumentException(
                f"{source_name}: the path {path!r} does not exist (java.io.FileNotFoundException)."
            )
        walk(path)
    return files


def assigned_to(split_index: int, subtask_index: int, parallelism: int) -> bool:
    """Split ``split_index`` (enumeration order) goes to subtask ``split_index % parallelism``."""
    return split_index % parallelism == subtask_index


class FileSourceReader(SourceReader):
    """Flink's ``FileSourceReader``: reads its splits one after another, one split per poll.

    ``current_split_id`` names the split the last ``poll`` read from (for per-split watermarks);
    ``finished_split_ids`` collects splits read to the end since the last ``take_finished()``.
    With ``discovery_interval_ms`` (``monitor_continuously``) the reader looks for new files every
    interval of processing time (``clock``) and never finishes. With ``enumerate_splits`` False
    another enumerator hands splits in through ``add_splits`` (Spark's file stream source).
    """

    def __init__(
        self,
        source: FileSource,
        subtask_index: int,
        parallelism: int,
        clock: Callable[[], int] | None = None,
        enumerate_splits: bool = True,
    ) -> None:
        self.source = source
        self.subtask_index = subtask_index
        self.parallelism = parallelism
        self.clock = clock or (lambda: 0)
        self.splits: list[FileSourceSplit] = []
        self.seen_paths: list[str] = []
        self.current_split_id: str | None = None
        self._finished: list[str] = []
        self._file: IO[str] | None = None
        self._records: Iterator[Any] | None = None
        self._next_discovery = 0
        self.enumerate_splits = enumerate_splits
        if enumerate_splits:
            self._discover()

    # ---- enumeration (Flink's enumerator, run identically by every reader) ----
    def _discover(self) -> None:
        known = set(self.seen_paths)
        for path in enumerate_files(self.source.paths, "FileSource"):
            if path in known:
                continue
            index = len(self.seen_paths)
            self.seen_paths.append(path)
            known.add(path)
            if assigned_to(index, self.subtask_index, self.parallelism):
                self.splits.append(FileSourceSplit(str(index), path))
        interval = self.source.discovery_interval_ms
        if interval is not None:
            self._next_discovery = self.clock() + interval

    def _maybe_discover(self) -> None:
        if (
            self.enumerate_splits
            and self.source.discovery_interval_ms is not None
            and self.clock() >= self._next_discovery
        ):
            self._discover()

    def add_splits(self, splits: Sequence[FileSourceSplit]) -> None:
        """Flink's ``SourceReader.addSplits``: splits an enumerator assigned to this reader."""
        self.splits.extend(splits)

    # ---- reading ----
    def _open_current(self) -> Iterator[Any]:
        if self._records is None:
            split = self.splits[0]
            stream_format = self.source.stream_format
            try:
                self._file = stream_format.open(split.path)
                self._records = stream_format.read_records(self._file)
                for _ in range(split.records_to_skip):
                    if next(self._records, _END) is _END:
                        break
            except OSError as exc:
                raise IllegalArgumentException(
                    f"FileSource cannot read split {split.split_id} ({split.path!r}): {exc}."
                ) from exc
        return self._records

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        self._maybe_discover()
        if not self.splits or max_records <= 0:
            return []
        records = self._open_current()
        split = self.splits[0]
        out: list[tuple[Any, int | None]] = []
        while len(out) < max_records:
            try:
                record = next(records, _END)
            except UnicodeDecodeError as exc:  # the file and the line, not only the byte
                line = split.records_to_skip + len(out) + 1
                raise IllegalArgumentException(
                    f"FileSource cannot decode split {split.split_id} ({split.path!r}) at line "
                    f"{line}: {exc}. The file is not "
                    f"{getattr(self.source.stream_format, 'charset_name', 'UTF-8')}: give its "
                    "charset, e.g. StreamFormat.text_line_format('ISO-8859-1')."
                ) from exc
            if record is _END:
                self._close_current()
                self._finished.append(split.split_id)
                self.splits.pop(0)
                break
            out.append((record, None))
        if self.splits and self.splits[0] is split:
            self.splits[0] = replace(split, records_to_skip=split.records_to_skip + len(out))
        self.current_split_id = split.split_id
        return out

    def take_finished(self) -> list[str]:
        """Splits finished since the last call (Flink's ``onSplitFinished``)."""
        done, self._finished = self._finished, []
        return done

    def _close_current(self) -> None:
        self._records = None
        if self._file is not None:
            self._file.close()
            self._file = None

    def close(self) -> None:
        self._close_current()

    def is_finished(self) -> bool:
        if self.source.discovery_interval_ms is not None:
            return False  # CONTINUOUS_UNBOUNDED
        return not self.splits

    # ---- positions ----
    def snapshot_splits(self) -> list[list[Any]]:
        """The unfinished splits with their positions (Flink's ``snapshotState``)."""
        return [s.to_state() for s in self.splits]

    def restore_splits(self, entries: Sequence[Sequence[Any]], seen_paths: Sequence[str]) -> None:
        """Replace the assignment by restored splits (``addSplits`` after a restore)."""
        self._close_current()
        self.splits = [FileSourceSplit.from_state(e) for e in entries]
        self.splits.sort(key=lambda s: int(s.split_id) if s.split_id.isdigit() else 0)
        self.seen_paths = list(dict.fromkeys(seen_paths))

    def snapshot_position(self) -> list[list[Any]]:
        return self.snapshot_splits()

    def restore_position(self, position: Any) -> None:
        self.restore_splits(position, self.seen_paths)


class FileSource(Source):
    """Flink's ``FileSource`` over a ``StreamFormat``: bounded, or continuous with a discovery
    interval (``monitor_continuously``)."""

    is_parallel = True

    def __init__(
        self,
        stream_format: TextLineFormat,
        paths: Sequence[str],
        discovery_interval_ms: int | None = None,
    ) -> None:
        if not hasattr(stream_format, "open") or not hasattr(stream_format, "read_records"):
            raise IllegalArgumentException(
                "FileSource.for_record_stream_format() needs a StreamFormat (e.g. "
                f"StreamFormat.text_line_format()), got {stream_format!r}."
            )
        paths = [os.fspath(p) for p in paths]
        if not paths:
            raise IllegalArgumentException(
                "FileSource.for_record_stream_format() needs at least one path."
            )
        for p in paths:
            if not isinstance(p, str) or not p:
                raise IllegalArgumentException(
                    f"FileSource: paths must be non-empty strings, got {p!r}."
                )
        if discovery_interval_ms is not None and discovery_interval_ms <= 0:
            raise IllegalArgumentException(
                f"FileSource.monitor_continuously(): the discovery interval must be positive, "
                f"got {discovery_interval_ms} ms."
            )
        self.stream_format = stream_format
        self.paths = paths
        self.discovery_interval_ms = discovery_interval_ms

    def get_boundedness(self) -> Boundedness:
        if self.discovery_interval_ms is None:
            return Boundedness.BOUNDED
        return Boundedness.CONTINUOUS_UNBOUNDED

    def get_produced_type(self) -> Any:
        """Flink's ``ResultTypeQueryable``: the stream format's record type."""
        produced = getattr(self.stream_format, "get_produced_type", None)
        return produced() if callable(produced) else None

    def create_reader(
        self, subtask_index: int, parallelism: int, clock: Callable[[], int] | None = None
    ) -> FileSourceReader:
        return FileSourceReader(self, subtask_index, parallelism, clock)

    def __repr__(self) -> str:
        mode = (
            "static file set"
            if self.discovery_interval_ms is None
            else f"monitored every {self.discovery_interval_ms} ms"
        )
        return f"FileSource({self.stream_format!r}, {self.paths!r}, {mode})"
