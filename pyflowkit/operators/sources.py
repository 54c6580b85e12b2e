"""Splittable, positional, checkpointable source readers behind ``StreamSource``.

A *source* describes what to read (``CollectionSource``, ``StatefulSequenceSource``,
``NumberSequenceSource``, ``DataGeneratorSource``, ``TextFileSource``, a user ``SourceFunction``);
``create_reader(subtask_index, parallelism)`` gives one subtask's ``SourceReader`` with
``poll(max_records) -> [(value, timestamp)]`` (``poll_values``: the same as columns),
``is_finished()``, ``snapshot_position()`` and ``restore_position(position)`` (positions are
plain ints, so they survive a JSON savepoint).
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pyflowkit.datastream.functions import CheckpointedFunction, SourceFunction
from pyflowkit.errors import IllegalArgumentException
from pyflowkit.operators.legacy_source_thread import LegacySourceFunctionThread

# the list state of a CheckpointedFunction source: what its reader read ahead of the emitted records
READ_AHEAD_STATE = "source-function-read-ahead"


class SourceWatermark:
    """A watermark a user ``SourceFunction`` emitted, in the reader's output stream."""

    __slots__ = ("timestamp",)

    def __init__(self, timestamp: int) -> None:
        self.timestamp = timestamp


class SourcePause:
    """A pause a user ``SourceFunction`` took between records (``ctx.sleep(millis)``), in the
    reader's output stream; it is not a record and has no position."""

    __slots__ = ("millis",)

    def __init__(self, millis: int) -> None:
        self.millis = millis


class SourceReader:
    """One subtask's reader: positional, so a restart or restore can resume exactly."""

    may_emit_watermarks = False

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        raise NotImplementedError

    def take_pause(self) -> int:
        """Milliseconds the source slept where the last ``poll`` stopped (0: none); reading it
        clears it. The simulated cluster waits that long on its clock, Spark does not wait."""
        return 0

    def poll_values(self, max_records: int) -> tuple[list[Any], list[int | None] | None]:
        """``poll`` as columns: (values, timestamps), timestamps None when no record has one."""
        records = self.poll(max_records)
        values = [v for v, _ in records]
        stamps = [ts for _, ts in records]
        return values, None if stamps.count(None) == len(stamps) else stamps

    def is_finished(self) -> bool:
        raise NotImplementedError

    def snapshot_position(self) -> int:
        raise NotImplementedError

    def restore_position(self, position: int) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Release what the reader holds (e.g. a source thread); called on ``dispose``."""


class ListReader(SourceReader):
    """Reads a materialised list of ``(value, timestamp)`` in order (held as columns)."""

    def __init__(self, records: Sequence[tuple[Any, int | None]]) -> None:
        values = [v for v, _ in records]
        stamps = [ts for _, ts in records]
        self._init(values, None if stamps.count(None) == len(stamps) else stamps)

    @classmethod
    def of_values(
        cls, values: Sequence[Any], timestamps: Sequence[int | None] | None = None
    ) -> ListReader:
        """A reader of ``values`` (``timestamps`` None: no record has one), without pairs."""
        reader = cls.__new__(cls)
        reader._init(list(values), None if timestamps is None else list(timestamps))
        return reader

    def _init(self, values: list[Any], timestamps: list[int | None] | None) -> None:
        if timestamps is not None and len(timestamps) != len(values):
            raise IllegalArgumentException(
                f"ListReader: {len(values)} values but {len(timestamps)} timestamps."
            )
        self.values = values
        self.timestamps = timestamps
        self.position = 0

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        values, stamps = self.poll_values(max_records)
        return list(zip(values, [None] * len(values) if stamps is None else stamps, strict=True))

    def poll_values(self, max_records: int) -> tuple[list[Any], list[int | None] | None]:
        start = self.position
        end = min(len(self.values), start + max_records)
        self.position = end
        stamps = self.timestamps
        return self.values[start:end], None if stamps is None else stamps[start:end]

    def is_finished(self) -> bool:
        return self.position >= len(self.values)

    def snapshot_position(self) -> int:
        return self.position

    def restore_position(self, position: int) -> None:
        if not 0 <= position <= len(self.values):
            raise IllegalArgumentException(
                f"Cannot restore a source reader to position {position}; it has "
                f"{len(self.values)} records."
            )
        self.position = position


class RangeReader(SourceReader):
    """Reads ``f(i)`` for ``i`` in an arithmetic range (numbers, generated data)."""

    def __init__(self, indices: range, fn: Callable[[int], Any] | None = None) -> None:
        self.indices = indices
        self.fn = fn
        self.position = 0

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        values, _ = self.poll_values(max_records)
        return [(v, None) for v in values]

    def poll_values(self, max_records: int) -> tuple[list[Any], None]:
        start = self.position
        end = min(len(self.indices), start + max_records)
        self.position = end
        part = self.indices[start:end]
        fn = self.fn
        return (list(part) if fn is None else [fn(i) for i in part]), None

    def is_finished(self) -> bool:
        return self.position >= len(self.indices)

    def snapshot_position(self) -> int:
        return self.position

    def restore_position(self, position: int) -> None:
        if not 0 <= position <= len(self.indices):
            raise IllegalArgumentException(
                f"Cannot restore a source reader to position {position} of {len(self.indices)}."
            )
        self.position = position


class Source:
    """What to read; ``is_parallel`` False forces parallelism 1 (Flink's non-parallel sources)."""

    is_parallel = True

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        raise NotImplementedError


class CollectionSource(Source):
    """Flink's ``FromElementsFunction`` (``from_collection``): non-parallel, in order."""

    is_parallel = False

    def __init__(self, elements: Sequence[Any]) -> None:
        self.elements = list(elements)

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        if parallelism != 1:
            raise IllegalArgumentException(
                "The parallelism of non parallel operator must be 1. 'Collection Source' "
                f"was asked to run with parallelism {parallelism}."
            )
        return ListReader.of_values(self.elements)


class CachedPartitionsSource(Source):
    """The ``CacheRead`` source of a cached ``DataStream``: subtask i replays the records producer
    subtask i wrote (Flink's ``IdentityStreamOperator`` over a cluster dataset's partition)."""

    def __init__(self, partitions: Sequence[Sequence[Any]]) -> None:
        self.partitions = [list(p) for p in partitions]

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        if parallelism != len(self.partitions):
            raise IllegalArgumentException(
                f"CacheRead has {len(self.partitions)} cached partitions and was asked to run "
                f"with parallelism {parallelism}; it runs with the cached stream's parallelism."
            )
        return ListReader.of_values(self.partitions[subtask_index])


class StatefulSequenceSource(Source):
    """Flink 1.11's ``StatefulSequenceSource`` (``generate_sequence``): subtask i gets
    ``start + i``, ``start + i + p``, … (strided by the parallelism)."""

    def __init__(self, start: int, end: int) -> None:
        if start > end:
            raise IllegalArgumentException(
                f"Sequence Source: start ({start}) must not be greater than end ({end})."
            )
        self.start = start
        self.end = end

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        return StatefulSequenceReader(range(self.start + subtask_index, self.end + 1, parallelism))


SEQUENCE_STATE = "stateful-sequence-source-state"


def arithmetic_runs(values: Sequence[int]) -> list[range]:
    """``values`` in order as greedy maximal arithmetic ranges (restored values stay lazy)."""
    runs: list[range] = []
    i, n = 0, len(values)
    while i < n:
        j, step = i + 1, 1  # the run is values[i:j]
        if j < n and values[j] != values[i]:
            step = values[j] - values[i]
            while j < n and values[j] - values[j - 1] == step:
                j += 1
        runs.append(range(values[i], values[j - 1] + step, step))
        i = j
    return runs


class StatefulSequenceReader(SourceReader):
    """``StatefulSequenceSource``'s ``valuesToEmit``, held as arithmetic ranges.

    Mirrors Flink 1.11's ``StatefulSequenceSource.initializeState/snapshotState``: the checkpointed
    state (``state_name``) is every value still to emit, one list-state entry each, so a restore at
    another parallelism hands each new subtask its share of them (it emits them in state order)."""

    state_name = SEQUENCE_STATE

    def __init__(self, values: range) -> None:
        self.initial = values
        self.runs: list[range] = [values] if len(values) else []
        self.position = 0  # values emitted since the values were set

    def poll_values(self, max_records: int) -> tuple[list[Any], None]:
        out: list[Any] = []
        runs = self.runs
        while runs and len(out) < max_records:
            run, take = runs[0], max_records - len(out)
            out.extend(run[:take])
            if take >= len(run):
                runs.pop(0)
            else:
                runs[0] = run[take:]
        self.position += len(out)
        return out, None

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        values, _ = self.poll_values(max_records)
        return [(v, None) for v in values]

    def is_finished(self) -> bool:
        return not self.runs

    def snapshot_position(self) -> int:
        return self.position

    def restore_position(self, position: int) -> None:
        """Skip ``position`` values of this subtask's initial values (an older savepoint's
        positional state, restored at the same parallelism)."""
        if not 0 <= position <= len(self.initial):
            raise IllegalArgumentException(
                f"Cannot restore a Sequence Source reader to position {position} of "
                f"{len(self.initial)}."
            )
        rest = self.initial[position:]
        self.runs = [rest] if len(rest) else []
        self.position = position

    def snapshot_state(self) -> list[int]:
        """``snapshotState``: the values still to emit, in order."""
        return [v for run in self.runs for v in run]

    def restore_state(self, values: Sequence[int]) -> None:
        """``initializeState`` on restore: emit exactly the restored ``values``, in order."""
        if any(isinstance(v, bool) or not isinstance(v, int) for v in values):
            raise IllegalArgumentException(
                f"Sequence Source cannot restore '{SEQUENCE_STATE}': its entries must be ints."
            )
        self.runs = arithmetic_runs(list(values))
        self.position = 0


def split_number_range(start: int, end: int, num_splits: int) -> list[tuple[int, int]]:
    """``NumberSequenceSource.splitNumberRange``: contiguous splits, the first ones one longer."""
    total = end - start + 1
    per, remainder = divmod(total, num_splits)
    splits, num = [], start
    for i in range(num_splits):
        step = per + 1 if i < remainder else per
        splits.append((num, num + step - 1))
        num += step
    return splits


class NumberSequenceSource(Source):
    """Flink's FLIP-27 ``NumberSequenceSource``: split ``i`` of ``split_number_range`` → subtask i."""

    def __init__(self, start: int, end: int) -> None:
        if start > end:
            raise IllegalArgumentException(
                f"NumberSequenceSource: start ({start}) must not be greater than end ({end})."
            )
        self.start = start
        self.end = end

    def get_from(self) -> int:
        return self.start

    def get_to(self) -> int:
        return self.end

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        lo, hi = split_number_range(self.start, self.end, parallelism)[subtask_index]
        return NumberSequenceReader([[str(subtask_index), lo, hi]])


class NumberSequenceReader(SourceReader):
    """The reader of ``NumberSequenceSource``'s ``NumberSequenceSplit``s ``[id, from, to]``.

    Its checkpointed state is its remaining splits (``from`` advanced past what was read), one
    list-state entry each, so a restore at another parallelism redistributes them as Flink's
    ``SourceOperator`` does (a new subtask may get several splits, or none)."""

    def __init__(self, splits: Sequence[Sequence[Any]]) -> None:
        self._set(splits)

    def _set(self, splits: Sequence[Sequence[Any]]) -> None:
        self.splits = [[str(i), int(lo), int(hi)] for i, lo, hi in splits if int(lo) <= int(hi)]
        self.position = 0  # records read since the splits were set

    def poll_values(self, max_records: int) -> tuple[list[Any], None]:
        return self.take_indices(max_records), None

    def take_indices(self, max_records: int) -> list[int]:
        """The next ``max_records`` numbers of the splits, advancing them."""
        values: list[int] = []
        splits = self.splits
        while splits and len(values) < max_records:
            split = splits[0]
            lo, hi = split[1], split[2]
            take = min(hi - lo + 1, max_records - len(values))
            values.extend(range(lo, lo + take))
            if lo + take > hi:
                splits.pop(0)
            else:
                split[1] = lo + take
        self.position += len(values)
        return values

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        values, _ = self.poll_values(max_records)
        return [(v, None) for v in values]

    def is_finished(self) -> bool:
        return not self.splits

    def snapshot_position(self) -> int:
        return self.position

    def restore_position(self, position: int) -> None:
        """Skip ``position`` records of the assigned splits (a restore at the same parallelism)."""
        if position < 0:
            raise IllegalArgumentException(
                f"Cannot restore a source reader to position {position}."
            )
        remaining = position
        while remaining and self.splits:
            self.take_indices(remaining)
            remaining = position - self.position
        self.position = position

    def snapshot_splits(self) -> list[list[Any]]:
        """The unread part of each split (``NumberSequenceSplit`` with an advanced ``from``)."""
        return [list(split) for split in self.splits]

    def restore_splits(self, entries: Sequence[Sequence[Any]], seen_paths: Sequence[str]) -> None:
        """The splits this subtask got after a restore, in split id order (a single int is the
        positional state of older savepoints: records read of this subtask's split)."""
        if len(entries) == 1 and isinstance(entries[0], int):
            self.restore_position(entries[0])
            return
        self._set(sorted(entries, key=lambda e: int(e[0]) if str(e[0]).isdigit() else 0))


class DataGeneratorSource(Source):
    """Flink's ``DataGeneratorSource(generator_function, count)``: ``f(i)`` for i in [0, count),
    split across subtasks as ``NumberSequenceSource`` splits."""

    def __init__(self, generator_function: Callable[[int], Any], count: int) -> None:
        if count < 0:
            raise IllegalArgumentException(f"DataGeneratorSource count must be >= 0, got {count}.")
        fn = getattr(generator_function, "map", generator_function)
        if not callable(fn):
            raise IllegalArgumentException(
                f"DataGeneratorSource needs a callable index -> value, got {generator_function!r}."
            )
        self.generator_function = fn
        self.count = count

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        if self.count == 0:
            return DataGeneratorReader([], self.generator_function)
        lo, hi = split_number_range(0, self.count - 1, parallelism)[subtask_index]
        return DataGeneratorReader([[str(subtask_index), lo, hi]], self.generator_function)


class DataGeneratorReader(NumberSequenceReader):
    """``DataGeneratorSource``'s reader: ``f(i)`` for the numbers of its ``NumberSequenceSplit``s.

    Mirrors Flink's ``GeneratingIteratorSourceReader``: its state is its splits' unread parts (as
    ``NumberSequenceReader``), so a restore at another parallelism redistributes them."""

    def __init__(
        self, splits: Sequence[Sequence[Any]], generator_function: Callable[[int], Any]
    ) -> None:
        super().__init__(splits)
        self.generator_function = generator_function

    def poll_values(self, max_records: int) -> tuple[list[Any], None]:
        fn = self.generator_function
        return [fn(i) for i in self.take_indices(max_records)], None


class TextFileSource(Source):
    """``read_text_file``: the file's lines (without line breaks); subtask i reads the i-th of
    ``parallelism`` contiguous line ranges (stands for Flink's file splits)."""

    def __init__(self, file_path: str, charset_name: str = "UTF-8") -> None:
        self.file_path = file_path
        self.charset_name = charset_name

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        try:
            with open(self.file_path, encoding=self.charset_name) as f:
                lines = f.read().splitlines()
        except OSError as exc:
            raise IllegalArgumentException(
                f"Source 'Custom File Source' cannot read {self.file_path!r}: {exc}."
            ) from exc
        if not lines:
            return ListReader([])
        lo, hi = split_number_range(0, len(lines) - 1, parallelism)[subtask_index]
        return ListReader.of_values(lines[lo : hi + 1])


class _BufferingSourceContext(SourceFunction.SourceContext):
    def __init__(self, sink: list[tuple[Any, int | None]]) -> None:
        self.sink = sink
        self.pauses = 0  # SourcePauses in ``sink``

    def collect(self, element: Any) -> None:
        self.sink.append((element, None))

    def collect_with_timestamp(self, element: Any, timestamp: int) -> None:
        self.sink.append((element, timestamp))

    def emit_watermark(self, watermark: Any) -> None:
        ts = watermark if isinstance(watermark, int) else watermark.timestamp
        self.sink.append((SourceWatermark(ts), None))

    def mark_as_temporarily_idle(self) -> None:
        pass

    def get_checkpoint_lock(self) -> object:
        return self

    def sleep(self, millis: int) -> None:
        """The source pauses ``millis`` ms after the records collected so far (a Java source's
        ``Thread.sleep`` in its run loop): simulated processing time on the MiniCluster."""
        if type(millis) is not int or millis < 0:
            raise IllegalArgumentException(
                f"SourceContext.sleep() needs a non-negative int of milliseconds, got {millis!r}."
            )
        if millis:
            self.sink.append((SourcePause(millis), None))
            self.pauses += 1


class _ThreadedSourceContext(_BufferingSourceContext):
    """The context of a plain ``run`` on its ``LegacySourceFunctionThread``: before each record,
    watermark or pause (once the poll's records are in) the thread waits for the reader's next
    poll. So ``collect`` returns as Flink's does, and what ``run`` does after it (e.g. advance
    the offset a ``CheckpointedFunction`` snapshots) happens before the task can checkpoint."""

    def __init__(self, sink: list[tuple[Any, int | None]]) -> None:
        super().__init__(sink)
        self.thread: LegacySourceFunctionThread | None = None

    def collect(self, element: Any) -> None:
        self.thread.checkpoint()  # type: ignore[union-attr]
        super().collect(element)

    def collect_with_timestamp(self, element: Any, timestamp: int) -> None:
        self.thread.checkpoint()  # type: ignore[union-attr]
        super().collect_with_timestamp(element, timestamp)

    def emit_watermark(self, watermark: Any) -> None:
        self.thread.checkpoint()  # type: ignore[union-attr]
        super().emit_watermark(watermark)

    def sleep(self, millis: int) -> None:
        self.thread.checkpoint()  # type: ignore[union-attr]
        super().sleep(millis)


class SourceFunctionReader(SourceReader):
    """Runs a user ``SourceFunction``: a generator ``run`` is stepped lazily (a step that emits
    nothing ends a poll early); a plain ``run`` runs on its own ``LegacySourceFunctionThread``
    (as in Flink), handing over to the reader once a poll's records are collected, so an endless
    ``while running: ctx.collect(…)`` loop works too. Positions count records
    (and watermarks) from the function's start; the reader holds only what it has read ahead and
    not yet handed out, so an endless source runs in flat memory. A restore runs the function
    again and skips to the position (a reader is never rewound: restores and replays build a new
    one), unless the function's ``positional_replay`` is False (it reads live data, e.g. a socket:
    it restarts reading what arrives now, as a stateless Flink source does)."""

    may_emit_watermarks = True

    def __init__(self, function: SourceFunction) -> None:
        self.function = function
        if isinstance(function, CheckpointedFunction):
            # it keeps its own position (its state, restored before run starts): no replay;
            # what was read ahead of the emitted records is the reader's list state
            self.state_name = READ_AHEAD_STATE
        self.buffer: list[tuple[Any, int | None]] = []  # read ahead, starting at ``position``
        self._threaded = not inspect.isgeneratorfunction(getattr(function, "run", None))
        self.ctx = (_ThreadedSourceContext if self._threaded else _BufferingSourceContext)(
            self.buffer
        )
        self.position = 0
        self._gen: Iterator[Any] | None = None
        self._thread: LegacySourceFunctionThread | None = None
        self._done = False
        self._pause = 0  # ms of the pause the last poll stopped at

    def close(self) -> None:
        """Cancel and unwind a plain ``run`` that is still running (also when the reader is
        dropped without closing, e.g. a restore or rewind builds a new one)."""
        if self._thread is not None:
            self._thread.close()

    def _step(self) -> bool:
        """Run the function one step further (its records land in ``buffer``); False: ended."""
        if self._done:
            return False
        if self._gen is None:  # a generator function's run (plain ones run on a thread)
            self._gen = self.function.run(self.ctx)
            return True
        try:
            item = next(self._gen)
        except StopIteration:
            self._done = True
            return False
        if item is not None:
            self.buffer.append((item, None))
        return True

    def _run_thread(self, wanted: int) -> None:
        """Let the plain ``run`` go on (started on first use) until ``wanted`` are buffered."""
        thread = self._thread
        if thread is None:
            thread = self._thread = LegacySourceFunctionThread(self.function, self.ctx, self.buffer)
            self.ctx.thread = thread  # type: ignore[attr-defined]
            weakref.finalize(self, thread.abandon)
        thread.resume(wanted)
        self._done = thread.done

    def _fill(self, wanted: int) -> None:
        """Read ahead until ``wanted`` records are buffered, the function ends, or one of its
        steps emits nothing (nothing is available now, e.g. a quiet socket)."""
        if self._threaded:
            if not self._done and len(self.buffer) < wanted:
                self._run_thread(wanted)
            return
        if self._gen is None and not self._step():
            return
        while len(self.buffer) < wanted:
            before = len(self.buffer)
            if not self._step() or len(self.buffer) == before:
                return

    def poll(self, max_records: int) -> list[tuple[Any, int | None]]:
        """Up to ``max_records`` records; a pause ends the batch (``take_pause`` tells)."""
        self._fill(max_records)
        out = self.buffer[:max_records]
        if self.ctx.pauses:
            for i, (value, _) in enumerate(out):
                if type(value) is SourcePause:
                    self.ctx.pauses -= 1
                    self._pause += value.millis
                    out = out[:i]
                    del self.buffer[: i + 1]
                    self.position += i
                    return out
        del self.buffer[: len(out)]  # in place: the context appends to this list
        self.position += len(out)
        return out

    def take_pause(self) -> int:
        pause, self._pause = self._pause, 0
        return pause

    def retained(self) -> int:
        """Records read from the function and not yet handed out (the reader's memory)."""
        return len(self.buffer)

    def is_finished(self) -> bool:
        if self.buffer:
            return False
        self._fill(1)
        return self._done and not self.buffer

    def snapshot_position(self) -> int:
        return self.position

    def use_function(self, function: SourceFunction) -> None:
        """Run ``function`` instead (a subtask's copy of a ``CheckpointedFunction``; before
        ``run`` starts)."""
        self.function = function

    def snapshot_state(self) -> list[list[Any]]:
        """A ``CheckpointedFunction`` source's records and watermarks read ahead of what was
        emitted (its own state covers them): ``["r", value, ts]`` / ``["w", ts]`` entries."""
        out: list[list[Any]] = []
        for value, ts in self.buffer:
            if type(value) is SourceWatermark:
                out.append(["w", value.timestamp])
            elif type(value) is not SourcePause:  # a pause before the snapshot was taken
                out.append(["r", value, ts])
        return out

    def restore_state(self, entries: list[list[Any]]) -> None:
        """Put back what ``snapshot_state`` kept; they are emitted before ``run`` continues."""
        self.buffer[:0] = [
            (SourceWatermark(e[1]), None) if e[0] == "w" else (e[1], e[2]) for e in entries
        ]

    def restore_position(self, position: int) -> None:
        """Skip the first ``position`` records (fewer if the function ends before); pauses
        on the way and right after them are skipped too (taken before the restore)."""
        if not getattr(self.function, "positional_replay", True):
            self.position = position
            return
        while self.position < position:
            self._fill(1)
            if not self.buffer:
                if self._done:
                    break
                continue
            skip = min(len(self.buffer), position - self.position)
            skipped = self.buffer[:skip]
            del self.buffer[:skip]
            pauses = sum(type(v) is SourcePause for v, _ in skipped) if self.ctx.pauses else 0
            self.ctx.pauses -= pauses
            self.position += skip - pauses
        while self.ctx.pauses and self.buffer and type(self.buffer[0][0]) is SourcePause:
            del self.buffer[0]  # the pause after the last record skipped was taken, too
            self.ctx.pauses -= 1


class SourceFunctionSource(Source):
    """A user ``SourceFunction`` (``add_source``); parallel iff ``is_parallel`` is set."""

    def __init__(self, function: SourceFunction) -> None:
        if not callable(getattr(function, "run", None)):
            raise IllegalArgumentException(
                f"add_source needs a SourceFunction with run(ctx), got {function!r}."
            )
        self.function = function
        self.is_parallel = bool(getattr(function, "is_parallel", False))

    def create_reader(self, subtask_index: int, parallelism: int) -> SourceReader:
        return SourceFunctionReader(self.function)


def as_source(obj: Any) -> Source:
    """Accept a ``Source``, a ``SourceFunction`` or a plain sequence (a collection)."""
    if isinstance(obj, Source):
        return obj
    if callable(getattr(obj, "create_reader", None)):
        return obj
    if callable(getattr(obj, "run", None)):
        return SourceFunctionSource(obj)
    if isinstance(obj, list | tuple):
        return CollectionSource(obj)
    raise IllegalArgumentException(f"Not a source: {obj!r}.")
