"""FileSink compaction: pending part files are held back and merged before they are published.

Flink 1.16's ``FileCompactStrategy`` / ``FileCompactor`` (``ConcatFileCompactor``,
``IdenticalFileCompactor``) with its ``CompactCoordinator`` (packs a bucket's pending files until
a trigger fires) and ``CompactorOperator`` (writes ``compacted-<first file's name>`` and
publishes it in place of its inputs, which are removed once it is committed). Triggers: the held
size of a bucket reaching ``size_threshold``, every ``num_checkpoints_before_compaction``
checkpoints, and the end of input. pyflowkit compacts in the writer's subtask, at the checkpoint
barrier (Flink runs a coordinator and a compactor operator with ``num_compact_threads``
threads, merging the files of every writer subtask); held files are writer state, so a restore
finds them again and the contract stays exactly once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from pyflowkit.errors import IllegalArgumentException

COMPACTED_PREFIX = "compacted-"  # Flink's FileCompactorUtil.COMPACTED_PREFIX


class FileCompactStrategy:
    """Flink's ``FileCompactStrategy``: when held part files are compacted (-1: trigger off)."""

    def __init__(
        self,
        size_threshold: int = -1,
        num_checkpoints_before_compaction: int = -1,
        num_compact_threads: int = -1,
    ) -> None:
        if size_threshold < 0 and num_checkpoints_before_compaction <= 0:
            raise IllegalArgumentException(
                "FileCompactStrategy: at least one trigger condition must be configured "
                "(set_size_threshold or enable_compaction_on_checkpoint)."
            )
        self.size_threshold = size_threshold
        self.num_checkpoints_before_compaction = num_checkpoints_before_compaction
        self.num_compact_threads = num_compact_threads

    @staticmethod
    def builder() -> FileCompactStrategy.Builder:
        return FileCompactStrategy.Builder()

    class Builder:
        """Flink's ``FileCompactStrategy.Builder`` (PyFlink's): triggers and thread count."""

        def __init__(self) -> None:
            self._size_threshold = -1
            self._num_checkpoints = -1
            self._num_threads = -1

        def enable_compaction_on_checkpoint(
            self, num_checkpoints_before_compaction: int
        ) -> FileCompactStrategy.Builder:
            """Compact every ``num_checkpoints_before_compaction`` checkpoints (> 0)."""
            n = num_checkpoints_before_compaction
            if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
                raise IllegalArgumentException(
                    "FileCompactStrategy.Builder.enable_compaction_on_checkpoint(): the number "
                    f"of checkpoints before compaction should be more than 0, got {n!r}."
                )
            self._num_checkpoints = n
            return self

        def set_size_threshold(self, size_threshold: int) -> FileCompactStrategy.Builder:
            """Compact a bucket once its held files reach ``size_threshold`` bytes (-1: off)."""
            if isinstance(size_threshold, bool) or not isinstance(size_threshold, int):
                raise IllegalArgumentException(
                    "FileCompactStrategy.Builder.set_size_threshold() needs an int (bytes), "
                    f"got {size_threshold!r}."
                )
            self._size_threshold = size_threshold
            return self

        def set_num_compact_threads(self, num_compact_threads: int) -> FileCompactStrategy.Builder:
            """Flink's compactor thread count (> 0); pyflowkit compacts in the writer's task."""
            n = num_compact_threads
            if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
                raise IllegalArgumentException(
                    "FileCompactStrategy.Builder.set_num_compact_threads(): compact threads "
                    f"should be more than 0, got {n!r}."
                )
            self._num_threads = n
            return self

        def build(self) -> FileCompactStrategy:
            return FileCompactStrategy(
                self._size_threshold, self._num_checkpoints, self._num_threads
            )

    def __repr__(self) -> str:
        return (
            f"FileCompactStrategy(size_threshold={self.size_threshold}, "
            f"num_checkpoints_before_compaction={self.num_checkpoints_before_compaction}, "
            f"num_compact_threads={self.num_compact_threads})"
        )


class FileCompactor:
    """Flink's ``FileCompactor``: writes the content of its input files into one output."""

    single_input = False  # IdenticalFileCompactor: one output per input file

    @staticmethod
    def concat_file_compactor(file_delimiter: bytes | None = None) -> ConcatFileCompactor:
        """The files one after another, ``file_delimiter`` between neighbours if given."""
        return ConcatFileCompactor(file_delimiter)

    @staticmethod
    def identical_file_compactor() -> IdenticalFileCompactor:
        """A copy of the only input file (each held file is compacted on its own)."""
        return IdenticalFileCompactor()

    def compact(self, inputs: Sequence[str], output: str) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement compact(inputs, output)")


class ConcatFileCompactor(FileCompactor):
    """Flink's ``ConcatFileCompactor``: the inputs one after another, ``file_delimiter``
    between neighbours."""

    def __init__(self, file_delimiter: bytes | None = None) -> None:
        if file_delimiter is not None and not isinstance(file_delimiter, bytes | bytearray):
            raise IllegalArgumentException(
                f"FileCompactor.concat_file_compactor(): file_delimiter must be bytes, "
                f"got {file_delimiter!r}."
            )
        self.file_delimiter = bytes(file_delimiter) if file_delimiter else None

    def compact(self, inputs: Sequence[str], output: str) -> None:
        with open(output, "wb") as out:
            for i, path in enumerate(inputs):
                if i and self.file_delimiter:
                    out.write(self.file_delimiter)
                with open(path, "rb") as f:
                    while chunk := f.read(1 << 20):
                        out.write(chunk)

    def __repr__(self) -> str:
        return f"ConcatFileCompactor({self.file_delimiter!r})"


class IdenticalFileCompactor(ConcatFileCompactor):
    """Flink's ``IdenticalFileCompactor``: copies its only input file."""

    single_input = True

    def __init__(self) -> None:
        super().__init__(None)

    def compact(self, inputs: Sequence[str], output: str) -> None:
        if len(inputs) != 1:
            raise IllegalArgumentException(
                f"IdenticalFileCompactor can only copy one input file, got {len(inputs)}."
            )
        super().compact(inputs, output)

    def __repr__(self) -> str:
        return "IdenticalFileCompactor()"


class CompactCoordinator:
    """One writer subtask's held pending files per bucket and the compactions they trigger.

    A held file is ``[temp path, final path, size]``; a compaction's committable is
    ``[compacted temp path, compacted final path, [input temp paths to remove]]``.
    """

    def __init__(self, strategy: FileCompactStrategy, compactor: FileCompactor) -> None:
        self.strategy = strategy
        self.compactor = compactor
        self.held: dict[str, list[list[Any]]] = {}
        self.checkpoints = 0

    def add(self, bucket_id: str, committable: Sequence[Any]) -> None:
        temp, final = committable[0], committable[1]
        self.held.setdefault(bucket_id, []).append([temp, final, os.path.getsize(temp)])

    def on_checkpoint(self, flush: bool) -> list[list[Any]]:
        """The compactions due now: every bucket at the end of input or every N-th
        checkpoint, else the buckets whose held size reached the threshold."""
        strategy = self.strategy
        every = strategy.num_checkpoints_before_compaction
        if not flush:
            self.checkpoints += 1
        fire_all = flush or (every > 0 and self.checkpoints % every == 0)
        out: list[list[Any]] = []
        for bucket_id in list(self.held):
            files = self.held[bucket_id]
            size = sum(f[2] for f in files)
            if fire_all or 0 <= strategy.size_threshold <= size:
                del self.held[bucket_id]
                out.extend(self._compact(files))
        return out

    def _compact(self, files: list[list[Any]]) -> list[list[Any]]:
        groups = [[f] for f in files] if self.compactor.single_input else [files]
        out: list[list[Any]] = []
        for group in groups:
            head, name = os.path.split(group[0][1])
            final = os.path.join(head, COMPACTED_PREFIX + name)
            temp = os.path.join(head, f".{COMPACTED_PREFIX}{name}.inprogress")
            inputs = [f[0] for f in group]
            if all(os.path.exists(p) for p in inputs):
                self.compactor.compact(inputs, temp)
            elif not os.path.exists(temp) and not os.path.exists(final):
                missing = [p for p in inputs if not os.path.exists(p)]
                raise IllegalArgumentException(
                    f"FileSink compaction cannot read the pending files {missing!r}: they are gone."
                )
            out.append([temp, final, inputs])
        return out

    # ---- writer state ----
    def snapshot(self) -> list[dict[str, Any]]:
        return [
            {"compacting": bucket_id, "files": [list(f) for f in files], "n": self.checkpoints}
            for bucket_id, files in self.held.items()
        ]

    def restore(self, entry: dict[str, Any]) -> None:
        self.held.setdefault(str(entry["compacting"]), []).extend(
            [str(t), str(f), int(s)] for t, f, s in entry["files"]
        )
        self.checkpoints = max(self.checkpoints, int(entry.get("n", 0)))
