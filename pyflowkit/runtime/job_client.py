"""``JobClient`` of a job on the local target (``execution.target = local``, ``execute_async``).

Stands for Flink's ``PerJobMiniClusterJobClient``: a handle on a job running on its own
MiniCluster. The simulated cluster has no clock of its own, so the job advances when the client
asks for something that needs it: a savepoint steps it until every task is RUNNING and the
savepoint is complete, ``get_job_execution_result`` runs it to its end.

PyFlink's local job runs in the background without being asked; a simulated one cannot (its
steps are the lesson), so a job submitted with ``execute_async()`` that has not ended when the
program exits is named on stderr with what to call: the program does not end silently with an
empty sink.
"""

from __future__ import annotations

import atexit
import itertools
import sys
import threading
import weakref
from pathlib import Path
from typing import Any

from pyflowkit.common.completable_future import CompletableFuture
from pyflowkit.common.job_client import JobClient
from pyflowkit.errors import CheckpointException, IllegalArgumentException, RestartGuardException
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_run import JobRun
from pyflowkit.runtime.job_status import JobStatus

_clients: dict[int, tuple[str, str, Any]] = {}  # client number → (job name, job id, its run)
_numbers = itertools.count()
_clients_lock = threading.Lock()
_atexit_registered = False


def _track(client: MiniClusterJobClient) -> int:
    """Remember ``client``'s job until it ends; a client dropped before that is remembered too."""
    global _atexit_registered
    run = client.run
    with _clients_lock:
        key = next(_numbers)
        _clients[key] = (run.job_graph.job_name, str(run.job_id), run)
        if not _atexit_registered:
            atexit.register(warn_unfinished_jobs)
            _atexit_registered = True
    return key


def unfinished_jobs() -> list[tuple[str, str, str]]:
    """(name, id, status) of every ``execute_async`` job on the local target not ended yet."""
    with _clients_lock:
        entries = list(_clients.values())
    return [
        (name, job_id, run.job_status.value)
        for name, job_id, run in entries
        if not run.job_status.is_globally_terminal_state()
    ]


def warn_unfinished_jobs() -> None:
    """At exit: one stderr line per ``execute_async`` job that never ran to its end."""
    for name, job_id, status in unfinished_jobs():
        sys.stderr.write(
            f"pyflowkit: job '{name}' ({job_id}) was submitted with execute_async() and is "
            f"still {status} at exit: a job on the simulated local cluster advances only when "
            "its JobClient is asked, so it did not run to its end. Call "
            "job_client.get_job_execution_result().result() to run it (or cancel() it).\n"
        )
    sys.stderr.flush()


def _forget_ended(key: int) -> None:
    with _clients_lock:
        entry = _clients.get(key)
        if entry is not None and entry[2].job_status.is_globally_terminal_state():
            del _clients[key]


class MiniClusterJobClient(JobClient):
    """A ``JobClient`` over a ``JobRun`` on a simulated MiniCluster (``run``: the job itself)."""

    def __init__(self, run: JobRun, max_restarts: int | None) -> None:
        super().__init__(run.job_id)
        self.run = run
        self._max_restarts = max_restarts
        # Flink's executeAsync returns once the job is submitted and its JobMaster runs it
        self._step_while(lambda: run.job_status is JobStatus.CREATED)
        # a dropped client whose job had ended is forgotten; one whose job had not is kept
        weakref.finalize(self, _forget_ended, _track(self))

    def get_job_status(self) -> CompletableFuture:
        """The job's ``JobStatus`` now (``RUNNING`` until it is driven to its end)."""
        return CompletableFuture(self.run.job_status)

    def cancel(self) -> CompletableFuture:
        """Flink's ``cancel``: the job goes CANCELLING, then CANCELED."""
        if self._terminal():
            return CompletableFuture(None, self._not_running("cancel"))
        self.run.cancel()
        self.run.run(max_restarts=None)
        return CompletableFuture(None)

    def trigger_savepoint(self, savepoint_directory: str | None = None) -> CompletableFuture:
        """Flink's ``triggerSavepoint``: the savepoint's path; the job keeps running.

        Without a directory: ``state.savepoints.dir``, else ``<tmp>/pyflowkit-savepoints`` (Flink
        refuses when neither is given); a failed savepoint fails the future with Flink's reason.
        """
        return self._savepoint("trigger_savepoint", savepoint_directory, None)

    def stop_with_savepoint(
        self, advance_to_end_of_event_time: bool, savepoint_directory: str | None = None
    ) -> CompletableFuture:
        """Flink's ``stopWithSavepoint``: a synchronous savepoint, then the sources stop and the
        job FINISHES; ``advance_to_end_of_event_time`` (``--drain``) fires every event-time
        window and timer first. The future holds the savepoint's path once the job has ended."""
        return self._savepoint(
            "stop_with_savepoint", savepoint_directory, advance_to_end_of_event_time
        )

    def get_accumulators(self) -> CompletableFuture:
        """Flink's ``getAccumulators``: the current attempts' accumulators merged by name."""
        from pyflowkit.runtime.local_executor import merged_accumulators

        return CompletableFuture(merged_accumulators(self.run, ("RUNNING", "FINISHED")))

    def get_job_execution_result(self) -> CompletableFuture:
        """Runs the job to its end; its ``JobExecutionResult`` (or the job's failure)."""
        from pyflowkit.runtime.local_executor import job_execution_result

        try:
            if not self._terminal():
                try:
                    self.run.run(max_restarts=self._max_restarts)
                except RestartGuardException:
                    self.run.cancel()  # a looping job is cancelled, as execute() does
                    self.run.run(max_restarts=None)
                    raise
            return CompletableFuture(job_execution_result(self.run))
        except Exception as exc:  # the future carries what execute() would have raised
            return CompletableFuture(None, exc)

    # -- helpers --------------------------------------------------------------------------------
    def _savepoint(self, method: str, directory: Any, drain: bool | None) -> CompletableFuture:
        if directory is not None and not isinstance(directory, (str, Path)):
            return CompletableFuture(
                None,
                IllegalArgumentException(
                    f"JobClient.{method}: savepoint_directory must be a path, got {directory!r}."
                ),
            )
        if drain is not None and not isinstance(drain, bool):
            return CompletableFuture(
                None,
                IllegalArgumentException(
                    f"JobClient.{method}: advance_to_end_of_event_time must be True or False, "
                    f"got {drain!r}."
                ),
            )
        self._step_while(lambda: not self._terminal() and not self._all_running())
        if self._terminal():
            return CompletableFuture(None, self._not_running(method))
        try:
            if drain is None:
                return CompletableFuture(
                    self.run.savepoint_path(self.run.trigger_savepoint(directory))
                )
            path = self.run.savepoint_path(self.run.stop_with_savepoint(directory, drain))
            # Flink completes the future once the stopped job has terminated
            self._step_while(lambda: not self._terminal())
            return CompletableFuture(path)
        except (CheckpointException, IllegalArgumentException) as exc:
            return CompletableFuture(None, exc)

    def _all_running(self) -> bool:
        executions = self.run.executions()
        return bool(executions) and all(e.state is ExecutionState.RUNNING for e in executions)

    def _terminal(self) -> bool:
        return self.run.job_status.is_globally_terminal_state()

    def _step_while(self, condition: Any) -> None:
        while condition() and self.run._advance():
            pass

    def __repr__(self) -> str:
        return (
            f"MiniClusterJobClient({self.run.job_graph.job_name!r}, {self.run.job_id}, "
            f"{self.run.job_status.value})"
        )
