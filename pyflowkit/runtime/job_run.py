"""A submitted job on the simulated cluster: the user's handle (steering, inspection, views).

Stepping and replay live in ``job_stepping``, checkpoint triggers in ``job_run_checkpoints``,
the pandas and REST-shaped views in ``job_run_views``; ``JobRun`` puts them behind one API.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pyflowkit.errors import IllegalArgumentException, JobExecutionException
from pyflowkit.graph.job_graph import JobGraph, JobVertex
from pyflowkit.runtime import job_run_views as views
from pyflowkit.runtime.checkpoint.properties import CheckpointType
from pyflowkit.runtime.execution import Execution
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_run_checkpoints import CheckpointTriggers
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.job_stepping import FAST_MODE_GEN0_THRESHOLD, SteppedRun
from pyflowkit.runtime.rpc import ClusterConfig
from pyflowkit.runtime.stream_task import ChainFactory
from pyflowkit.runtime.trace import save_trace, trace_frame, trace_to_json

__all__ = ["FAST_MODE_GEN0_THRESHOLD", "JobRun", "TaskFailure"]


class TaskFailure(Exception):
    """The cause given to ``JobRun.fail_task`` when none is passed."""


class JobRun(SteppedRun):
    """One job on a simulated MiniCluster; ``step()`` delivers exactly one message or mail.

    Steering commands (``fail_task``, ``fail_task_manager``, ``cancel``, checkpoint triggers,
    mode switches) are logged with the step they were issued at, so ``rewind(k)`` can rebuild
    step k by replaying from scratch. Stands for the client's view of Flink's ``MiniCluster``.
    """

    def __init__(
        self,
        config: ClusterConfig,
        job_graph: JobGraph,
        chain_factory: ChainFactory,
        _replaying: bool = False,
    ) -> None:
        super().__init__(
            config, job_graph, chain_factory, echo=config.echo_print and not _replaying
        )
        self.register_command("fail_task", self._do_fail_task)
        self.register_command("fail_task_manager", self._do_fail_task_manager)
        self.register_command("cancel", self._do_cancel)
        self._checkpoints = CheckpointTriggers(self)

    def __repr__(self) -> str:
        return (
            f"JobRun(job='{self.job_graph.job_name}', status={self.job_status.value}, "
            f"step={self.bus.step}, time={self.bus.now} ms, pending={self.bus.env.pending()})"
        )

    # -- steering -------------------------------------------------------------------------------
    def fail_task(
        self, vertex: str, subtask: int, cause: BaseException | str | None = None
    ) -> None:
        """Make a running task fail (as if its code threw ``cause``)."""
        jv = self._vertex(vertex)
        self._check_subtask(jv, subtask)
        msg = cause if isinstance(cause, str) else None
        if cause is not None and not isinstance(cause, (str, BaseException)):
            raise IllegalArgumentException(
                f"fail_task: cause must be an exception or a message, got {type(cause).__name__}."
            )
        self.command("fail_task", jv.id, subtask, msg if msg is not None else cause)

    def _do_fail_task(self, vertex_id: str, subtask: int, cause: Any) -> None:
        exc = (
            cause
            if isinstance(cause, BaseException)
            else TaskFailure(cause or f"Injected failure of subtask {subtask}.")
        )
        task = self._task(vertex_id, subtask)
        if task is None or task.state.is_terminal() or not task.process_alive:
            raise IllegalArgumentException(
                f"fail_task: subtask {subtask} of vertex {vertex_id} has no live task to fail "
                "(not deployed yet, already terminal, or its TaskExecutor was killed)."
            )
        task.fail_externally(exc)

    def fail_task_manager(self, index: int) -> None:
        """Kill TaskExecutor ``index``: its tasks and slots are lost (heartbeat timeout)."""
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index < len(self.task_executors)
        ):
            raise IllegalArgumentException(
                f"fail_task_manager: index must be in [0, {len(self.task_executors)}), got {index!r}."
            )
        if not self.task_executors[index].alive:
            raise IllegalArgumentException(
                f"fail_task_manager: TaskExecutor-{index} is already dead."
            )
        self.command("fail_task_manager", index)

    def _do_fail_task_manager(self, index: int) -> None:
        te = self.task_executors[index]
        te.kill()
        self.bus.emit(
            te.name,
            "TaskExecutor.onFatalError",
            f"{te.name} was killed; its tasks stop and its slots are lost.",
        )
        self.bus.call_later(
            0,
            "ResourceManager",
            "ResourceManager.heartbeatTimeout",
            lambda: self.resource_manager.task_executor_lost(index),
        )
        jm = self.job_master
        if jm is not None:
            self.bus.call_later(
                0,
                "JobMaster.heartbeat",
                "JobMaster.heartbeatFromTaskManager timeout",
                lambda: jm.scheduler.task_manager_lost(te),
            )

    def cancel(self) -> None:
        """``JobMaster.cancel``: CANCELLING, every task cancelled, then CANCELED."""
        self.command("cancel")

    def _do_cancel(self) -> None:
        jm = self.job_master
        if jm is None:
            raise IllegalArgumentException(
                "cancel: the job has no JobMaster yet; step further first."
            )
        self.bus.call_later(0, "Client->JobMaster", "JobMaster.cancel", jm.cancel)

    # -- checkpoints and savepoints -------------------------------------------------------------
    @property
    def checkpoint_coordinator(self) -> Any:
        """The job's ``CheckpointCoordinator`` (None before the JobMaster or without checkpoints)."""
        return self._checkpoints.coordinator

    def trigger_checkpoint(self) -> int | None:
        """``CheckpointCoordinator.triggerCheckpoint`` now; returns the new checkpoint's id, or
        None when the request is queued behind the checkpoints in progress (max concurrent).

        Step on (or ``run_until(checkpoint_completed(id))``) to watch it travel. Raises
        ``CheckpointException`` when it cannot start (e.g. a source is not RUNNING).
        """
        return self._checkpoints.trigger("trigger_checkpoint", CheckpointType.CHECKPOINT.name, None)

    def trigger_savepoint(self, path: str | Path | None = None) -> int:
        """``JobMaster.triggerSavepoint``: a savepoint into ``path``; returns its checkpoint id.

        The directory defaults to ``state.savepoints.dir`` of the job's configuration, else to
        ``<tmp>/pyflowkit-savepoints``. ``savepoint_path(id)`` waits for it and returns where it is.
        """
        return self._checkpoints.trigger("trigger_savepoint", CheckpointType.SAVEPOINT.name, path)

    def stop_with_savepoint(self, path: str | Path | None = None, drain: bool = False) -> int:
        """``JobMaster.stopWithSavepoint``: a synchronous savepoint, then the sources stop and the
        job FINISHES; returns the savepoint's checkpoint id (``savepoint_path(id)`` waits).

        ``drain`` is ``flink stop --drain`` (Java: ``advanceToEndOfEventTime``): the sources emit
        MAX_WATERMARK before the savepoint barrier, so every event-time window and timer fires
        first. Without it pending windows/timers stay in the savepoint for the next job.
        """
        if not isinstance(drain, bool):
            raise IllegalArgumentException(
                f"stop_with_savepoint: drain must be True or False, got {drain!r}."
            )
        kind = CheckpointType.SYNC_SAVEPOINT.name + ("+drain" if drain else "")
        return self._checkpoints.trigger("stop_with_savepoint", kind, path)

    def cancel_with_savepoint(self, path: str | Path | None = None) -> int:
        """``triggerSavepoint(cancelJob=true)``: a savepoint, then the job is CANCELED."""
        return self._checkpoints.trigger("cancel_with_savepoint", "CANCEL_WITH_SAVEPOINT", path)

    def savepoint_path(self, checkpoint_id: int) -> str:
        """Where savepoint ``checkpoint_id`` was written; steps the job until it is done.

        Raises ``CheckpointException`` with Flink's failure reason if the savepoint failed.
        """
        return self._checkpoints.savepoint_path(checkpoint_id)

    # -- inspection -----------------------------------------------------------------------------
    def executions(self) -> list[Execution]:
        jm = self.job_master
        return (
            [] if jm is None else [ev.current_execution for ev in jm.scheduler.execution_vertices]
        )

    def execution_state(self, vertex: str, subtask: int) -> ExecutionState | None:
        jv = self._vertex(vertex)
        jm = self.job_master
        if jm is None:
            return None
        return jm.scheduler.by_key[(jv.id, subtask)].current_execution.state

    def results(self) -> dict[str, list[Any]]:
        """Per sink (by name), what it received or printed, in order (print sinks: the lines
        in the printed window, see ``printed()``)."""
        return self.host.sink_results()

    def printed(self) -> list[str]:
        """The print sinks' lines in print order: the last ``printed_window`` of them (a
        MiniCluster option, 10,000 by default; ``printed_window=None`` keeps every line)."""
        return self.host.printed.lines()

    @property
    def printed_count(self) -> int:
        """How many lines the print sinks wrote in this run, kept in the window or not."""
        return self.host.printed.total

    def keyed_state(self, vertex: str, subtask: int) -> dict[str, Any]:
        """Operator name → state name → {key: value} of the running task."""
        jv = self._vertex(vertex)
        self._check_subtask(jv, subtask)
        task = self._task(jv.id, subtask)
        chain = None if task is None else task.invokable.chain
        if chain is None:
            raise IllegalArgumentException(
                f"keyed_state: {jv.name} ({subtask + 1}/{jv.parallelism}) has no running operator "
                "chain yet; step further first."
            )
        return chain.keyed_state()

    @property
    def failure_cause(self) -> BaseException | None:
        jm = self.job_master
        return None if jm is None else jm.failure_cause

    @property
    def failure_traceback(self) -> str | None:
        jm = self.job_master
        return None if jm is None else jm.failure_traceback

    def raise_if_failed(self) -> None:
        """Raise ``JobExecutionException`` (with the user's traceback) if the job FAILED."""
        if self.job_status is JobStatus.FAILED:
            tb = self.failure_traceback or ""
            raise JobExecutionException(
                self.job_id, f"Job execution failed.\n{tb}".rstrip(), self.failure_cause
            ) from self.failure_cause

    # -- views ----------------------------------------------------------------------------------
    def state_history(self) -> list[dict[str, Any]]:
        """Every job and task state change, in order (JobMaster and TaskExecutor sides); a
        subtask named as Flink's web UI names it, ``Keyed Aggregation (1/2)``."""
        parallelism = {v.name: v.parallelism for v in self.job_graph.vertices}
        return views.state_history(self.trace, parallelism)

    def tasks_frame(self) -> Any:
        """One row per subtask: states, attempt, slot, records, queued buffers, back pressure."""
        return views.tasks_frame(self)

    def slots_frame(self) -> Any:
        """One row per TaskExecutor slot: state, allocation, job and the tasks it hosts."""
        return views.slots_frame(self.task_executors)

    def checkpoints_frame(self) -> Any:
        """One row per checkpoint and savepoint, oldest first (Flink REST ``/checkpoints`` names)."""
        return views.checkpoints_frame(self.checkpoint_coordinator)

    def checkpoint_config(self) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints/config``'s storage part: the declared state backend,
        the checkpoint storage and where checkpoints and savepoints are written."""
        from pyflowkit.runtime.checkpoint.storage_options import checkpoint_config_info

        return checkpoint_config_info(self.job_graph)

    def checkpoints_overview(self) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints``: counts, summary, latest, history."""
        return views.checkpoints_overview(self.checkpoint_coordinator)

    def checkpoint_details(self, checkpoint_id: int) -> dict[str, Any]:
        """``GET /jobs/:jobid/checkpoints/details/:id``: per vertex and per subtask."""
        return views.checkpoint_details(self.checkpoint_coordinator, checkpoint_id)

    def in_flight_data(self, checkpoint_id: int) -> Any:
        """The in-flight records an unaligned checkpoint persisted, per subtask (a DataFrame):
        from its input channels (``InputChannelStateHandle``) and its output subpartitions
        (``ResultSubpartitionStateHandle``); empty for an aligned checkpoint."""
        return views.in_flight_frame(self.checkpoint_coordinator, self.job_graph, checkpoint_id)

    def keyed_state_at(self, checkpoint_id: int, vertex: str | JobVertex) -> dict[str, Any]:
        """Operator name → state name → {key: value} as snapshotted by checkpoint
        ``checkpoint_id`` (all subtasks of ``vertex`` merged; keyed state outside windows)."""
        jv = self._vertex(vertex)
        return views.keyed_state_at(self.checkpoint_coordinator, checkpoint_id, jv)

    # -- trace ----------------------------------------------------------------------------------
    def sequence_diagram(self, last: int | None = None) -> Any:
        """The trace as a sequence diagram (every arrow, or the ``last`` ones): ``.to_svg()``,
        ``.save(path)``; Jupyter displays it. Drawn by the render layer's display hook."""
        from pyflowkit.graph.renderable import display_hook

        return display_hook().sequence_diagram(self, last)

    def trace_frame(self) -> Any:
        return trace_frame(self.trace)

    def trace_json(self) -> str:
        return trace_to_json(self.trace)

    def save_trace(self, path: str | Path) -> Path:
        return save_trace(self.trace, path)
