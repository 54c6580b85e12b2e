"""Scheduling, deployment and failover of one job (Flink 1.11's ``DefaultScheduler``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.errors import JobException, NoResourceAvailableException
from pyflowkit.graph.execution_graph import ExecutionGraph
from pyflowkit.graph.restart_backoff import create_restart_backoff_strategy
from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.operators.context import default_max_parallelism
from pyflowkit.operators.user_failure import (
    JOB_EXCEPTION,
    chained_failure_text,
    failed_in,
    failing_operator,
    note_failure,
    suppressed_message,
    trim_to_user_frames,
)
from pyflowkit.runtime.deployment import (
    InputGateDeploymentDescriptor,
    ResultPartitionDeploymentDescriptor,
    TaskDeploymentDescriptor,
)
from pyflowkit.runtime.execution import Execution, ExecutionVertex
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.job_status import JobStatus
from pyflowkit.runtime.slot_pool import PendingRequest, SlotKey
from pyflowkit.runtime.task import format_failure

if TYPE_CHECKING:
    from pyflowkit.runtime.job_master import JobMaster

S = ExecutionState


class EagerSchedulingStrategy:
    """Flink 1.11's ``EagerSchedulingStrategy``: schedule every vertex at once, topologically.
    Under the 1.20 profile it is named ``PipelinedRegionSchedulingStrategy`` (FLIP-119), which
    schedules every region of a streaming job at once in the same topological order."""

    def __init__(self, scheduler: DefaultScheduler, name: str) -> None:
        self.scheduler = scheduler
        self.name = name

    def start_scheduling(self) -> None:
        self.scheduler.allocate_slots_and_deploy(self.scheduler.execution_vertices)

    def restart_tasks(self, vertices: list[ExecutionVertex]) -> None:
        self.scheduler.allocate_slots_and_deploy(vertices)


class PipelinedRegionSchedulingStrategy(EagerSchedulingStrategy):
    """Flink 1.20's ``PipelinedRegionSchedulingStrategy`` (FLIP-119): a pipelined region is
    scheduled once every BLOCKING result it consumes is consumable (the producer subtasks its
    subtasks read FINISHED). A streaming job's regions consume no BLOCKING result: all are
    scheduled at once, in topological order; a BATCH job's (BLOCKING exchanges since 1.14) one
    after the other as their producers finish."""

    def __init__(self, scheduler: DefaultScheduler, name: str) -> None:
        super().__init__(scheduler, name)
        self.scheduled: set[int] = set()  # ids of the scheduled regions' first subtask

    def start_scheduling(self) -> None:
        self.maybe_schedule_regions()

    def on_execution_state_change(self) -> None:
        self.maybe_schedule_regions()

    def maybe_schedule_regions(self) -> None:
        scheduler = self.scheduler
        ready = [
            region
            for region in scheduler.regions
            if id(region[0]) not in self.scheduled and all(map(self._consumable, region))
        ]
        if not ready:
            return
        self.scheduled.update(id(region[0]) for region in ready)
        members = {id(ev) for region in ready for ev in region}
        scheduler.allocate_slots_and_deploy(
            [ev for ev in scheduler.execution_vertices if id(ev) in members]
        )

    def _consumable(self, ev: ExecutionVertex) -> bool:
        """Every BLOCKING partition ``ev`` consumes is finished (its producer FINISHED)."""
        by_key = self.scheduler.by_key
        for num, edge in enumerate(ev.job_vertex.inputs):
            if edge.result_partition_type.name != "BLOCKING":
                continue
            for graph_edge in ev.graph_vertex.input_edges[num]:
                producer = by_key[(edge.source.id, graph_edge.source.partition_number)]
                if producer.current_execution.state is not S.FINISHED:
                    return False
        return True


class DefaultScheduler:
    """Flink's ``DefaultScheduler`` (+ ``SchedulerBase``): builds the execution view, schedules,
    deploys once all slots are there, and handles failures with the restart strategy and regions.
    """

    def __init__(self, job_master: JobMaster) -> None:
        self.jm = job_master
        self.bus = job_master.bus
        jg = job_master.job_graph
        self.execution_graph = self.create_execution_graph()
        self.execution_vertices: list[ExecutionVertex] = []
        self.by_key: dict[tuple[str, int], ExecutionVertex] = {}
        self._executions_by_attempt: dict[str, Execution] = {}  # find_execution's index
        for ejv in self.execution_graph.job_vertices:
            self.register_execution_vertices(ejv)
        self.regions: list[list[ExecutionVertex]] = []
        self.compute_regions()
        settings = jg.checkpointing_settings
        checkpointing = settings is not None and 0 < settings.checkpoint_interval < LONG_MAX_VALUE
        self.restart_strategy = create_restart_backoff_strategy(jg.restart_strategy, checkpointing)
        self.strategy: Any = self.create_scheduling_strategy()
        self.waiting: list[Execution] = []  # scheduled, waiting for all slots (waitForAllSlots)
        self.pending_restart: set[str] = set()  # ExecutionVertex ids to restart
        self.restart_event = None
        self.failure_cause: BaseException | None = None
        self.failure_traceback: str | None = None
        self.last_failed: Execution | None = None  # the execution whose failure came last
        self.number_of_restarts = 0  # ExecutionGraph.getNumberOfRestarts (metric numRestarts)
        self.restored: Any = None  # RestoredState the next deployments start from (or None)
        job_master.slot_pool.on_slot_available = self._try_deploy
        job_master.slot_pool.on_request_timeout = self._on_slot_request_timeout

    def create_execution_graph(self) -> ExecutionGraph:
        """``SchedulerBase.createAndRestoreExecutionGraph``: every job vertex attached at once."""
        return ExecutionGraph.from_job_graph(self.jm.job_graph)

    def create_scheduling_strategy(self) -> Any:
        name = self.jm.profile.slot_allocation.scheduling_strategy
        if name.endswith(".PipelinedRegionSchedulingStrategy"):  # FLIP-119 (1.12+)
            return PipelinedRegionSchedulingStrategy(self, name)
        return EagerSchedulingStrategy(self, name)

    def register_execution_vertices(self, ejv: Any) -> list[ExecutionVertex]:
        """The runtime side (executions) of an attached ExecutionJobVertex's subtasks."""
        created = []
        for graph_vertex in ejv.task_vertices:
            ev = ExecutionVertex(graph_vertex, self.jm.job_graph.job_id)
            ev.reset_for_new_execution(self.bus)
            self.execution_vertices.append(ev)
            self.by_key[(ejv.id, ev.subtask_index)] = ev
            created.append(ev)
        return created

    def compute_regions(self) -> None:
        """The failover regions of the attached subtasks (``SchedulingPipelinedRegion``)."""
        self.regions = [
            [self.by_key[(v.job_vertex.id, v.subtask_index)] for v in region.execution_vertices]
            for region in self.execution_graph.failover_regions
        ]

    # -- scheduling -----------------------------------------------------------------------------
    def start_scheduling(self) -> None:
        """``SchedulerBase.startScheduling``: job CREATED → RUNNING, then the strategy."""
        self.bus.emit(
            "JobMaster",
            "DefaultScheduler.startScheduling",
            f"Starting scheduling with scheduling strategy [{self.strategy.name}]",
            job=self.jm.job_id,
        )
        self.jm.transition_job_status(JobStatus.RUNNING)
        self.strategy.start_scheduling()

    @staticmethod
    def slot_key(ev: ExecutionVertex) -> SlotKey:
        return (ev.job_vertex.slot_sharing_group or "default", ev.subtask_index)

    def allocate_slots_and_deploy(self, vertices: list[ExecutionVertex]) -> None:
        """``DefaultScheduler.allocateSlotsAndDeploy``: CREATED → SCHEDULED, request slots."""
        pool = self.jm.slot_pool
        batch = [ev.current_execution for ev in vertices]
        for e in batch:
            e.transition_state(S.SCHEDULED, self.bus)
        for e in batch:
            key = self.slot_key(e.vertex)
            if not pool.has_slot(key) and not pool.is_requested(key):
                pool.request_new_allocated_slot(key)
        self.waiting.extend(batch)
        self._try_deploy()

    def _try_deploy(self) -> None:
        """``waitForAllSlotsAndDeploy``: deploy only once every waiting execution has a slot."""
        pool = self.jm.slot_pool
        self.waiting = [e for e in self.waiting if e.state is S.SCHEDULED]
        if not self.waiting or not all(
            pool.has_slot(self.slot_key(e.vertex)) for e in self.waiting
        ):
            return
        batch, self.waiting = self.waiting, []
        for e in batch:
            e.slot = pool.slots[self.slot_key(e.vertex)]
        for e in batch:
            self.deploy(e)

    def deploy(self, e: Execution) -> None:
        """``Execution.deploy``: SCHEDULED → DEPLOYING, then ``TaskExecutor.submitTask``."""
        e.transition_state(S.DEPLOYING, self.bus)
        slot = e.slot
        self.bus.emit(
            "JobMaster",
            "Execution.deploy",
            f"Deploying {e.name} (attempt #{e.attempt_number}) to {slot.location}",
            job=self.jm.job_id,
            vertex=e.vertex.job_vertex.name,
            subtask=e.vertex.subtask_index,
            attempt=e.attempt_number,
        )
        tdd = self.create_deployment_descriptor(e)
        te = slot.task_executor
        self.bus.send("JobMaster", te.name, "TaskExecutor.submitTask", lambda: te.submit_task(tdd))

    def create_deployment_descriptor(self, e: Execution) -> TaskDeploymentDescriptor:
        """``TaskDeploymentDescriptorFactory``: partitions produced and gates consumed."""
        ev = e.vertex
        jv = ev.job_vertex
        graph_vertex = ev.graph_vertex
        produced = []
        for edge in jv.outputs:
            partition = graph_vertex.produced_partitions[edge.data_set.id]
            produced.append(
                ResultPartitionDeploymentDescriptor(
                    edge,
                    (edge.data_set.id, ev.subtask_index, e.attempt_id),
                    partition.number_of_subpartitions,
                    default_max_parallelism(edge.target.max_parallelism, edge.target.parallelism),
                    blocking=edge.result_partition_type.name == "BLOCKING"
                    or partition.result.dynamic_subpartitions is not None,
                )
            )
        gates = []
        two_input = jv.invokable_class == "TwoInputStreamTask"
        for num, edge in enumerate(jv.inputs):
            subs = self.consumed_subpartitions(graph_vertex, num, edge)
            channels = []
            for graph_edge in graph_vertex.input_edges[num]:
                p = graph_edge.source.partition_number
                producer = self.by_key[(edge.source.id, p)].current_execution
                channels.extend(((edge.data_set.id, p, producer.attempt_id), sub) for sub in subs)
            gates.append(
                InputGateDeploymentDescriptor(
                    edge, edge.type_number if two_input else 0, tuple(channels)
                )
            )
        return TaskDeploymentDescriptor(
            job_id=self.jm.job_id,
            job_name=self.jm.job_name,
            job_vertex=jv,
            subtask_index=ev.subtask_index,
            attempt_number=e.attempt_number,
            attempt_id=e.attempt_id,
            allocation_id=e.slot.allocation_id,
            target_slot_number=e.slot.slot_index,
            max_parallelism=default_max_parallelism(jv.max_parallelism, jv.parallelism),
            produced_partitions=tuple(produced),
            input_gates=tuple(gates),
            settings=getattr(self.jm.job_graph.stream_graph, "execution_config", None),
            extra=self._restore_extra(ev),
        )

    def consumed_subpartitions(self, graph_vertex: Any, num: int, edge: Any) -> range:
        """The subpartition(s) the subtask reads of each producer partition on input ``num``."""
        sub = graph_vertex.consumed_subpartition_index(num)
        return range(sub, sub + 1)

    def _restore_extra(self, ev: ExecutionVertex) -> dict[str, Any]:
        """``JobManagerTaskRestore`` of the subtask: its share of the restored checkpoint."""
        if self.restored is None:
            return {}
        key = (ev.job_vertex.id, ev.subtask_index)
        return {
            "restore": self.restored.task_restore.get(key),
            "restore_checkpoint_id": self.restored.checkpoint.checkpoint_id,
            "channel_state": self.restored.channel_states.get(key),
        }

    # -- state updates from TaskExecutors -------------------------------------------------------
    def find_execution(self, attempt_id: str) -> Execution | None:
        """The attempt with ``attempt_id`` (``ExecutionGraph.currentExecutions`` by attempt id):
        attempts are only ever added (ids unique), so an index filled on a miss stays right."""
        found = self._executions_by_attempt.get(attempt_id)
        if found is None:
            self._executions_by_attempt = {
                e.attempt_id: e for ev in self.execution_vertices for e in ev.executions
            }
            found = self._executions_by_attempt.get(attempt_id)
        return found

    def update_task_execution_state(
        self, attempt_id: str, state: ExecutionState, cause: BaseException | None, tb: str | None
    ) -> None:
        """``SchedulerBase.updateTaskExecutionState``."""
        e = self.find_execution(attempt_id)
        if e is None or e.state.is_terminal():
            return
        if state is S.RUNNING and e.state is S.DEPLOYING:
            e.transition_state(S.RUNNING, self.bus)
        elif state is S.FINISHED:
            e.transition_state(S.CANCELED if e.state is S.CANCELING else S.FINISHED, self.bus)
            if e.state is S.FINISHED:
                self.on_task_finished(e)
        elif state is S.CANCELED and e.state is S.CANCELING:
            e.transition_state(S.CANCELED, self.bus)
        elif state in (S.FAILED, S.CANCELED):
            if e.state is S.CANCELING:
                e.transition_state(S.CANCELED, self.bus)
            else:
                self.mark_failed(e, cause or RuntimeError("Task failed."), tb)
                return
        self.jm.check_job_progress()

    def on_task_finished(self, e: Execution) -> None:
        """A subtask FINISHED (``SchedulerBase.onTaskFinished``): the strategy may schedule the
        regions whose BLOCKING inputs it finished."""
        changed = getattr(self.strategy, "on_execution_state_change", None)
        if changed is not None:
            changed()

    def mark_failed(self, e: Execution, cause: BaseException, tb: str | None) -> None:
        """``Execution.markFailed`` → ``handleTaskFailure``."""
        coord = self.jm.checkpoint_coordinator
        if coord is not None:
            coord.fail_unacknowledged_pending_checkpoints_for(e.attempt_id)
        e.failure_cause = cause
        e.failure_traceback = tb or format_failure(cause)
        e.failed_operator = failing_operator(cause)
        trim_to_user_frames(cause)
        note_failure(cause, failed_in(e.name, e.failed_operator, e.attempt_number))
        where = f" on {e.slot.location}" if e.slot is not None else ""
        e.transition_state(S.FAILED, self.bus, suffix=where)
        self.handle_task_failure(e, cause, e.failure_traceback)

    def handle_task_failure(self, e: Execution, cause: BaseException, tb: str) -> None:
        """``DefaultScheduler.handleTaskFailure``: restart the region, or fail the job."""
        jm = self.jm
        if (
            jm.job_status in (JobStatus.FAILING, JobStatus.CANCELLING)
            or jm.job_status.is_terminal_state()
        ):
            jm.check_job_progress()
            return
        if e.vertex.id in self.pending_restart:
            jm.check_job_progress()
            return
        self.failure_cause, self.failure_traceback = cause, tb
        self.last_failed = e
        self.restart_strategy.notify_failure(self.bus.now)
        if not self.restart_strategy.can_restart():
            err = suppressed_failure(e, cause, self.restart_strategy)
            jm.fail_job(err, chained_failure_text(tb, err.failed_in, f"{JOB_EXCEPTION}: {err}"))
            return
        region = next(r for r in self.regions if e.vertex in r)
        self.bus.emit(
            "JobMaster",
            "RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart",
            f"Calculating tasks to restart to recover the failed task {e.vertex.id}.",
            job=jm.job_id,
        )
        self.bus.emit(
            "JobMaster",
            "RestartPipelinedRegionFailoverStrategy.getTasksNeedingRestart",
            f"{len(region)} tasks should be restarted to recover the failed task {e.vertex.id}.",
            job=jm.job_id,
        )
        if jm.job_status is JobStatus.RUNNING:
            jm.transition_job_status(JobStatus.RESTARTING)
        self.pending_restart.update(ev.id for ev in region)
        self.waiting = [w for w in self.waiting if w.vertex not in region]
        for ev in region:
            self.cancel_execution(ev.current_execution)
        delay = self.restart_strategy.backoff_time
        self.restart_event = self.bus.call_later(
            delay, "JobMaster.restart", "DefaultScheduler.restartTasks", self._restart_after_delay
        )
        self._delay_over = False

    def _restart_after_delay(self) -> None:
        self._delay_over = True
        self.maybe_restart()

    def maybe_restart(self) -> None:
        """``restartTasks``: after the delay and once the region's tasks are all terminal."""
        if not self.pending_restart or not getattr(self, "_delay_over", False):
            return
        if self.jm.job_status is not JobStatus.RESTARTING:
            return
        region = [ev for ev in self.execution_vertices if ev.id in self.pending_restart]
        if not all(ev.current_execution.state.is_terminal() for ev in region):
            return
        self.pending_restart.clear()
        self.number_of_restarts += 1
        self.jm.transition_job_status(JobStatus.RUNNING)
        self.jm.slot_pool.release_reserved_slots([self.slot_key(ev) for ev in region])
        for ev in region:
            ev.reset_for_new_execution(self.bus)
        self.restore_state()
        self.strategy.restart_tasks(region)

    def restore_state(self) -> None:
        """``SchedulerBase.restoreState``: abort pending checkpoints, restore the latest one."""
        from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason

        coord = self.jm.checkpoint_coordinator
        if coord is None:
            return
        coord.abort_pending_checkpoints(CheckpointFailureReason.JOB_FAILOVER_REGION)
        self.restored = coord.restore_latest_checkpointed_state()

    def cancel_execution(self, e: Execution) -> None:
        """``Execution.cancel``: nothing deployed → CANCELED; deployed → CANCELING + RPC."""
        if e.state in (S.CREATED, S.SCHEDULED):
            e.transition_state(S.CANCELED, self.bus)
        elif e.state in (S.DEPLOYING, S.RUNNING):
            e.transition_state(S.CANCELING, self.bus)
            te = e.slot.task_executor
            if not te.alive:  # nobody left to answer: the cancellation completes at once
                e.transition_state(S.CANCELED, self.bus)
                return
            attempt = e.attempt_id
            self.bus.send(
                "JobMaster", te.name, "TaskExecutor.cancelTask", lambda: te.cancel_task(attempt)
            )

    def cancel_all(self) -> None:
        self.waiting = []
        self.jm.slot_pool.cancel_pending()
        for ev in self.execution_vertices:
            self.cancel_execution(ev.current_execution)

    def _on_slot_request_timeout(self, req: PendingRequest) -> None:
        """A slot request timed out: the first waiting execution fails with NoResourceAvailable."""
        victims = [e for e in self.waiting if self.slot_key(e.vertex) == req.key]
        if not victims:
            return
        pool = self.jm.slot_pool
        err = NoResourceAvailableException(pool.no_resource_message)
        if pool.no_resource_cause_is_timeout:
            err.__cause__ = TimeoutError(
                f"Slot request {req.allocation_id} timed out after "
                f"{self.bus.config.slot_request_timeout} ms."
            )
        self.mark_failed(victims[0], err, None)
        self.jm.check_job_progress()

    def task_manager_lost(self, te: object) -> None:
        """Heartbeat timeout of a TaskExecutor: its slots are gone, its executions fail."""
        lost = self.jm.slot_pool.release_task_manager(te)  # type: ignore[arg-type]
        lost_ids = {s.allocation_id for s in lost}
        for ev in self.execution_vertices:
            e = ev.current_execution
            if (
                e.slot is not None
                and e.slot.allocation_id in lost_ids
                and not e.state.is_terminal()
            ):
                if e.state is S.CANCELING:
                    e.transition_state(S.CANCELED, self.bus)
                    continue
                err = RuntimeError(
                    f"TaskManager {te.name} is no longer reachable "  # type: ignore[attr-defined]
                    "(heartbeat timeout)."
                )
                self.mark_failed(e, err, None)
        self.jm.check_job_progress()


def suppressed_failure(e: Execution, cause: BaseException, restart_strategy: Any) -> JobException:
    """``ExecutionFailureHandler``'s unrecoverable result: ``Recovery is suppressed by …``, caused
    by the task's exception, with where it failed (the exception history's task and attempt)."""
    err = JobException(suppressed_message(restart_strategy))
    err.__cause__ = cause
    err.failed_task = e.name  # type: ignore[attr-defined]
    err.failed_operator = getattr(e, "failed_operator", None)  # type: ignore[attr-defined]
    err.subtask_index = e.vertex.subtask_index  # type: ignore[attr-defined]
    err.attempt_number = e.attempt_number  # type: ignore[attr-defined]
    err.failed_in = failed_in(e.name, err.failed_operator, e.attempt_number)  # type: ignore[attr-defined]
    return err
