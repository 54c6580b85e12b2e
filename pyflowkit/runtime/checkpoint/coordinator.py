"""The JobMaster's checkpoint coordinator (Flink 1.11's ``CheckpointCoordinator``).

Triggers checkpoints at the sources, collects acknowledgements into ``PendingCheckpoint``s,
completes them into the ``StandaloneCompletedCheckpointStore``, notifies every task, aborts on
declines, timeouts and failures, and hands the latest state back for a restore. It talks to the
rest of the JobMaster through a ``CheckpointGateway`` (RPCs to the TaskExecutors, failing the job).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pyflowkit.common.checkpointing_options import CHECKPOINTS_DIR
from pyflowkit.common.flink_version import default_version, profile_for
from pyflowkit.common.fs_path import local_path
from pyflowkit.errors import (
    CheckpointException,
    IllegalArgumentException,
    IllegalStateException,
)
from pyflowkit.java_semantics import LONG_MAX_VALUE
from pyflowkit.operators.context import default_max_parallelism
from pyflowkit.runtime.checkpoint.checkpoint_plan import (
    CheckpointPlanException,
    DefaultCheckpointPlanCalculator,
    PartialFinishingNotSupportedByStateException,
)
from pyflowkit.runtime.checkpoint.completed_checkpoint import (
    CompletedCheckpoint,
    StandaloneCompletedCheckpointStore,
)
from pyflowkit.runtime.checkpoint.failure_manager import CheckpointFailureManager
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R
from pyflowkit.runtime.checkpoint.failure_reason import checkpoint_exception, reason_of
from pyflowkit.runtime.checkpoint.pending_checkpoint import (
    AckTask,
    PendingCheckpoint,
    TaskAcknowledgeResult,
)
from pyflowkit.runtime.checkpoint.properties import (
    CheckpointOptions,
    CheckpointProperties,
)
from pyflowkit.runtime.checkpoint.request_decider import (
    CheckpointRequestDecider,
    CheckpointTriggerRequest,
    Decision,
)
from pyflowkit.runtime.checkpoint.state_assignment import StateAssignmentOperation, TaskRestore
from pyflowkit.runtime.checkpoint.stats import CheckpointStatsTracker
from pyflowkit.runtime.checkpoint.storage_options import job_configuration
from pyflowkit.runtime.checkpoint.task_state import CheckpointMetrics, TaskStateSnapshot
from pyflowkit.runtime.trace import trace_event_template

# Flink deletes a subsumed checkpoint's state; pyflowkit keeps that of the newest 10 discarded
# ones for inspection (as many as Flink's checkpoint history, web.checkpoints.history, shows)
INSPECTABLE_DISCARDED_CHECKPOINTS = 10
# fast mode keeps the trace events, statistics and completed-checkpoint records of at least this
# many newest checkpoints, at most twice as many (a bounded history, as Flink's web UI keeps
# ``web.checkpoints.history`` entries): an endless job's memory stays flat
FAST_MODE_CHECKPOINT_HISTORY = 100
# the events a bounded history keeps whatever their checkpoint: the job's restores
RESTORE_METHOD = "CheckpointCoordinator.restoreLatestCheckpointedState"


class CheckpointGateway(Protocol):
    """What the coordinator needs from its JobMaster (executions and RPCs to TaskExecutors)."""

    def current_executions(self, vertex_id: str) -> list[Any]: ...

    def trigger_checkpoint(
        self, execution: Any, checkpoint_id: int, timestamp: int, options: CheckpointOptions
    ) -> None: ...

    def trigger_synchronous_savepoint(
        self,
        execution: Any,
        checkpoint_id: int,
        timestamp: int,
        options: CheckpointOptions,
        advance_to_end_of_event_time: bool,
    ) -> None: ...

    def notify_checkpoint_complete(
        self, execution: Any, checkpoint_id: int, timestamp: int
    ) -> None: ...

    def notify_checkpoint_aborted(
        self, execution: Any, checkpoint_id: int, timestamp: int
    ) -> None: ...

    def fail_job(self, cause: BaseException) -> None: ...


@dataclass
class RestoredState:
    """What a restore hands to the scheduler: the checkpoint and each subtask's share."""

    checkpoint: CompletedCheckpoint
    task_restore: TaskRestore
    channel_states: dict[tuple[str, int], Any]


def _ack_task_table(running: list[tuple[Any, Any]]) -> dict[str, AckTask]:
    """attempt id → ``AckTask`` for (job vertex, execution) pairs (``getAckTasks``'s table)."""
    out: dict[str, AckTask] = {}
    per_vertex: dict[str, tuple[Any, ...]] = {}
    for jv, e in running:
        fixed = per_vertex.get(jv.id)
        if fixed is None:
            pairs = list(getattr(jv, "operator_ids", []) or [])
            op_ids = tuple(p.generated_operator_id for p in pairs)
            if len(op_ids) != len(jv.stream_nodes):
                op_ids = tuple(str(n.id) for n in jv.stream_nodes)
            names = tuple(n.operator_name for n in jv.stream_nodes)
            uids = tuple(getattr(n, "uid", None) for n in jv.stream_nodes)
            max_p = default_max_parallelism(jv.max_parallelism, jv.parallelism)
            fixed = per_vertex[jv.id] = (max_p, op_ids, names, uids)
        max_p, op_ids, names, uids = fixed
        out[e.attempt_id] = AckTask(
            e.attempt_id,
            jv.id,
            jv.name,
            e.vertex.subtask_index,
            jv.parallelism,
            max_p,
            op_ids,
            names,
            uids,
        )
    return out


def _names(executions: Any) -> str:
    return "[" + ", ".join(e.vertex.name for e in executions) + "]"


def _plan_calculator(job_graph: Any, gateway: Any) -> DefaultCheckpointPlanCalculator | None:
    """The 1.20 profile's ``DefaultCheckpointPlanCalculator``; None under 1.11 (its own checks)."""
    settings = getattr(job_graph.stream_graph, "execution_config", None)
    finished_tasks = profile_for(
        getattr(settings, "flink_version", None) or default_version()
    ).finished_tasks
    if not finished_tasks.supported:
        return None
    allow = finished_tasks.enabled(getattr(settings, "configuration", None))
    return DefaultCheckpointPlanCalculator(job_graph.job_id, job_graph.vertices, gateway, allow)


def _union_state_rule(job_graph: Any) -> Any:
    """The profile's ``UnionStatePartlyFinished`` rule for this job."""
    settings = getattr(job_graph.stream_graph, "execution_config", None)
    version = getattr(settings, "flink_version", None) or default_version()
    return profile_for(version).union_state_partly_finished


class CheckpointCoordinator:
    """Flink's ``CheckpointCoordinator`` for one job (trace events name its methods)."""

    def __init__(self, job_graph: Any, bus: Any, gateway: CheckpointGateway) -> None:
        settings = job_graph.checkpointing_settings
        self.job_graph = job_graph
        self.job_id = job_graph.job_id
        self.bus = bus
        self.gateway = gateway
        self.settings = settings
        # SavepointRestoreSettings.allowNonRestoredState of the savepoint the job started from;
        # every later restore (a failover) keeps it
        self.allow_non_restored_state = False
        self.interval = settings.checkpoint_interval
        self.timeout = settings.checkpoint_timeout
        self.is_exactly_once = settings.is_exactly_once
        self.unaligned = settings.is_unaligned_checkpoints_enabled
        self.retention_policy = settings.retention_policy
        by_id = {v.id: v for v in job_graph.vertices}
        self.tasks_to_trigger = [by_id[i] for i in settings.vertices_to_trigger if i in by_id]
        self.tasks_to_wait_for = [by_id[i] for i in settings.vertices_to_acknowledge if i in by_id]
        self.tasks_to_commit_to = [by_id[i] for i in settings.vertices_to_confirm if i in by_id]
        num_retained = getattr(settings, "num_retained", 1)
        sg_cfg = getattr(job_graph.stream_graph, "checkpoint_config", None)
        num_retained = getattr(sg_cfg, "num_retained", num_retained) or 1
        self.store = StandaloneCompletedCheckpointStore(
            num_retained, settings.prefer_checkpoint_for_recovery
        )
        self.store.on_discard = self._on_discard
        # discarded checkpoints whose state is still kept for inspection, oldest first
        self.inspectable_discarded: deque[CompletedCheckpoint] = deque()
        self.inspectable_history = INSPECTABLE_DISCARDED_CHECKPOINTS
        self.fast_mode_history = FAST_MODE_CHECKPOINT_HISTORY
        self._history_bounded_at = 0  # the checkpoint id of the last bounding
        self.failure_manager = CheckpointFailureManager(
            settings.tolerable_checkpoint_failure_number, self._fail_job
        )
        self.decider = CheckpointRequestDecider(
            settings.max_concurrent_checkpoints, settings.min_pause_between_checkpoints
        )
        self.stats = CheckpointStatsTracker(
            {v.id: (v.name, v.parallelism) for v in job_graph.vertices}
        )
        self.pending: dict[int, PendingCheckpoint] = {}
        self.aborted_ids: set[int] = set()
        self.completed_by_id: dict[int, CompletedCheckpoint] = {}
        self.checkpoint_id_counter = 1
        self.last_checkpoint_completion = -(2**62)
        self.periodic_scheduling = False
        self.shutdown = False
        self._timer: Any = None
        self._rng = random.Random(f"checkpoint-scheduler-{bus.config.seed}")
        self.savepoint_targets: dict[int, str] = {}
        # checkpoint id → called with True on completion, False on abort (stop/cancel-with-savepoint)
        self.completion_callbacks: dict[int, Callable[[bool], None]] = {}
        self._trace_template: dict[str, Any] | None = None  # the fields of every event
        self._checkpoint_props: CheckpointProperties | None = None  # forCheckpoint(retention)
        # the ack-task table of the last set of attempt ids (rebuilt after a restart)
        self._ack_table_key: tuple[str, ...] = ()
        self._ack_table: dict[str, AckTask] = {}
        # FLIP-147 (the 1.20 profile): a CheckpointPlan per trigger instead of 1.11's checks
        self.plan_calculator = _plan_calculator(job_graph, gateway)
        # the UNION_STATE_PARTLY_FINISHED rule: DefaultCheckpointPlan.mayHaveFinishedTasks
        self._checks_partly_finished_union_state = _union_state_rule(job_graph).refused(
            self.plan_calculator is not None
            and self.plan_calculator.allow_checkpoints_after_tasks_finished
        )

    # -- subsumed checkpoints -------------------------------------------------------------------
    def _on_discard(self, checkpoint: CompletedCheckpoint) -> None:
        """The store subsumed ``checkpoint``: report it; its state stays inspectable (e.g.
        ``keyed_state_at``) until ``inspectable_history`` newer ones were discarded."""
        self.stats.report_discarded(checkpoint.checkpoint_id)
        if not checkpoint.discarded:  # kept by its properties (a savepoint): never released
            return
        history = self.inspectable_discarded
        history.append(checkpoint)
        while len(history) > self.inspectable_history:
            history.popleft().release_state()

    # -- trace ----------------------------------------------------------------------------------
    def _emit(self, method: str, message: str, checkpoint_id: int | None = None, **kw: Any) -> None:
        if checkpoint_id is not None:
            kw["checkpoint"] = checkpoint_id
        self.bus.emit_from(self.event_template(), method, message, kw)

    def event_template(self) -> dict[str, Any]:
        """The fields of every event of the coordinator (the JobMaster's, about this job)."""
        template = self._trace_template
        if template is None or template["job"] != self.job_id:
            template = self._trace_template = trace_event_template("JobMaster", job=self.job_id)
        return template

    def _emit_about(self, method: str, message: str, checkpoint_id: int) -> None:
        """``_emit(method, message, checkpoint_id)`` without the keyword dict."""
        self.bus.emit_about_checkpoint(self.event_template(), method, message, checkpoint_id)

    @property
    def is_periodic_checkpointing_configured(self) -> bool:
        return 0 < self.interval < LONG_MAX_VALUE

    # -- periodic scheduling (CheckpointCoordinatorDeActivator) ---------------------------------
    def job_status_changed(self, new_status: str) -> None:
        """``CheckpointCoordinatorDeActivator.jobStatusChanges``."""
        if not self.is_periodic_checkpointing_configured or self.shutdown:
            return
        if new_status == "RUNNING":
            self.start_checkpoint_scheduler()
        else:
            self.stop_checkpoint_scheduler()

    def start_checkpoint_scheduler(self) -> None:
        """``startCheckpointScheduler``: first trigger after a random delay in [minPause, interval]."""
        if self.shutdown:
            raise IllegalStateException("Checkpoint coordinator is shut down")
        self.stop_checkpoint_scheduler(abort=False)
        self.periodic_scheduling = True
        lo = min(self.decider.min_pause, self.interval)
        self._schedule_periodic(self._rng.randint(lo, self.interval))

    def _schedule_periodic(self, delay: int) -> None:
        if self._timer is not None:
            self._timer.cancelled = True
        self._timer = self.bus.call_later(
            delay, "CheckpointCoordinator", "ScheduledTrigger.run", self._periodic_tick
        )

    def _periodic_tick(self) -> None:
        self._timer = None
        if not self.periodic_scheduling:
            return
        self._schedule_periodic(self.interval)  # fixed rate
        self.trigger_checkpoint(is_periodic=True)

    def stop_checkpoint_scheduler(self, abort: bool = True) -> None:
        """``stopCheckpointScheduler``: stop the timer, abort pending (COORDINATOR_SUSPEND)."""
        self.periodic_scheduling = False
        if self._timer is not None:
            self._timer.cancelled = True
            self._timer = None
        self.decider.queued.clear()
        if abort:
            self.abort_pending_checkpoints(R.CHECKPOINT_COORDINATOR_SUSPEND)

    def shutdown_coordinator(self) -> None:
        """``shutdown``: stop everything; pending checkpoints fail with COORDINATOR_SHUTDOWN."""
        if self.shutdown:
            return
        self.stop_checkpoint_scheduler(abort=False)
        self.abort_pending_checkpoints(R.CHECKPOINT_COORDINATOR_SHUTDOWN)
        self.shutdown = True

    # -- triggering -----------------------------------------------------------------------------
    def trigger_checkpoint(
        self,
        is_periodic: bool = False,
        props: CheckpointProperties | None = None,
        target_location: str | None = None,
        advance_to_end_of_time: bool = False,
    ) -> int | None:
        """``triggerCheckpoint``: the new checkpoint id, or None when a periodic one waits/drops.

        A request that is not periodic raises ``CheckpointException`` when it cannot start.
        ``advance_to_end_of_time`` (stop-with-savepoint ``--drain``) needs a synchronous savepoint.
        """
        if props is None:
            props = self._checkpoint_props
            if props is None:  # frozen, and the retention policy is the job's: made once
                props = self._checkpoint_props = CheckpointProperties.for_checkpoint(
                    self.retention_policy
                )
        if advance_to_end_of_time and not (props.is_synchronous and props.is_savepoint):
            raise IllegalArgumentException(
                "Only synchronous savepoints are allowed to advance the watermark to MAX."
            )
        request = CheckpointTriggerRequest(is_periodic, props.forced, props.checkpoint_type.name)
        decision, reason = self.decider.decide(
            request, len(self.pending), self.bus.now, self.last_checkpoint_completion
        )
        if decision is Decision.QUEUE:
            self.decider.queued.append(request)
            self._emit(
                "CheckpointRequestDecider.chooseRequestToExecute",
                f"Checkpoint request queued: {len(self.pending)} checkpoint(s) in progress, "
                f"maximum {self.decider.max_concurrent}.",
            )
            return None
        if decision is Decision.DROP:
            assert reason is not None
            if reason is R.MINIMUM_TIME_BETWEEN_CHECKPOINTS and self.periodic_scheduling:
                self._schedule_periodic(
                    self.last_checkpoint_completion + self.decider.min_pause - self.bus.now
                )
            return self._trigger_failed(reason, is_periodic)
        return self._start_triggering(is_periodic, props, target_location, advance_to_end_of_time)

    def trigger_synchronous_savepoint(
        self, advance_to_end_of_event_time: bool, target_location: str
    ) -> int:
        """``triggerSynchronousSavepoint`` (stop-with-savepoint): a forced ``SYNC_SAVEPOINT``.

        1.11 has one checkpoint type for both ``flink stop`` and ``flink stop --drain``; the drain
        flag travels beside the barrier's options (1.13 split it into SAVEPOINT_SUSPEND/TERMINATE).
        """
        self._emit(
            "CheckpointCoordinator.triggerSynchronousSavepoint",
            f"Triggering a synchronous savepoint (advanceToEndOfEventTime="
            f"{str(advance_to_end_of_event_time).lower()}) into {target_location} for job "
            f"{self.job_id}.",
        )
        cid = self.trigger_checkpoint(
            props=CheckpointProperties.for_sync_savepoint(),
            target_location=target_location,
            advance_to_end_of_time=advance_to_end_of_event_time,
        )
        assert cid is not None  # forced and not periodic: it starts or raises
        return cid

    def _trigger_failed(self, reason: R, is_periodic: bool) -> None:
        self._emit(
            "CheckpointCoordinator.onTriggerFailure",
            f"Failed to trigger checkpoint for job {self.job_id} because {reason.message}",
        )
        if not is_periodic:
            raise checkpoint_exception(reason)
        return None

    def _start_triggering(
        self,
        is_periodic: bool,
        props: CheckpointProperties,
        target: str | None,
        advance_to_end_of_time: bool = False,
    ) -> int | None:
        """``startTriggeringCheckpoint``: pre-checks, id, PendingCheckpoint, trigger the sources."""
        if self.shutdown:
            return self._trigger_failed(R.CHECKPOINT_COORDINATOR_SHUTDOWN, is_periodic)
        if is_periodic and not self.periodic_scheduling:
            return self._trigger_failed(R.PERIODIC_SCHEDULER_SHUTDOWN, is_periodic)
        plan = None
        if self.plan_calculator is not None:
            try:
                plan = self.plan_calculator.calculate_checkpoint_plan()
            except CheckpointPlanException as exc:
                self._emit("DefaultCheckpointPlanCalculator.calculateCheckpointPlan", str(exc))
                return self._trigger_failed(R.NOT_ALL_REQUIRED_TASKS_RUNNING, is_periodic)
            executions = plan.tasks_to_trigger
            ack_tasks = self._ack_tasks_of(plan.tasks_to_wait_for)
        else:
            executions = self._get_trigger_executions()
            if executions is None:
                return self._trigger_failed(R.NOT_ALL_REQUIRED_TASKS_RUNNING, is_periodic)
            ack_tasks = self._get_ack_tasks()
            if ack_tasks is None:
                return self._trigger_failed(R.NOT_ALL_REQUIRED_TASKS_RUNNING, is_periodic)
        checkpoint_id = self.checkpoint_id_counter
        self.checkpoint_id_counter += 1
        timestamp = self.bus.now
        location = target or f"<checkpoint-{checkpoint_id}>"
        finished: dict[str, AckTask] = {}
        fully_finished: set[str] = set()
        if plan is not None and plan.finished_tasks:
            finished = _ack_task_table([(e.vertex.job_vertex, e) for e in plan.finished_tasks])
            fully_finished = {jv.id for jv in plan.fully_finished_job_vertices}
        pending = PendingCheckpoint(
            self.job_id,
            checkpoint_id,
            timestamp,
            ack_tasks,
            props,
            target,
            finished_tasks=finished,
            fully_finished_vertices=fully_finished,
            may_have_finished_tasks=self._checks_partly_finished_union_state,
        )
        self.pending[checkpoint_id] = pending
        pending.canceller = self.bus.call_later(
            self.timeout,
            "CheckpointCoordinator",
            "CheckpointCanceller.run",
            lambda: self._expire(checkpoint_id),
        )
        self.stats.report_pending_checkpoint(checkpoint_id, timestamp, props.is_savepoint)
        kind = props.checkpoint_type.value
        self._emit_about(
            "CheckpointCoordinator.createPendingCheckpoint",
            f"Triggering checkpoint {checkpoint_id} (type={kind}) @ {timestamp} for job "
            f"{self.job_id}.",
            checkpoint_id,
        )
        if plan is not None and plan.finished_tasks:
            self._emit_about(
                "DefaultCheckpointPlanCalculator.calculateAfterTasksFinished",
                f"Checkpoint {checkpoint_id} of job {self.job_id} with finished tasks: "
                f"triggering {_names(e for e in executions)}; waiting for "
                f"{len(plan.tasks_to_wait_for)} running task(s); finished: "
                f"{_names(plan.finished_tasks)}; fully finished operators "
                f"(FullyFinishedOperatorState): {plan.fully_finished_operators() or 'none'}.",
                checkpoint_id,
            )
        options = CheckpointOptions.create(
            props.checkpoint_type, self.is_exactly_once, self.unaligned, location
        )
        synchronous = props.is_synchronous
        what = "synchronous savepoint" if synchronous else "checkpoint"
        method = (
            "Execution.triggerSynchronousSavepoint"
            if synchronous
            else "Execution.triggerCheckpoint"
        )
        template = self.event_template()
        for e in executions:
            ev = e.vertex
            self.bus.emit_from(
                template,
                method,
                f"Triggering {what} {checkpoint_id} at source {ev.name} "
                f"(attempt #{e.attempt_number}).",
                {
                    "checkpoint": checkpoint_id,
                    "vertex": ev.job_vertex.name,
                    "subtask": ev.subtask_index,
                    "attempt": e.attempt_number,
                },
            )
            if synchronous:
                self.gateway.trigger_synchronous_savepoint(
                    e, checkpoint_id, timestamp, options, advance_to_end_of_time
                )
            else:
                self.gateway.trigger_checkpoint(e, checkpoint_id, timestamp, options)
        return checkpoint_id

    def _get_trigger_executions(self) -> list[Any] | None:
        """``getTriggerExecutions``: every source subtask must be RUNNING."""
        out = []
        for jv in self.tasks_to_trigger:
            for e in self.gateway.current_executions(jv.id):
                state = e.state.value
                if state != "RUNNING":
                    self._emit(
                        "CheckpointCoordinator.getTriggerExecutions",
                        f"Checkpoint triggering task {e.vertex.name} of job {self.job_id} is not "
                        f"in state RUNNING but {state} instead. Aborting checkpoint.",
                        vertex=jv.name,
                        subtask=e.vertex.subtask_index,
                        attempt=e.attempt_number,
                    )
                    return None
                out.append(e)
        return out

    def _get_ack_tasks(self) -> dict[str, AckTask] | None:
        """``getAckTasks``: attempt id → subtask for every vertex (all must be deployed).

        The table is the same for the same attempts: it is built again only after a restart.
        The caller copies it (``PendingCheckpoint``); nobody changes it.
        """
        running: list[tuple[Any, Any]] = []
        for jv in self.tasks_to_wait_for:
            for e in self.gateway.current_executions(jv.id):
                if e.state.value != "RUNNING":
                    self._emit(
                        "CheckpointCoordinator.getAckTasks",
                        f"Checkpoint acknowledging task {e.vertex.name} of job {self.job_id} is "
                        f"not being executed at the moment. Aborting checkpoint.",
                        vertex=jv.name,
                        subtask=e.vertex.subtask_index,
                    )
                    return None
                running.append((jv, e))
        return self._ack_tasks_of(running)

    def _ack_tasks_of(self, running: list[tuple[Any, Any]]) -> dict[str, AckTask]:
        """``_ack_task_table(running)``, built again only when the attempts changed (a restart,
        a task finishing under 1.20's plan): an attempt's ``AckTask`` never changes."""
        key = tuple(e.attempt_id for _, e in running)
        if key != self._ack_table_key or not key:
            self._ack_table = _ack_task_table(running)
            self._ack_table_key = key
        return self._ack_table

    # -- acknowledgements -----------------------------------------------------------------------
    def receive_acknowledge_message(
        self,
        attempt_id: str,
        checkpoint_id: int,
        metrics: CheckpointMetrics,
        snapshot: TaskStateSnapshot | None,
        tm_location: str = "",
    ) -> None:
        """``receiveAcknowledgeMessage``."""
        if self.shutdown:
            return
        pending = self.pending.get(checkpoint_id)
        if pending is None or pending.discarded:
            if checkpoint_id in self.aborted_ids or checkpoint_id < self.checkpoint_id_counter:
                self._emit(
                    "CheckpointCoordinator.receiveAcknowledgeMessage",
                    f"Received late message for now expired checkpoint attempt {checkpoint_id} "
                    f"from task {attempt_id} of job {self.job_id} at {tm_location}.",
                    checkpoint_id,
                )
            else:
                self._emit(
                    "CheckpointCoordinator.receiveAcknowledgeMessage",
                    f"Received message for an unknown checkpoint {checkpoint_id} from task "
                    f"{attempt_id} of job {self.job_id} at {tm_location}.",
                    checkpoint_id,
                )
            return
        task = pending.ack_tasks.get(attempt_id)
        result = pending.acknowledge_task(attempt_id, snapshot, metrics, self.bus.now)
        subj = {}
        if task is not None:
            subj = {"vertex": task.vertex_name, "subtask": task.subtask_index}
        if result is TaskAcknowledgeResult.SUCCESS:
            assert task is not None
            self.stats.report_subtask_stats(
                checkpoint_id,
                task.vertex_id,
                task.subtask_index,
                pending.subtask_stats[(task.vertex_id, task.subtask_index)],
            )
            subj["checkpoint"] = checkpoint_id
            self.bus.emit_from(
                self.event_template(),
                "PendingCheckpoint.acknowledgeTask",
                f"Received acknowledge message for checkpoint {checkpoint_id} from task "
                f"{attempt_id} of job {self.job_id} at {tm_location} "
                f"({len(pending.acknowledged)}/{len(pending.ack_tasks)}).",
                subj,
            )
            if pending.are_tasks_fully_acknowledged():
                self.complete_pending_checkpoint(pending)
        elif result is TaskAcknowledgeResult.DUPLICATE:
            self._emit(
                "PendingCheckpoint.acknowledgeTask",
                f"Received a duplicate acknowledge message for checkpoint {checkpoint_id}, task "
                f"{attempt_id}, job {self.job_id}, location {tm_location}.",
                checkpoint_id,
                **subj,
            )
        elif result is TaskAcknowledgeResult.UNKNOWN:
            self._emit(
                "PendingCheckpoint.acknowledgeTask",
                f"Could not acknowledge the checkpoint {checkpoint_id} for task {attempt_id} of "
                f"job {self.job_id} at {tm_location}, because the task's execution attempt id "
                "was unknown. Discarding the state handle to avoid lingering state.",
                checkpoint_id,
            )

    def receive_decline_message(
        self,
        attempt_id: str,
        checkpoint_id: int,
        cause: BaseException | None,
        tm_location: str = "",
    ) -> None:
        """``receiveDeclineMessage``: the whole checkpoint is aborted."""
        if self.shutdown:
            return
        self._emit(
            "CheckpointCoordinator.receiveDeclineMessage",
            f"Decline checkpoint {checkpoint_id} by task {attempt_id} of job {self.job_id} at "
            f"{tm_location}.",
            checkpoint_id,
        )
        pending = self.pending.get(checkpoint_id)
        if pending is None or pending.discarded:
            return
        if cause is None:
            reason = R.CHECKPOINT_DECLINED
        else:
            reason = reason_of(cause) or R.JOB_FAILURE
        self.abort_pending_checkpoint(pending, reason)

    # -- completion -----------------------------------------------------------------------------
    def complete_pending_checkpoint(self, pending: PendingCheckpoint) -> None:
        """``completePendingCheckpoint``: finalize, store, subsume older, notify all tasks."""
        checkpoint_id = pending.checkpoint_id
        now = self.bus.now
        try:
            completed = pending.finalize_checkpoint(now)
        except PartialFinishingNotSupportedByStateException as exc:
            # finalizeCheckpoint: a partly finished vertex uses union list state (FLIP-147)
            self.abort_pending_checkpoint(pending, R.CHECKPOINT_DECLINED_TASK_CLOSING, str(exc))
            return
        target = self.savepoint_targets.pop(checkpoint_id, None)
        checkpoints_dir = job_configuration(self.job_graph).get(CHECKPOINTS_DIR)
        if target is not None or checkpoints_dir:
            from pyflowkit.runtime.checkpoint.savepoint import savepoint_directory, write_savepoint
            from pyflowkit.state.user_types import trusts_pickled

            if target is not None:
                where = savepoint_directory(target, self.job_id, f"{self.bus.new_id()}")
            else:  # FileSystemCheckpointStorage: <state.checkpoints.dir>/<job id>/chk-<n>
                base = local_path(checkpoints_dir, CHECKPOINTS_DIR)
                where = Path(base) / self.job_id / f"chk-{checkpoint_id}"
            try:
                path = write_savepoint(
                    where,
                    self.job_id,
                    checkpoint_id,
                    pending.checkpoint_timestamp,
                    completed.operator_states,
                    trusts_pickled(job_configuration(self.job_graph)),
                )
            except Exception as exc:  # noqa: BLE001 - state without a JSON form, I/O errors
                self.pending_failure_cause = exc
                self.abort_pending_checkpoint(pending, R.FINALIZE_CHECKPOINT_FAILURE, str(exc))
                return
            completed.external_pointer = str(path)
        if pending.canceller is not None:
            pending.canceller.cancelled = True
        del self.pending[checkpoint_id]
        self.failure_manager.handle_checkpoint_success(checkpoint_id)
        self.store.add_checkpoint(completed)
        self._emit_about(
            "StandaloneCompletedCheckpointStore.addCheckpoint",
            f"Added {completed} to the CompletedCheckpointStore (retaining "
            f"{self.store.get_number_of_retained_checkpoints()} of at most "
            f"{self.store.max_retained}).",
            checkpoint_id,
        )
        self.completed_by_id[checkpoint_id] = completed
        self.stats.report_completed(checkpoint_id, completed.external_pointer)
        self.last_checkpoint_completion = now
        for older in sorted(self.pending.values(), key=lambda p: p.checkpoint_id):
            if older.checkpoint_id < checkpoint_id and older.can_be_subsumed():
                self.abort_pending_checkpoint(older, R.CHECKPOINT_SUBSUMED)
        size = self.stats.by_id[checkpoint_id]["state_size"]
        self._emit_about(
            "CheckpointCoordinator.completePendingCheckpoint",
            f"Completed checkpoint {checkpoint_id} for job {self.job_id} ({size} bytes in "
            f"{now - pending.checkpoint_timestamp} ms).",
            checkpoint_id,
        )
        template = self.event_template()
        acknowledged = pending.ack_tasks
        for jv in self.tasks_to_commit_to:
            for e in self.gateway.current_executions(jv.id):
                if e.attempt_id in acknowledged:
                    ev = e.vertex
                    self.bus.emit_from(
                        template,
                        "Execution.notifyCheckpointComplete",
                        f"Notifying {ev.name} (attempt #{e.attempt_number}) that checkpoint "
                        f"{checkpoint_id} completed.",
                        {
                            "checkpoint": checkpoint_id,
                            "vertex": jv.name,
                            "subtask": ev.subtask_index,
                            "attempt": e.attempt_number,
                        },
                    )
                    self.gateway.notify_checkpoint_complete(
                        e, checkpoint_id, pending.checkpoint_timestamp
                    )
        callback = self.completion_callbacks.pop(checkpoint_id, None)
        if callback is not None:
            callback(True)
        if self.bus.fast and checkpoint_id - self._history_bounded_at >= self.fast_mode_history:
            self._bound_history(checkpoint_id)
        self._execute_queued_request()

    def _bound_history(self, checkpoint_id: int) -> None:
        """Fast mode: forget what is older than the newest ``fast_mode_history`` checkpoints
        (their protocol events recorded in fast mode, their statistics, the records of
        completed checkpoints whose state was released); counts and summary stay exact."""
        self._history_bounded_at = checkpoint_id
        oldest_kept = checkpoint_id - self.fast_mode_history + 1
        self.bus.forget_checkpoint_events(oldest_kept, frozenset({RESTORE_METHOD}))
        self.stats.forget_older(self.fast_mode_history)
        for cid in [c for c in self.completed_by_id if c < oldest_kept]:
            if self.completed_by_id[cid].state_released:
                del self.completed_by_id[cid]

    def _execute_queued_request(self) -> None:
        while self.decider.queued and len(self.pending) < self.decider.max_concurrent:
            request = self.decider.queued.pop(0)
            self.trigger_checkpoint(is_periodic=request.is_periodic)

    # -- aborting -------------------------------------------------------------------------------
    def _expire(self, checkpoint_id: int) -> None:
        pending = self.pending.get(checkpoint_id)
        if pending is None or pending.discarded:
            return
        self._emit(
            "CheckpointCoordinator$CheckpointCanceller.run",
            f"Checkpoint {checkpoint_id} of job {self.job_id} expired before completing.",
            checkpoint_id,
        )
        self.abort_pending_checkpoint(pending, R.CHECKPOINT_EXPIRED)

    def abort_pending_checkpoint(
        self, pending: PendingCheckpoint, reason: R, detail: str | None = None
    ) -> None:
        """``abortPendingCheckpoint``: discard, count the failure, tell the tasks."""
        checkpoint_id = pending.checkpoint_id
        if pending.discarded:
            return
        pending.abort(reason)
        self.pending.pop(checkpoint_id, None)
        self.aborted_ids.add(checkpoint_id)
        self.savepoint_targets.pop(checkpoint_id, None)
        message = reason.message if detail is None else f"{reason.message} {detail}"
        self.stats.report_failed(checkpoint_id, self.bus.now, message)
        self._emit(
            "CheckpointCoordinator.abortPendingCheckpoint",
            f"Checkpoint {checkpoint_id} of job {self.job_id} failed: {message}",
            checkpoint_id,
        )
        self.failure_manager.handle_job_level_checkpoint_exception(reason, checkpoint_id)
        for attempt_id in pending.ack_tasks:
            e = self._execution(attempt_id)
            if e is not None and e.state.value == "RUNNING":
                self.gateway.notify_checkpoint_aborted(
                    e, checkpoint_id, pending.checkpoint_timestamp
                )
        callback = self.completion_callbacks.pop(checkpoint_id, None)
        if callback is not None:
            callback(False)
        if not self.shutdown:
            self._execute_queued_request()

    @property
    def aborts_on_trigger_failure(self) -> bool:
        """1.20's ``triggerCheckpointRequest`` waits for the sources' ``triggerCheckpoint``
        replies (``triggerTasks``) and aborts the checkpoint when one fails; 1.11's
        ``Execution.triggerCheckpoint`` ignores them."""
        return self.plan_calculator is not None

    def on_trigger_tasks_failure(self, checkpoint_id: int, message: str) -> None:
        """A source's ``triggerCheckpoint`` failed (its task finished before the RPC arrived):
        ``abortPendingCheckpoint(checkpoint, cause)`` with the TaskExecutor's
        ``CheckpointException`` (TASK_CHECKPOINT_FAILURE, not counted as a failure); the next
        trigger's plan sees the task FINISHED."""
        pending = self.pending.get(checkpoint_id)
        if self.shutdown or pending is None or pending.discarded:
            return
        self.abort_pending_checkpoint(pending, R.TASK_CHECKPOINT_FAILURE, message)

    def abort_pending_checkpoints(self, reason: R) -> None:
        """``abortPendingCheckpoints``: every pending checkpoint, oldest first."""
        for pending in sorted(self.pending.values(), key=lambda p: p.checkpoint_id):
            self.abort_pending_checkpoint(pending, reason)

    def fail_unacknowledged_pending_checkpoints_for(self, attempt_id: str) -> None:
        """``failUnacknowledgedPendingCheckpointsFor``: a task failed → TASK_FAILURE."""
        for pending in sorted(self.pending.values(), key=lambda p: p.checkpoint_id):
            if attempt_id in pending.not_yet_acknowledged:
                self.abort_pending_checkpoint(pending, R.TASK_FAILURE)

    def _execution(self, attempt_id: str) -> Any:
        for jv in self.tasks_to_wait_for:
            for e in self.gateway.current_executions(jv.id):
                if e.attempt_id == attempt_id:
                    return e
        return None

    def _fail_job(self, cause: BaseException) -> None:
        self.gateway.fail_job(cause)

    # -- restore --------------------------------------------------------------------------------
    def restore_latest_checkpointed_state(
        self, vertices: list[Any] | None = None, allow_non_restored_state: bool | None = None
    ) -> RestoredState | None:
        """``restoreLatestCheckpointedStateToAll``/``ToSubtasks``: None without a checkpoint."""
        if allow_non_restored_state is None:  # a failover keeps the job's restore settings
            allow_non_restored_state = self.allow_non_restored_state
        latest = self.store.get_latest_checkpoint()
        if latest is None:
            self._emit(
                RESTORE_METHOD,
                f"No checkpoint to restore for job {self.job_id}: starting from scratch.",
            )
            return None
        self._emit(
            RESTORE_METHOD,
            f"Restoring job {self.job_id} from latest valid checkpoint: {latest}.",
            latest.checkpoint_id,
        )
        self._emit(
            RESTORE_METHOD,
            "No master state to restore",
            latest.checkpoint_id,
        )
        op = StateAssignmentOperation(
            latest.operator_states,
            vertices or self.job_graph.vertices,
            str(latest),
            allow_non_restored_state,
        )
        self.stats.report_restored(
            latest.checkpoint_id, self.bus.now, latest.is_savepoint, latest.external_pointer
        )
        return RestoredState(latest, op.assign_states(), dict(latest.channel_states))

    def restore_savepoint(
        self, path: str, allow_non_restored_state: bool = False
    ) -> RestoredState | None:
        """``restoreSavepoint``: load and validate it, make it the latest checkpoint, restore."""
        from pyflowkit.runtime.checkpoint.savepoint import read_savepoint
        from pyflowkit.runtime.checkpoint.state_assignment import check_state_mapping
        from pyflowkit.runtime.checkpoint.state_types import check_state_types
        from pyflowkit.state.user_types import job_state_classes

        metadata, states = read_savepoint(path, job_state_classes(self.job_graph))
        check_state_mapping(states, self.job_graph.vertices, path, allow_non_restored_state)
        check_state_types(states, self.job_graph.vertices, str(path), "state file")
        self.allow_non_restored_state = allow_non_restored_state
        allowing = "allowing non restored state" if allow_non_restored_state else ""
        self._emit(
            "CheckpointCoordinator.restoreSavepoint",
            f"Starting job {self.job_id} from savepoint {path} ({allowing})",
        )
        timestamp = int(metadata["timestamp"])
        completed = CompletedCheckpoint(
            self.job_id,
            int(metadata["checkpoint_id"]),
            timestamp,
            timestamp,
            states,
            CheckpointProperties.for_savepoint(),
            external_pointer=str(path),
        )
        self.add_restored_savepoint(completed)
        self._emit(
            "CheckpointCoordinator.restoreSavepoint",
            f"Reset the checkpoint ID of job {self.job_id} to {self.checkpoint_id_counter}.",
        )
        return self.restore_latest_checkpointed_state(
            allow_non_restored_state=allow_non_restored_state
        )

    def add_restored_savepoint(self, completed: CompletedCheckpoint) -> None:
        """A savepoint a job starts from becomes its latest checkpoint (ids continue after it)."""
        self.store.add_checkpoint(completed)
        self.completed_by_id[completed.checkpoint_id] = completed
        self.checkpoint_id_counter = max(self.checkpoint_id_counter, completed.checkpoint_id + 1)

    def get_checkpoint(self, checkpoint_id: int) -> CompletedCheckpoint:
        cp = self.completed_by_id.get(checkpoint_id)
        if cp is None:
            known = sorted(self.completed_by_id)
            raise CheckpointException(
                f"No completed checkpoint {checkpoint_id} for job {self.job_id}; completed: "
                f"{known}.",
                R.CHECKPOINT_DECLINED.name,
            )
        return cp
