"""A running unbounded job on Spark: one Structured Streaming query and its sinks on the driver.

Stands for Flink's ``JobMaster`` of a streaming job as a client sees it: the job id, its
``JobStatus`` (CREATED, RUNNING, FINISHED, CANCELED, FAILED), a checkpoint per committed
micro-batch in the checkpoint location, print-sink lines printed on the driver as each batch
commits (Flink's print format, written by the print operator) and collect-sink records handed to
``execute_and_collect``'s iterator.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

from pyflowkit.common.fs_path import local_path
from pyflowkit.errors import JobException, JobExecutionException
from pyflowkit.graph.restart_backoff import create_restart_backoff_strategy
from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.spark import records
from pyflowkit.spark.streaming_plan import (
    StreamingOptions,
    StreamingPlan,
    build_streaming_frame,
    ensure_rocksdb,
)
from pyflowkit.spark.streaming_processor import PROGRESS
from pyflowkit.spark.streaming_savepoint import (
    cut_logs,
    last_batch,
    planned_batch,
    restore_into,
    write_savepoint,
)
from pyflowkit.spark.streaming_source import DRAIN, PAUSE

CHECKPOINTS_DIR = "state.checkpoints.dir"
SAVEPOINT_PATH = "execution.savepoint.path"
# the restart guard on Spark (the simulated cluster's is pyflowkit.local.max-restarts): restarts
# in a row without a completed micro-batch before the job fails; "none" turns it off
MAX_RESTARTS_KEY = "pyflowkit.spark.max-restarts"
DEFAULT_MAX_RESTARTS = 10


def max_restarts_setting(configuration: dict[str, str]) -> int | None:
    """``pyflowkit.spark.max-restarts``: an int >= 0, or ``none`` (no guard)."""
    value = str(configuration.get(MAX_RESTARTS_KEY, DEFAULT_MAX_RESTARTS)).strip()
    if value.lower() == "none":
        return None
    if not value.isdigit():
        raise ValueError(f"'{MAX_RESTARTS_KEY}' must be an int >= 0 or 'none', got {value!r}.")
    return int(value)


def failure_line(error: BaseException, job_graph: Any = None) -> str:
    """One line for a query failure: the user's exception and the subtask it failed in, else
    the failing Spark source as Flink names it, else the first line of Spark's error."""
    from pyflowkit.spark.executor import user_error_message
    from pyflowkit.spark.streaming_failures import failure_text

    carried = user_error_message(error)
    if carried is None:
        return failure_text(job_graph, error)
    tb, where = carried
    return f"{tb.strip().splitlines()[-1]} in {where}"


IGNORE_UNCLAIMED = "execution.savepoint.ignore-unclaimed-state"  # --allowNonRestoredState
DEFAULT_TRIGGER_MS = 1000
_END = object()  # end of the collect queue
PRINT_WINDOW = 100_000  # print lines a job keeps (the last ones); ``printed`` counts them all


@dataclass
class StreamingSettings:
    """How the query runs: trigger (ms, or available-now), checkpoint location, read budget."""

    trigger_ms: int = DEFAULT_TRIGGER_MS
    available_now: bool = False
    checkpoint_location: str | None = None
    options: StreamingOptions | None = None


def checkpoint_location(configuration: dict[str, str], job_id: str) -> tuple[str, bool]:
    """``state.checkpoints.dir``/<job id>, or a temporary directory (True: temporary)."""
    base = configuration.get(CHECKPOINTS_DIR)
    if not base:
        return tempfile.mkdtemp(prefix=f"pyflowkit-checkpoints-{job_id[:8]}-"), True
    base = local_path(base, CHECKPOINTS_DIR)
    path = os.path.join(base, job_id)
    try:
        os.makedirs(path, exist_ok=True)
        probe = os.path.join(path, ".pyflowkit-write-probe")
        with open(probe, "w") as f:
            f.write("")
        os.remove(probe)
    except OSError as exc:
        raise ValueError(
            f"Cannot write checkpoints to {path!r} ({exc.strerror or exc}). Set "
            f"'{CHECKPOINTS_DIR}' to a writable directory (or leave it unset for a temporary one)."
        ) from None
    return path, False


def settings_from(
    env_settings: Any, configuration: dict[str, str], job_id: str
) -> StreamingSettings:
    """Trigger = the checkpoint interval (``enable_checkpointing``), else 1 s."""
    interval = 0
    checkpoint = getattr(env_settings, "checkpoint", None)
    if checkpoint is not None:
        interval = int(getattr(checkpoint, "interval", 0) or 0)
    options = StreamingOptions()
    if "pyflowkit.spark.streaming.max-records-per-batch" in configuration:
        options.max_records = int(configuration["pyflowkit.spark.streaming.max-records-per-batch"])
    return StreamingSettings(
        trigger_ms=interval if interval > 0 else DEFAULT_TRIGGER_MS,
        available_now=configuration.get("pyflowkit.spark.streaming.trigger") == "available-now",
        options=options,
    )


def _committed(location: str) -> int:
    """The last committed micro-batch, -1 before the first."""
    last = last_batch(location)
    return -1 if last is None else last


class StreamingJob:
    """One unbounded job running as a Structured Streaming query on ``session``."""

    def __init__(
        self,
        session: Any,
        job_graph: Any,
        configuration: dict[str, str],
        settings: StreamingSettings,
        print_output: bool = True,
    ) -> None:
        self.session = session
        self.job_graph = job_graph
        self.configuration = configuration
        self.settings = settings
        self.print_output = print_output
        self.job_id = getattr(job_graph, "job_id", None) or uuid.uuid4().hex
        self.job_name = job_graph.job_name
        self.status = "CREATED"
        self.query: Any = None
        self.plan: StreamingPlan | None = None
        self.error: BaseException | None = None
        self.print_lines: list[str] = []
        self.results: dict[str, list[Any]] = {}
        self.results_by_node: dict[int, list[Any]] = {}
        self.collected: queue.Queue = queue.Queue()
        self.batches = 0
        self.started = 0.0
        self.ended = 0.0
        self._lock = threading.Lock()
        self._poll_lock = threading.Lock()
        self._nodes = {n.id: n for v in job_graph.vertices for n in v.stream_nodes}
        self.checkpoint_location = settings.checkpoint_location or ""
        self.temporary_checkpoints = False
        self.restarts = 0
        self.failure_note = ""
        # the last failure the query restarted after: one line (exception, subtask) and the error
        self.last_failure = ""
        self.last_error: BaseException | None = None
        self._restarts_without_progress = 0
        self._batches_at_restart = 0
        self.max_restarts = max_restarts_setting(configuration)
        self.printed = 0
        self._watermarks: dict[str, dict[int, int]] = {}  # vertex → subtask → input watermark
        self.listeners: list[Any] = []  # called with a StreamingProgress while waiting
        self.metrics: dict[str, dict[str, Any]] = {}  # subtask → its user metrics (latest batch)
        self._savepointing = False  # a savepoint is being copied from the checkpoint location
        # stopping at a batch boundary while batches keep coming (processing-time timers): the
        # output of batches after ``_hold`` is withheld, and they are cut from the logs
        self._hold: int | None = None
        self._emitted = -1  # the last micro-batch whose output reached the driver
        self.checkpoints_discarded = False
        checkpoints = getattr(job_graph, "checkpointing_settings", None)
        interval = getattr(checkpoints, "checkpoint_interval", 0) or 0
        self.restart_strategy = create_restart_backoff_strategy(
            getattr(job_graph, "restart_strategy", None), 0 < interval < LONG_MAX_VALUE
        )

    # ---- lifecycle -----------------------------------------------------------------------------
    def start(self) -> StreamingJob:
        """Build the query and start it (Flink: the job is submitted and RUNNING)."""
        ensure_rocksdb(self.session)
        if not self.checkpoint_location:
            self.checkpoint_location, self.temporary_checkpoints = checkpoint_location(
                self.configuration, self.job_id
            )
        try:
            return self._start()
        except BaseException:
            if self.temporary_checkpoints:  # nothing ran: the job leaves no checkpoint
                shutil.rmtree(self.checkpoint_location, ignore_errors=True)
            raise

    def _start(self) -> StreamingJob:
        savepoint = self.configuration.get(SAVEPOINT_PATH)
        if savepoint:
            savepoint = local_path(savepoint, SAVEPOINT_PATH)
            if last_batch(self.checkpoint_location) is not None:
                raise ValueError(
                    f"Cannot restore savepoint {savepoint!r} into {self.checkpoint_location!r}: "
                    "that checkpoint location already holds a job's checkpoints."
                )
            ignore = str(self.configuration.get(IGNORE_UNCLAIMED, "false")).strip().lower()
            restore_into(savepoint, self.checkpoint_location, self.job_graph, ignore == "true")
        settings = getattr(self.job_graph.stream_graph, "execution_config", None)
        options = self.settings.options or StreamingOptions()
        options.control_dir = self.checkpoint_location
        df, plan = build_streaming_frame(self.session, self.job_graph, settings, options)
        plan.checkpoint_location = self.checkpoint_location
        plan.trigger = self.trigger_text()
        self.plan = plan
        if self.temporary_checkpoints:
            print(
                f"Job {self.job_id}: checkpoints go to {self.checkpoint_location} "
                f"('{CHECKPOINTS_DIR}' is not set: a temporary directory, deleted when the job "
                f"ends unless its retention ({self.retention_policy()}) keeps it).",
                file=sys.stderr,
            )
        writer = (
            df.writeStream.foreachBatch(self._on_batch)
            .option("checkpointLocation", self.checkpoint_location)
            .queryName(f"pyflowkit-{self.job_id[:8]}")
            .outputMode("append")
        )
        # "available now" runs batches back to back until every source has ended: Spark's own
        # availableNow fixes its target offset at the simple reader's first read (one batch)
        interval = 0 if self.settings.available_now else self.settings.trigger_ms
        writer = writer.trigger(processingTime=f"{interval} milliseconds")
        self._writer = writer
        self.started = time.perf_counter()
        self.query = writer.start()
        self.status = "RUNNING"
        return self

    # ---- savepoints ----------------------------------------------------------------------------
    def stop_with_savepoint(self, path: str, drain: bool = False, timeout: float = 120.0) -> str:
        """Flink's stop-with-savepoint: stop at a micro-batch boundary, write the savepoint,
        the job ends FINISHED. With ``drain`` (``flink stop --drain``) the sources end first:
        each emits MAX_WATERMARK (every event-time window and timer fires) and finishes, every
        task ends its input and closes (sinks commit), and the savepoint is taken after that
        last micro-batch; a job resumed from it reads nothing more from those sources."""
        self._require_running("stop_with_savepoint")
        if drain:
            self._check_drainable()
        if os.path.exists(path) and os.listdir(path):  # before the job stops
            raise ValueError(
                f"Savepoint directory {path!r} exists and is not empty; choose a new one."
            )
        self._savepointing = True
        try:
            if drain:
                self._drain(timeout)
            else:
                self._stop_at_batch_boundary(timeout)
            error = self.query.exception()
            if error is not None:  # the query failed while stopping: no savepoint
                self._savepointing = False
                self._fail(error)
                self.raise_if_failed()
            written = write_savepoint(self.checkpoint_location, path, self.job_graph, self.job_id)
            if not drain:  # drained tasks committed at their end of input
                try:
                    self._commit_stopped_sinks()
                except Exception as exc:  # a failing commit fails the job (Flink: the task)
                    self._savepointing = False
                    self._fail(exc)
                    raise
        finally:
            self._savepointing = False
        if self.status in ("RUNNING", "CANCELLING"):
            self._end("FINISHED")
        else:
            self._discard_checkpoints()
        return written

    def _check_drainable(self) -> None:
        """Only sources in pyflowkit's stream reader can end on a drain (Spark's own file and
        socket sources cannot be told to): refused before the job stops."""
        from pyflowkit.spark.streaming_spark_source import spark_source_kind

        for vertex in self.job_graph.vertices:
            kind = None if vertex.inputs else spark_source_kind(vertex)
            if kind is not None:
                raise ValueError(
                    f"stop_with_savepoint(drain=True) is not supported for job {self.job_id}: "
                    f"'{vertex.name}' reads Spark's own {kind.lower()} source, which cannot emit "
                    "MAX_WATERMARK and end. Use drain=False (pending windows stay in the "
                    "savepoint and fire in the resumed job)."
                )

    def _commit_stopped_sinks(self) -> None:
        """The savepoint completed: sinks commit what it pre-committed (Flink's
        ``notifyCheckpointComplete`` before the tasks of a stop-with-savepoint end)."""
        from pyflowkit.spark.streaming_commit import commit_stopped_sinks

        settings = getattr(self.job_graph.stream_graph, "execution_config", None)
        commit_stopped_sinks(self.session, self.checkpoint_location, self.job_graph, settings)

    def _drain(self, timeout: float) -> None:
        """Sources end (drain marker): wait until the micro-batch that ended them committed and
        no other is planned, then stop the query."""
        marker = os.path.join(self.checkpoint_location, DRAIN)
        with open(marker, "w") as f:
            f.write(self.job_id)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.query.awaitTermination(0.05):
                    if self.query.exception() is None or not self._restart(self.query.exception()):
                        break
                    continue  # restarted from its checkpoint: its sources drain too
                if self.sources_ended():
                    active = (self.query.status or {}).get("isTriggerActive", False)
                    if not active and planned_batch(self.checkpoint_location) == last_batch(
                        self.checkpoint_location
                    ):
                        break
            else:
                raise TimeoutError(
                    f"stop_with_savepoint(drain=True): the sources of job {self.job_id} did not "
                    f"end within {timeout:.0f} s."
                )
            self.query.stop()
        finally:
            os.remove(marker)

    def trigger_savepoint(self, path: str) -> str:
        """Flink's ``triggerSavepoint``: pause at a micro-batch boundary, copy the checkpoint,
        go on running (the query restarts from that checkpoint at once)."""
        self._require_running("trigger_savepoint")
        self._stop_at_batch_boundary()
        written = write_savepoint(self.checkpoint_location, path, self.job_graph, self.job_id)
        self.query = self._writer.start()
        return written

    def _stop_at_batch_boundary(self, timeout: float = 120.0) -> None:
        """Sources stop reading (pause marker), the micro-batch in flight commits, then the query
        stops: no output after the savepoint, as Flink's synchronous savepoint.

        A query whose stateful operators keep timers in processing time runs a (no-data) batch at
        every trigger, so it may never be idle: at the first committed boundary the output of
        later batches is withheld, the query stops, and the logs are cut back to the last batch
        whose output was emitted (a resumed query plans the next batch anew from there)."""
        location = self.checkpoint_location
        marker = os.path.join(location, PAUSE)
        with open(marker, "w") as f:
            f.write(self.job_id)
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                active = (self.query.status or {}).get("isTriggerActive", False)
                boundary = planned_batch(location) == last_batch(location)
                if boundary and not active:
                    self.query.stop()
                    return
                if boundary and last_batch(location) is not None and self._can_cut_logs():
                    break
                time.sleep(0.05)
            else:
                self.query.stop()
                return
            with self._lock:
                self._hold = last_batch(location)
                keep = max(self._hold, self._emitted)  # a batch may have emitted meanwhile
            # its commit follows its output at once (batch 0 is a committed batch, not none)
            while time.monotonic() < deadline and _committed(location) < keep:
                time.sleep(0.02)
            self.query.stop()
            cut_logs(location, keep)
        finally:
            with self._lock:
                self._hold = None
            os.remove(marker)

    def _can_cut_logs(self) -> bool:
        """Only pyflowkit's stream readers feed the query (Spark's own file and socket sources
        keep logs of their own, which are not cut)."""
        from pyflowkit.spark.streaming_spark_source import spark_source_kind

        return all(v.inputs or spark_source_kind(v) is None for v in self.job_graph.vertices)

    def _require_running(self, what: str) -> None:
        self.poll(0)
        if self.status != "RUNNING":
            raise ValueError(f"Cannot {what}: job {self.job_id} is {self.status}, not RUNNING.")

    def trigger_text(self) -> str:
        if self.settings.available_now:
            return "as soon as possible until every source has ended (available now)"
        return f"processingTime {self.settings.trigger_ms} ms (the checkpoint interval)"

    def sources_ended(self) -> bool:
        """Every source subtask has ended and its last batch committed (Flink: FINISHED)."""
        progress = self.query.lastProgress if self.query is not None else None
        if not progress:  # no batch ran yet, e.g. resumed from a drained savepoint
            return self._logged_sources_ended()
        sources = progress.get("sources") or []
        if not sources:
            return False
        for source in sources:
            end = source.get("endOffset")
            if isinstance(end, str):
                try:
                    end = json.loads(end)
                except ValueError:
                    return False
            if not isinstance(end, dict) or not all(
                s.get("ended") for s in end.get("subtasks", [{}])
            ):
                return False
        return True

    def _logged_sources_ended(self) -> bool:
        """The last committed batch's offsets (Spark's offset log) say every source ended."""
        location = self.checkpoint_location
        batch = last_batch(location)
        if batch is None or planned_batch(location) != batch:
            return False
        try:
            with open(os.path.join(location, "offsets", str(batch))) as f:
                lines = f.read().splitlines()[2:]  # version, batch metadata, source offsets
            offsets = [json.loads(line) for line in lines if line.strip()]
        except (OSError, ValueError):
            return False
        return bool(offsets) and all(
            isinstance(o, dict) and all(s.get("ended") for s in o.get("subtasks", [{}]))
            for o in offsets
        )

    def poll(self, timeout: float) -> str:
        """Wait up to ``timeout`` s for the job to end; returns the job status. One thread at a
        time drives the query (a restart, with its back-off, happens once)."""
        if self.status in ("FINISHED", "CANCELED", "FAILED"):
            return self.status
        if not self._poll_lock.acquire(timeout=max(timeout, 0.001)):
            return self.status  # another thread polls (or restarts) the query right now
        try:
            return self._poll(timeout)
        finally:
            self._poll_lock.release()

    def _poll(self, timeout: float) -> str:
        if self.status in ("FINISHED", "CANCELED", "FAILED"):
            return self.status
        query = self.query
        try:
            terminated = query.awaitTermination(max(timeout, 0.001))  # 0 is refused
        except Exception as exc:  # the query failed (awaitTermination raises its exception)
            if not (self.status == "RUNNING" and self._restart(exc)):
                self._fail(exc)
            return self.status
        if terminated:
            error = query.exception()
            if error is not None:
                if self.status == "RUNNING" and self._restart(error):
                    return self.status
                self._fail(error)
            else:
                self._end("FINISHED" if self.status == "RUNNING" else self.status)
        elif self.sources_ended():
            query.stop()
            self._end("FINISHED")
        return self.status

    def wait(self, timeout: float | None = None) -> str:
        """Block until the job ends (or ``timeout`` s pass); Ctrl-C cancels it (the job ends
        CANCELED and ``wait`` returns). Listeners get a ``StreamingProgress`` every 0.5 s."""
        deadline = None if timeout is None else time.monotonic() + timeout
        reported = 0.0
        try:
            while self.poll(0.2) in ("RUNNING", "CREATED", "RESTARTING"):
                if self.listeners and time.monotonic() - reported >= 0.5:
                    reported = time.monotonic()
                    self._report()
                if deadline is not None and time.monotonic() >= deadline:
                    break
        except KeyboardInterrupt:
            self.cancel()
        if self.listeners and self.status not in ("RUNNING", "CREATED", "RESTARTING"):
            self._report()
        return self.status

    def keyed_state(self, vertex: str | int, batch_id: int | None = None) -> dict[str, Any]:
        """Operator name → state name → {key: value} of a vertex (by name or index) as its last
        committed micro-batch (or ``batch_id``) left it, read with Spark's state data source —
        the shape ``JobRun.keyed_state_at`` gives on the simulated cluster."""
        from pyflowkit.spark.streaming_state import read_keyed_state

        if self.checkpoints_discarded:
            raise ValueError(
                f"keyed_state: job {self.job_id} ended {self.status} and its temporary "
                f"checkpoints were deleted (retention {self.retention_policy()}). Set "
                f"'{CHECKPOINTS_DIR}' to keep them, or read the state while the job runs."
            )
        vertices = self.job_graph.vertices
        if isinstance(vertex, int):
            jv = vertices[vertex]
        else:
            found = [v for v in vertices if v.name == vertex]
            if not found:
                raise ValueError(
                    f"keyed_state: no vertex named {vertex!r}; the job's vertices are "
                    f"{[v.name for v in vertices]}."
                )
            jv = found[0]
        return read_keyed_state(self.session, self.checkpoint_location, jv, batch_id)

    def progress(self) -> Any:
        """The job's ``StreamingProgress`` now."""
        from pyflowkit.spark.streaming_progress import StreamingProgress

        return StreamingProgress.of(self)

    def _report(self) -> None:
        progress = self.progress()
        for listener in self.listeners:
            listener(progress)

    def flink_watermarks(self) -> dict[str, int]:
        """Per vertex (plan order), the minimum input watermark over its subtasks."""
        with self._lock:
            return {v: min(marks.values()) for v, marks in self._watermarks.items()}

    def metric_values(self) -> dict[str, dict[str, Any]]:
        """Subtask ("Map (1/2)") → its operators' user metrics (identifier → value) as of the
        last micro-batch it took part in (the batch result's ``metrics``, while running)."""
        with self._lock:
            return {task: dict(values) for task, values in sorted(self.metrics.items())}

    def printed_tail(self, n: int) -> tuple[int, list[str]]:
        """(lines printed so far, the last ``n`` of them)."""
        with self._lock:
            return self.printed, self.print_lines[-n:]

    def cancel(self) -> None:
        """Flink's ``cancel``: stop the query (at once); status CANCELED."""
        if self.status in ("FINISHED", "CANCELED", "FAILED"):
            return
        self.status = "CANCELLING"
        if self.query is not None:
            self.query.stop()
        self._end("CANCELED")

    def _restart(self, error: BaseException) -> bool:
        """The restart strategy decides (Flink's ``RestartBackoffTimeStrategy``): restart the
        query from its last checkpoint after the back-off, or let the job fail. While it waits
        the job is RESTARTING and ``last_failure`` names the cause (exception, subtask); the
        restart guard fails a job that keeps failing without completing a micro-batch."""
        strategy = self.restart_strategy
        strategy.notify_failure(int(time.time() * 1000))
        name = f"{self.job_name} ({self.job_id})"
        self.last_error, self.last_failure = error, failure_line(error, self.job_graph)
        if not strategy.can_restart():
            self.failure_note = f"Recovery is suppressed by {strategy}"
            print(f"Job {name} switched from state RUNNING to FAILED.", file=sys.stderr)
            return False
        if self.batches > self._batches_at_restart:
            self._restarts_without_progress = 0  # it got further since the last restart
        self._batches_at_restart = self.batches
        if self.max_restarts is not None and self._restarts_without_progress >= self.max_restarts:
            self.failure_note = self._guard_note(strategy)
            print(f"Job {name} switched from state RUNNING to FAILED.", file=sys.stderr)
            return False
        self.status = "RESTARTING"
        print(
            f"Job {name} switched from state RUNNING to RESTARTING ({self.last_failure}).",
            file=sys.stderr,
        )
        if self.listeners:
            self._report()
        time.sleep(strategy.backoff_time / 1000)
        if self.status != "RESTARTING":  # cancelled meanwhile
            return True
        self.query = self._writer.start()
        self.restarts += 1
        self._restarts_without_progress += 1
        self.status = "RUNNING"
        print(
            f"Job {name} switched from state RESTARTING to RUNNING (restored from the checkpoint "
            f"of batch {last_batch(self.checkpoint_location)}).",
            file=sys.stderr,
        )
        return True

    def _guard_note(self, strategy: Any) -> str:
        """Why the restart guard stopped the job, and how to change that."""
        return (
            f"The restart guard stopped it after {self._restarts_without_progress} restarts "
            f"without a completed micro-batch (each failed with {self.last_failure}). Its "
            f"restart strategy is {strategy}; with checkpointing enabled and no restart strategy "
            "set, Flink restarts a failing job forever. Set a restart strategy, e.g. "
            "env.set_restart_strategy(RestartStrategies.fixed_delay_restart(3, 1000)), or allow "
            f"more restarts with '{MAX_RESTARTS_KEY}'"
        )

    def _end(self, status: str) -> None:
        self.status = status
        self.ended = time.perf_counter()
        self.collected.put(_END)
        if not self._savepointing:
            self._discard_checkpoints()

    def retention_policy(self) -> str:
        """Flink's ``CheckpointRetentionPolicy`` of the job (externalized-checkpoint cleanup)."""
        settings = getattr(self.job_graph, "checkpointing_settings", None)
        return getattr(settings, "retention_policy", None) or "NEVER_RETAIN_AFTER_TERMINATION"

    def _discard_checkpoints(self) -> None:
        """A terminal job's temporary checkpoint directory is deleted unless the retention
        policy keeps checkpoints for that status (Flink's ``CheckpointProperties.discardOn*``:
        never retained on FINISHED; kept on CANCELED with RETAIN_ON_CANCELLATION, on FAILED
        with RETAIN_ON_FAILURE or RETAIN_ON_CANCELLATION). A configured
        ``state.checkpoints.dir`` and savepoints are never deleted."""
        from pyflowkit.graph.job_graph import checkpoints_discarded_on

        if not self.temporary_checkpoints or self.checkpoints_discarded:
            return
        if self.status not in ("FINISHED", "CANCELED", "FAILED"):
            return
        policy = self.retention_policy()
        if not checkpoints_discarded_on(policy, self.status):
            print(
                f"Job {self.job_id}: {self.status}; its checkpoints stay in "
                f"{self.checkpoint_location} (retention {policy}).",
                file=sys.stderr,
            )
            return
        shutil.rmtree(self.checkpoint_location, ignore_errors=True)
        self.checkpoints_discarded = True
        print(
            f"Job {self.job_id}: {self.status}; deleted its temporary checkpoints "
            f"{self.checkpoint_location} (retention {policy}).",
            file=sys.stderr,
        )

    def _fail(self, exc: BaseException) -> None:
        self.error = exc
        self._end("FAILED")

    # ---- sinks ---------------------------------------------------------------------------------
    def _on_batch(self, df: Any, batch_id: int) -> None:
        """``foreachBatch`` on the driver: print lines and collected records of one batch."""
        table = df.toArrow()
        cols = table.to_pydict() if table.num_rows else {f: [] for f in records.FIELDS}
        rows = sorted(
            zip(
                cols["producer"],
                cols["seq"],
                cols["edge"],
                cols["target"],
                cols["payload"],
                strict=True,
            ),
            key=lambda r: (r[0], r[1]),
        )
        lines: list[tuple[str, bool]] = []
        with self._lock:
            if self._hold is not None and batch_id > self._hold:
                return  # stopping: cut from the logs, it re-runs on resume
            self._emitted = max(self._emitted, batch_id)
            for producer, _seq, edge, target, payload in rows:
                values = records.loads(payload)
                if edge == records.COLLECT:
                    node = self._nodes.get(target)
                    name = node.operator_name if node is not None else f"Sink {target}"
                    self.results.setdefault(name, []).extend(values)
                    self.results_by_node.setdefault(target, []).extend(values)
                    for value in values:
                        self.collected.put(value)
                elif edge in (records.PRINT_OUT, records.PRINT_ERR):
                    lines.extend((line, edge == records.PRINT_ERR) for line in values)
                elif edge == records.METRICS:
                    task, values = values
                    self.metrics[task] = values
                elif edge == PROGRESS:
                    vertex, watermark = values
                    self._watermarks.setdefault(vertex, {})[producer] = watermark
            self.print_lines.extend(line for line, _ in lines)
            self.printed += len(lines)
            if len(self.print_lines) > PRINT_WINDOW + PRINT_WINDOW // 2:  # endless jobs
                del self.print_lines[:-PRINT_WINDOW]
            self.batches += 1
        if self.print_output:
            for line, to_err in lines:
                print(line, file=sys.stderr if to_err else sys.stdout)
            sys.stdout.flush()

    # ---- results -------------------------------------------------------------------------------
    def raise_if_failed(self) -> None:
        """A failed job raises Flink's ``JobExecutionException`` with the user's traceback."""
        if self.error is None:
            return
        from pyflowkit.spark.executor import user_error_message

        carried = user_error_message(self.error)
        cause: BaseException = self.error
        if self.failure_note:
            cause = JobException(self.failure_note)
            cause.__cause__ = self.error
        if carried is None:
            from pyflowkit.errors import FlinkRuntimeException, IOException
            from pyflowkit.spark.streaming_failures import query_error_text, source_failure

            named = source_failure(self.job_graph, self.error)
            # the cause Flink's job would carry, without Spark's query dump (kept on it)
            error: BaseException = (
                IOException(named) if named else FlinkRuntimeException(query_error_text(self.error))
            )
            error.spark_exception = self.error  # type: ignore[attr-defined]
            if self.failure_note:
                cause.__cause__ = error
            else:
                cause = error
            raise JobExecutionException(
                self.job_id,
                f"Job '{self.job_name}' ({self.job_id}) failed on Spark: {str(named or error).rstrip('.')}."
                + (f" {self.failure_note}." if self.failure_note else ""),
                cause,
            ) from None
        tb, where = carried
        raise JobExecutionException(
            self.job_id,
            f"{tb.rstrip()}\n\nJob '{self.job_name}' ({self.job_id}) failed in {where} on Spark."
            + (f" {self.failure_note}." if self.failure_note else ""),
            cause,
        ) from None

    def result(self) -> Any:
        """The ``SparkJobExecutionResult`` of an ended job (print lines, sink records, plan)."""
        from pyflowkit.spark.result import SparkJobExecutionResult

        self.raise_if_failed()
        end = self.ended or time.perf_counter()
        with self._lock:
            results = {k: list(v) for k, v in self.results.items()}
            for node in self._nodes.values():
                if node.operator_name.startswith("Sink: Print"):
                    results[node.operator_name] = list(self.print_lines)
            result = SparkJobExecutionResult(
                self.job_id,
                int((end - self.started) * 1000),
                results,
                job_name=self.job_name,
                print_lines=list(self.print_lines),
                spark_plan=self.plan,
                metrics=dict(sorted(self.metrics.items())),
            )
            result.results_by_node = {k: list(v) for k, v in self.results_by_node.items()}
        result.job_status = self.status
        return result

    def collect_iterator(self, limit: int | None = None) -> Any:
        """Records of the collect sink as they arrive; ends at ``limit`` or when the job ends.
        Reaching the limit or closing the iterator cancels a job still running."""
        count = 0
        try:
            while limit is None or count < limit:
                try:
                    item = self.collected.get(timeout=0.2)
                except queue.Empty:
                    self.poll(0)
                    continue
                if item is _END:
                    self.raise_if_failed()
                    return
                count += 1
                yield item
        finally:
            self.cancel()
