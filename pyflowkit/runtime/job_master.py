"""The JobMaster of one job: slot pool, scheduler and the job's status (Flink's ``JobMaster``)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pyflowkit.common.flink_version import V1_11, FlinkVersionProfile, profile_for
from pyflowkit.graph.job_graph import JobGraph
from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.runtime.checkpoint.properties import CheckpointOptions
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_status import JobStatus, check_job_transition
from pyflowkit.runtime.resource_manager import ResourceManager
from pyflowkit.runtime.rpc import RpcBus
from pyflowkit.runtime.slot_pool import SlotPool
from pyflowkit.task.execution_mode import job_runtime_mode

if TYPE_CHECKING:
    from pyflowkit.runtime.dispatcher import Dispatcher
    from pyflowkit.runtime.task_executor import TaskExecutor


class JobMaster:
    """Flink's ``JobMaster``: its constructor creates the SlotPool and the DefaultScheduler."""

    def __init__(
        self, job_graph: JobGraph, bus: RpcBus, rm: ResourceManager, dispatcher: Dispatcher
    ) -> None:
        from pyflowkit.runtime.adaptive_batch_scheduler import uses_adaptive_batch_scheduler
        from pyflowkit.runtime.default_scheduler import DefaultScheduler

        self.job_graph = job_graph
        self.job_id = job_graph.job_id
        self.job_name = job_graph.job_name
        self.bus = bus
        self.rm = rm
        self.dispatcher = dispatcher
        self.job_status = JobStatus.CREATED
        self.status_timestamps: dict[str, int] = {JobStatus.CREATED.value: bus.now}
        self.failure_cause: BaseException | None = None
        self.failure_traceback: str | None = None
        self.fencing_token = bus.new_id()
        self.profile = job_profile(job_graph)
        if self.profile.slot_allocation.declarative:  # FLIP-138 (1.13+)
            from pyflowkit.runtime.declarative_slot_pool import DeclarativeSlotPoolBridge

            self.slot_pool: SlotPool = DeclarativeSlotPoolBridge(self, bus, rm)
        else:
            self.slot_pool = SlotPool(self, bus, rm)
        self.checkpoint_coordinator: Any = None
        self._task_settings: tuple[Any, Any] | None = None  # (job settings, with the job's mode)
        bus.emit(
            "JobMaster",
            "JobMaster.<init>",
            f"Initializing job {self.job_name} ({self.job_id}).",
            job=self.job_id,
        )
        if uses_adaptive_batch_scheduler(job_graph, self.profile):  # FLIP-187 (1.17+ default)
            from pyflowkit.runtime.adaptive_batch_scheduler import AdaptiveBatchScheduler

            self.scheduler = AdaptiveBatchScheduler(self)
        else:
            self.scheduler = DefaultScheduler(self)
        restore = job_graph.savepoint_restore_settings
        if is_periodic_checkpointing_enabled(job_graph) or restore is not None:
            self.enable_checkpointing()
        if restore is not None:
            self.scheduler.restored = self.checkpoint_coordinator.restore_savepoint(
                restore.restore_path, restore.allow_non_restored_state
            )
        bus.emit(
            "JobMaster",
            "JobMaster.<init>",
            f"Using restart back off time strategy {self.scheduler.restart_strategy} for "
            f"{self.job_name} ({self.job_id}).",
            job=self.job_id,
        )
        bus.emit(
            "JobMaster",
            "SchedulerBase.<init>",
            f"Built {len(self.scheduler.regions)} pipelined regions",
            job=self.job_id,
        )
        bus.emit(
            "JobMaster",
            "JobMaster.<init>",
            "Using failover strategy RestartPipelinedRegionFailoverStrategy for "
            f"{self.job_name} ({self.job_id}).",
            job=self.job_id,
        )

    def task_settings(self, settings: Any) -> Any:
        """The frozen ``EnvironmentSettings`` ``settings`` with the job-wide runtime mode
        (AUTOMATIC resolved: the job's ``JobType``), as every task's chain runs; made once."""
        cached = self._task_settings
        if cached is None or cached[0] is not settings:
            mode = job_runtime_mode(self.job_graph)
            cached = self._task_settings = (
                settings,
                dataclasses.replace(settings, runtime_mode=mode),
            )
        return cached[1]

    def enable_checkpointing(self) -> Any:
        """``ExecutionGraph.enableCheckpointing``: the job's CheckpointCoordinator (created once)."""
        if self.checkpoint_coordinator is None:
            from pyflowkit.runtime.checkpoint.coordinator import CheckpointCoordinator

            self.checkpoint_coordinator = CheckpointCoordinator(
                self.job_graph, self.bus, JobMasterCheckpointGateway(self)
            )
        return self.checkpoint_coordinator

    def start(self) -> None:
        """``JobMaster.start`` → startJobExecution: connect to the RM, start scheduling."""
        self.bus.emit(
            "JobMaster",
            "JobMaster.start",
            f"Starting execution of job {self.job_name} ({self.job_id}) under job master "
            f"id {self.fencing_token}.",
            job=self.job_id,
        )
        self.bus.send(
            "JobMaster",
            self.rm.name,
            "ResourceManager.registerJobManager",
            lambda: self.rm.register_job_manager(self),
        )
        self.scheduler.start_scheduling()

    # -- job status -----------------------------------------------------------------------------
    def transition_job_status(self, target: JobStatus) -> None:
        """``ExecutionGraph.transitionState`` with Flink's log line."""
        current = self.job_status
        check_job_transition(f"{self.job_name} ({self.job_id})", current, target)
        self.job_status = target
        self.status_timestamps[target.value] = self.bus.now
        self.bus.emit(
            "JobMaster",
            "ExecutionGraph.transitionState",
            f"Job {self.job_name} ({self.job_id}) switched from state {current.value} to "
            f"{target.value}.",
            job=self.job_id,
            old_state=current.value,
            new_state=target.value,
        )
        coord = self.checkpoint_coordinator
        if coord is not None:  # CheckpointCoordinatorDeActivator / onTerminalState
            if target.is_globally_terminal_state():
                coord.shutdown_coordinator()
            else:
                coord.job_status_changed(target.value)
        if target.is_globally_terminal_state():
            self._job_reached_terminal_state()

    def _job_reached_terminal_state(self) -> None:
        if self.job_status is JobStatus.FINISHED:
            self.bus.emit(
                "JobMaster",
                "CheckpointCoordinator.shutdown",
                f"Stopping checkpoint coordinator for job {self.job_id}.",
                job=self.job_id,
            )
        self.slot_pool.release_all()
        self.bus.send(
            "JobMaster",
            "Dispatcher",
            "Dispatcher.jobReachedGloballyTerminalState",
            lambda: self.dispatcher.job_reached_globally_terminal_state(self),
        )

    def update_task_execution_state(
        self, attempt_id: str, state: ExecutionState, cause: BaseException | None, tb: str | None
    ) -> None:
        """``JobMaster.updateTaskExecutionState`` (RPC from a TaskExecutor)."""
        if self.job_status.is_globally_terminal_state():
            return
        self.scheduler.update_task_execution_state(attempt_id, state, cause, tb)

    def acknowledge_checkpoint(
        self, attempt_id: str, checkpoint_id: int, metrics: Any, snapshot: Any, location: str
    ) -> None:
        """``JobMaster.acknowledgeCheckpoint`` (RPC from a task) → ``SchedulerBase``'s, which
        hands it to the CheckpointCoordinator."""
        coord = self.checkpoint_coordinator
        if coord is None:
            return
        template = coord.event_template()  # the JobMaster's events about this job
        self.bus.emit_about_checkpoint(
            template,
            "JobMaster.acknowledgeCheckpoint",
            f"JobMaster received the acknowledgement of checkpoint {checkpoint_id} from "
            f"{attempt_id} at {location}.",
            checkpoint_id,
        )
        self.bus.emit_about_checkpoint(
            template,
            "SchedulerBase.acknowledgeCheckpoint",
            f"JobMaster hands the acknowledgement of checkpoint {checkpoint_id} from {attempt_id} "
            "to the CheckpointCoordinator.",
            checkpoint_id,
        )
        coord.receive_acknowledge_message(attempt_id, checkpoint_id, metrics, snapshot, location)

    def decline_checkpoint(
        self, attempt_id: str, checkpoint_id: int, cause: BaseException, location: str
    ) -> None:
        """``JobMaster.declineCheckpoint`` (RPC from a task) → ``SchedulerBase.declineCheckpoint``."""
        coord = self.checkpoint_coordinator
        if coord is not None:
            coord.receive_decline_message(attempt_id, checkpoint_id, cause, location)

    def offer_slots(self, te: TaskExecutor, slot_index: int, allocation_id: str) -> None:
        """``JobMaster.offerSlots`` → ``SlotPool.offerSlot``; unknown offers are given back."""
        if self.job_status.is_globally_terminal_state() or not self.slot_pool.offer_slot(
            te, slot_index, allocation_id
        ):
            self.bus.send(
                "JobMaster",
                te.name,
                "TaskExecutor.freeSlot",
                lambda: (te.free_slot(allocation_id), self.rm.notify_slot_available(allocation_id)),
            )

    def check_job_progress(self) -> None:
        """Finish, fail or cancel the job once every execution is terminal."""
        sched = self.scheduler
        executions = [ev.current_execution for ev in sched.execution_vertices]
        all_terminal = all(e.state.is_terminal() for e in executions)
        status = self.job_status
        if status is JobStatus.RUNNING and all(
            e.state is ExecutionState.FINISHED for e in executions
        ):
            self.transition_job_status(JobStatus.FINISHED)
        elif status is JobStatus.FAILING and all_terminal:
            self.transition_job_status(JobStatus.FAILED)
        elif status is JobStatus.CANCELLING and all_terminal:
            self.transition_job_status(JobStatus.CANCELED)
        elif status is JobStatus.RESTARTING:
            sched.maybe_restart()

    def fail_job(self, cause: BaseException, tb: str | None) -> None:
        """``failJob``: RUNNING → FAILING, cancel everything, then FAILED."""
        self.failure_cause, self.failure_traceback = cause, tb
        if self.job_status in (JobStatus.RUNNING, JobStatus.RESTARTING):
            self.transition_job_status(JobStatus.FAILING)
        self.scheduler.pending_restart.clear()
        self.scheduler.cancel_all()
        self.check_job_progress()

    def cancel(self) -> None:
        """``JobMaster.cancel``: → CANCELLING, cancel every execution, then CANCELED."""
        if self.job_status.is_terminal_state() or self.job_status is JobStatus.CANCELLING:
            return
        self.transition_job_status(JobStatus.CANCELLING)
        self.scheduler.pending_restart.clear()
        self.scheduler.cancel_all()
        self.check_job_progress()


class JobMasterCheckpointGateway:
    """The coordinator's view of its JobMaster: the scheduler's executions, and ``Execution``'s
    checkpoint RPCs to the TaskExecutors (Flink: ``Execution.triggerCheckpoint`` etc. through the
    ``TaskManagerGateway``)."""

    def __init__(self, job_master: Any) -> None:
        self.jm = job_master
        self.bus = job_master.bus
        self._vertices: dict[str, list[Any]] = {}  # job vertex id → its ExecutionVertices

    def current_executions(self, vertex_id: str) -> list[Any]:
        vertices = self._vertices.get(vertex_id)
        if vertices is None:  # the scheduler's ExecutionVertices live as long as the JobMaster
            sched = self.jm.scheduler
            jv = next(v for v in self.jm.job_graph.vertices if v.id == vertex_id)
            vertices = [sched.by_key[(vertex_id, i)] for i in range(jv.parallelism)]
            self._vertices[vertex_id] = vertices
        return [ev.current_execution for ev in vertices]

    def _send(self, e: Any, method: str, fn: Any) -> None:
        te = e.slot.task_executor if e.slot is not None else None
        if te is None:
            return
        attempt = e.attempt_id
        self.bus.send("JobMaster", te.name, method, lambda: fn(te, attempt))

    def trigger_checkpoint(
        self, execution: Any, checkpoint_id: int, timestamp: int, options: CheckpointOptions
    ) -> None:
        """``Execution.triggerCheckpoint`` → ``TaskExecutor.triggerCheckpoint`` (RPC)."""
        self._send(
            execution,
            "TaskExecutor.triggerCheckpoint",
            lambda te, a: te.trigger_checkpoint(a, checkpoint_id, timestamp, options),
        )

    def trigger_synchronous_savepoint(
        self,
        execution: Any,
        checkpoint_id: int,
        timestamp: int,
        options: CheckpointOptions,
        advance_to_end_of_event_time: bool,
    ) -> None:
        """``Execution.triggerSynchronousSavepoint`` → ``TaskExecutor.triggerCheckpoint`` (RPC)."""
        self._send(
            execution,
            "TaskExecutor.triggerCheckpoint",
            lambda te, a: te.trigger_checkpoint(
                a, checkpoint_id, timestamp, options, advance_to_end_of_event_time
            ),
        )

    def notify_checkpoint_complete(
        self, execution: Any, checkpoint_id: int, timestamp: int
    ) -> None:
        """``Execution.notifyCheckpointComplete`` → ``TaskExecutor.confirmCheckpoint`` (RPC)."""
        self._send(
            execution,
            "TaskExecutor.confirmCheckpoint",
            lambda te, a: te.confirm_checkpoint(a, checkpoint_id, timestamp),
        )

    def notify_checkpoint_aborted(self, execution: Any, checkpoint_id: int, timestamp: int) -> None:
        """``Execution.notifyCheckpointAborted`` → ``TaskExecutor.abortCheckpoint`` (RPC)."""
        self._send(
            execution,
            "TaskExecutor.abortCheckpoint",
            lambda te, a: te.abort_checkpoint(a, checkpoint_id),
        )

    def fail_job(self, cause: BaseException) -> None:
        """``CheckpointFailureManager``'s job failure callback: ``JobMaster.failJob``."""
        self.jm.fail_job(cause, None)


def job_profile(job_graph: JobGraph) -> FlinkVersionProfile:
    """The version profile the job was compiled under (its ``pyflowkit.flink-version``)."""
    settings = getattr(job_graph.stream_graph, "execution_config", None)
    return profile_for(getattr(settings, "flink_version", V1_11))


def is_periodic_checkpointing_enabled(job_graph: JobGraph) -> bool:
    """``CheckpointCoordinatorConfiguration.isCheckpointingEnabled`` (interval < Long.MAX_VALUE)."""
    settings = job_graph.checkpointing_settings
    return settings is not None and 0 < settings.checkpoint_interval < LONG_MAX_VALUE
