"""The TaskExecutor-side task (Flink's ``Task``): its thread, its state machine, its network."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from pyflowkit.common.flink_version import V1_11, profile_for
from pyflowkit.operators.context import TaskEnvironment, default_max_parallelism
from pyflowkit.operators.user_failure import user_traceback
from pyflowkit.runtime.back_pressure import BackPressureTimer
from pyflowkit.runtime.checkpoint.properties import CheckpointOptions
from pyflowkit.runtime.checkpoint.task_checkpoint_driver import TaskCheckpointDriver
from pyflowkit.runtime.deployment import TaskDeploymentDescriptor
from pyflowkit.runtime.execution_state import TASK_TRANSITIONS, ExecutionState, check_transition
from pyflowkit.runtime.mailbox import MAX_PRIORITY, MIN_PRIORITY, Mail, MailboxProcessor
from pyflowkit.runtime.network import ResultPartition, SingleInputGate
from pyflowkit.runtime.processing_time import SimulatedProcessingTimeService
from pyflowkit.runtime.record_writer import RecordWriter
from pyflowkit.runtime.stream_task import STREAM_TASK_CLASSES, StreamTask
from pyflowkit.runtime.trace import trace_event_template
from pyflowkit.task.processing_clock import step_millis

if TYPE_CHECKING:
    from pyflowkit.runtime.task_executor import TaskExecutor

S = ExecutionState
# a blocking partition of a dynamic graph keeps every buffer until its consumer runs
UNBOUNDED_POOL = 1 << 62


format_failure = user_traceback  # the task's failure text: the user's frames only


class Task:
    """Flink's ``Task``: deploys, runs the invokable (a StreamTask) and reports its final state.

    Every piece of work is one event on the task's lane: ``Task.run`` (CREATED → DEPLOYING →
    RUNNING), ``StreamTask.invoke`` (beforeInvoke), one event per mailbox step, and
    ``StreamTask.afterInvoke`` (→ FINISHED).
    """

    def __init__(self, tdd: TaskDeploymentDescriptor, task_executor: TaskExecutor) -> None:
        self.tdd = tdd
        self.task_executor = task_executor
        self.bus = task_executor.bus
        self.host = task_executor.host
        self.chain_factory = self.host.chain_factory
        self.attempt_id = tdd.attempt_id
        self.name = tdd.task_name_with_subtasks
        self.lane = f"Task:{tdd.attempt_id}"
        self.state = S.CREATED
        self.mailbox = MailboxProcessor()
        self._wakeup: Any = None
        self.partitions: list[ResultPartition] = []
        self.record_writers: list[RecordWriter] = []
        self.gates: list[SingleInputGate] = []
        self.failure_cause: BaseException | None = None
        self.failure_traceback: str | None = None
        self.invoking = False
        self.checkpointing = TaskCheckpointDriver(self)
        self._waiting_for_pending_checkpoints = False  # FLIP-147: afterInvoke announced it
        self._end_of_data_sent = False  # StreamTask.endData ran (EndOfData sent under 1.20)
        self._awaits_all_data_processed = False  # FLIP-147: finish after downstream read it all
        self._waiting_for_all_data_processed = False
        self.back_pressure = BackPressureTimer()  # isBackPressured over simulated time
        self.busy_until = 0  # simulated time the records of the last step cost (record_cost_ms)
        jv = tdd.job_vertex
        self.record_cost_ms = record_cost(jv, self.bus.config.record_cost_ms)
        cls = STREAM_TASK_CLASSES.get(jv.invokable_class)
        if cls is None:
            raise ValueError(
                f"Vertex '{jv.name}' has invokable class {jv.invokable_class!r}, which the simulated "
                f"cluster cannot run; supported: {sorted(STREAM_TASK_CLASSES)}."
            )
        self.invokable: StreamTask = cls(self)
        vertex, subtask = jv.name, tdd.subtask_index
        self.task_env = TaskEnvironment(
            job_name=tdd.job_name,
            task_name=jv.name,
            subtask_index=subtask,
            parallelism=jv.parallelism,
            max_parallelism=tdd.max_parallelism,
            attempt_number=tdd.attempt_number,
            processing_time_service=SimulatedProcessingTimeService(self),
            print_lines_writer=lambda lines, to_err: self.host.print_lines(
                vertex, subtask, lines, to_err
            ),
            collect_writer=self.host.collect,
            task_manager_id=self.task_executor.name,
        )

    # -- state machine --------------------------------------------------------------------------
    def transition_state(self, target: ExecutionState, suffix: str = "") -> None:
        """``Task.transitionState`` with Flink's TaskExecutor log line."""
        current = self.state
        check_transition(self.name, current, target, TASK_TRANSITIONS)
        self.state = target
        if target is S.RUNNING:
            self.back_pressure.started(self.bus.now)
        elif current is S.RUNNING:
            self.back_pressure.update(self.bus.now, False)
        self.bus.emit(
            self.task_executor.name,
            "Task.transitionState",
            f"{self.name} ({self.attempt_id}) switched from {current.value} to {target.value}{suffix}.",
            **self._subjects(old_state=current.value, new_state=target.value),
        )

    def _subjects(self, **extra: Any) -> dict[str, Any]:
        return dict(
            job=self.tdd.job_id,
            vertex=self.tdd.job_vertex.name,
            subtask=self.tdd.subtask_index,
            attempt=self.tdd.attempt_number,
            **extra,
        )

    def emit(self, method: str, message: str, data: bool = False, **extra: Any) -> None:
        bus = self.bus
        if data and bus.fast:  # left out of the trace in fast mode (RpcBus.emit)
            return
        bus.emit_from(self._event_template, method, message, extra)

    def emit_about_checkpoint(self, method: str, message: str, checkpoint_id: int) -> None:
        """``emit(method, message, checkpoint=checkpoint_id)`` without the keyword dict."""
        self.bus.emit_about_checkpoint(self._event_template, method, message, checkpoint_id)

    @cached_property
    def executor_event_template(self) -> dict[str, Any]:
        """The fields of the TaskExecutor's trace events about this task (its checkpoint RPCs):
        the TaskExecutor as component, the task's job, vertex, subtask and attempt."""
        return trace_event_template(self.task_executor.name, **self._subjects())

    @cached_property
    def _event_template(self) -> dict[str, Any]:
        """The fields of every trace event of this task: its name and its
        TaskDeploymentDescriptor's job, vertex, subtask and attempt."""
        return trace_event_template(self.name, **self._subjects())

    # -- thread ---------------------------------------------------------------------------------
    def start_task_thread(self) -> None:
        self.bus.call_later(1, self.lane, "Task.run", self._guard(self._do_run))

    @property
    def process_alive(self) -> bool:
        """False once the TaskExecutor process died: the task's threads died with it."""
        return self.task_executor.alive

    def _guard(self, fn: Any) -> Any:
        def run() -> None:
            if not self.process_alive:  # work queued before the TaskManager was killed
                return
            try:
                fn()
            except Exception as exc:  # a user function (or operator) threw
                self._fail(exc)

        return run

    def _do_run(self) -> None:
        if self.state is S.CANCELING:
            self._finish_cancel()
            return
        if self.state is not S.CREATED:
            return
        self.transition_state(S.DEPLOYING)
        self._setup_network()
        self.transition_state(S.RUNNING)
        self.task_executor.update_task_execution_state(self, S.RUNNING)
        self.bus.call_later(1, self.lane, "StreamTask.invoke", self._guard(self._invoke))

    def _setup_network(self) -> None:
        """Register result partitions and input gates (``NettyShuffleEnvironment``)."""
        cfg = self.bus.config
        shuffle = self.host.shuffle
        tdd = self.tdd
        for out_index, rp in enumerate(tdd.produced_partitions):
            n = rp.number_of_subpartitions
            pool = n * cfg.buffers_per_channel + cfg.floating_buffers_per_gate
            part = ResultPartition(
                rp.partition_id, n, UNBOUNDED_POOL if rp.blocking else pool, blocking=rp.blocking
            )
            part.pool.listeners.append(self.schedule_mailbox)
            part.pool.listeners.append(self._note_back_pressure)
            part.pool.exhausted_listeners.append(self._note_back_pressure)
            rng = self.host.partitioner_rng(
                tdd.job_vertex.name, tdd.subtask_index, out_index, rp.edge.target.name
            )
            writer = RecordWriter(
                part,
                rp.edge.partitioner,
                rp.consumer_max_parallelism,
                rng,
                self.host,
            )
            self.partitions.append(part)
            self.record_writers.append(writer)
            shuffle.register_partition(part)
        for igdd in tdd.input_gates:
            gate = SingleInputGate(igdd.input_index, cfg.buffers_per_channel)
            gate.listener = self.schedule_mailbox
            for pid, sub in igdd.channels:
                gate.add_channel(pid, sub)
            self.gates.append(gate)
        for gate in self.gates:
            for ch in gate.channels:
                shuffle.request_subpartition(ch)

    def _invoke(self) -> None:
        if self.state is not S.RUNNING:
            return
        jv = self.tdd.job_vertex
        self.invokable.before_invoke()
        self.invoking = True
        self.emit(
            "StreamTask.invoke",
            f"{self.name}: {self.invokable.kind}.beforeInvoke built the OperatorChain "
            f"[{' -> '.join(jv.operator_names)}] and opened its operators tail to head.",
        )
        self.schedule_mailbox()

    # -- checkpoints ----------------------------------------------------------------------------
    def trigger_checkpoint_barrier(
        self,
        checkpoint_id: int,
        timestamp: int,
        options: CheckpointOptions,
        advance_to_end_of_event_time: bool = False,
    ) -> None:
        """``Task.triggerCheckpointBarrier`` → the invokable's ``triggerCheckpointAsync``."""
        self.checkpointing.trigger_checkpoint_barrier(
            checkpoint_id, timestamp, options, advance_to_end_of_event_time
        )

    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """``Task.notifyCheckpointComplete`` → ``notifyCheckpointCompleteAsync``."""
        self.checkpointing.notify_checkpoint_complete(checkpoint_id)

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        """``Task.notifyCheckpointAborted`` → ``notifyCheckpointAbortAsync``."""
        self.checkpointing.notify_checkpoint_aborted(checkpoint_id)

    # -- mailbox loop ---------------------------------------------------------------------------
    def accepts_mail(self) -> bool:
        return self.state is S.RUNNING and self.invoking and self.process_alive

    def has_work(self) -> bool:
        if not (self.invoking and self.state is S.RUNNING and self.task_executor.alive):
            return False  # accepts_mail(), inlined: asked before and after every mailbox step
        mails = self.mailbox.mails
        if mails and self.mailbox.has_mail(self.mailbox_priority()):
            return True
        return self.invokable.is_default_action_available()

    def priority_mail_only(self) -> bool:
        """True while ``StreamTask.runSynchronousSavepointMailboxLoop`` runs (ordinary mail waits)."""
        return self.checkpointing.in_synchronous_savepoint_loop

    def mailbox_priority(self) -> int:
        """The priority the mailbox is taken at: MAX_PRIORITY in the synchronous savepoint loop
        (``getMailboxExecutor(MAX_PRIORITY).yield()``), else MIN_PRIORITY (the loop, FIFO)."""
        return MAX_PRIORITY if self.priority_mail_only() else MIN_PRIORITY

    def put_mail(self, mail: Mail) -> None:
        """``MailboxExecutor.execute``: enqueue ``mail`` (last) and wake the mailbox loop."""
        self.mailbox.put(mail)
        if mail.priority < MAX_PRIORITY and self.priority_mail_only():
            self.emit(
                "StreamTask.runSynchronousSavepointMailboxLoop",
                f"{self.name} holds mail '{mail.description}' until savepoint "
                f"{self.checkpointing.sync_savepoint_id} completes or is aborted: the loop yields "
                "to priority mail only (MailboxProcessor.getMailboxExecutor(MAX_PRIORITY)).",
                checkpoint=self.checkpointing.sync_savepoint_id,
            )
        self.schedule_mailbox()

    def schedule_mailbox(self) -> None:
        if self._wakeup is None and self.has_work():
            delay = max(1, self.busy_until - self.bus.now)  # still busy with the last records
            self._wakeup = self.bus.call_later(
                delay, self.lane, "MailboxProcessor.runMailboxStep", self._guarded_mailbox_step
            )

    def _note_back_pressure(self) -> None:
        """An output pool became (un)available: back pressure starts or ends now."""
        self.back_pressure.update(self.bus.now, self.back_pressured)

    def _records_handled(self) -> int:
        """Records into the task (numRecordsIn), or out of it for a source (numRecordsOut)."""
        inv = self.invokable
        return inv.records_out if not self.tdd.input_gates else inv.records_in

    def _charge(self, records: int) -> None:
        """``record_cost_ms``: the step's records keep the task thread busy that long (the
        processing-clock rule every host shares: ``pyflowkit.task.processing_clock``)."""
        if self.record_cost_ms * records > 0:
            self.busy_until = self.bus.now + step_millis(records, self.record_cost_ms)

    @cached_property
    def _guarded_mailbox_step(self) -> Any:
        """``_mailbox_step`` behind ``_guard``, made once (every mailbox step schedules it)."""
        return self._guard(self._mailbox_step)

    def _mailbox_step(self) -> None:
        self._wakeup = None
        if not self.accepts_mail():
            return
        fast = self.bus.fast
        mailbox = self.mailbox
        mail = mailbox.take_mail(self.mailbox_priority()) if mailbox.mails else None
        if mail is not None:
            mail.action()
            self.mailbox.mails_processed += 1
            self.invokable.flush()
            self.emit(
                "MailboxProcessor.runMailboxStep",
                f"{self.name} ran mail: {mail.description}.",
                data=True,
            )
        elif self.invokable.is_default_action_available():
            costly = self.record_cost_ms > 0
            before = self._records_handled() if costly else 0
            msg = self.invokable.process_input(fast)
            if costly:
                self._charge(self._records_handled() - before)
            self.emit("StreamTask.processInput", msg, data=True)
        if self.invokable.end_of_data and not self._end_of_data_sent:
            self._end_data()  # DataInputStatus.END_OF_DATA: endData, the input stays open
        if self.invokable.end_of_input and not self.mailbox.has_mail():
            self._end_data()
            if self.checkpointing.waits_for_final_checkpoint():
                return  # FLIP-147: the loop idles until a mail (trigger, notify) arrives
            if self._waits_for_all_data_processed():
                return  # woken by the last consumer's acknowledgement
            self.invoking = False
            self.bus.call_later(
                1, self.lane, "StreamTask.afterInvoke", self._guard(self._after_invoke)
            )
            return
        self.schedule_mailbox()

    def _end_data(self) -> None:
        """``StreamTask.endData`` (1.14+, FLIP-147): once the input ended, EndOfData goes into
        every produced partition ahead of the final checkpoint and EndOfPartitionEvent; 1.11
        has no such event (the END_OF_DATA rule)."""
        if self._end_of_data_sent:
            return
        self._end_of_data_sent = True
        settings = self.tdd.settings
        rule = profile_for(getattr(settings, "flink_version", V1_11)).end_of_data
        if not rule.sends_end_of_data or not self.partitions:
            return
        stopped = self.checkpointing.stopped_by_savepoint is not None
        mode = "NO_DRAIN" if stopped and not self.checkpointing.drained else "DRAIN"
        self.invokable.flush()
        for partition in self.partitions:
            partition.on_all_data_processed = self._all_data_processed
            partition.notify_end_of_data(mode)
        self._awaits_all_data_processed = self.checkpointing.checkpoints_after_tasks_finish
        self.emit(
            "StreamTask.endData",
            f"{self.name} ended its data (StopMode.{mode}): EndOfData into its "
            f"{len(self.partitions)} result partition(s), ahead of EndOfPartitionEvent.",
        )

    def _waits_for_all_data_processed(self) -> bool:
        """``StreamTask.afterInvoke`` (1.14+, FLIP-147): with checkpoints after tasks finish, a
        task that ended its data finishes only once every downstream task processed all of its
        records (``ResultPartitionWriter.getAllDataProcessedFuture``, completed as each consumer
        reads EndOfData) as well as its final checkpoint; otherwise a later checkpoint would
        record it FINISHED while its records still wait, unpersisted, in a consumer's channel.
        Not after stop-with-savepoint, which finishes at its synchronous savepoint."""
        if not self._awaits_all_data_processed or self.checkpointing.stopped_by_savepoint:
            return False
        if all(p.all_data_processed for p in self.partitions):
            return False
        if not self._waiting_for_all_data_processed:
            self._waiting_for_all_data_processed = True
            self.emit(
                "StreamTask.afterInvoke",
                f"{self.name} waits for all the records processed by the downstream tasks "
                "(getAllDataProcessedFuture) before it finishes.",
            )
        return True

    def _all_data_processed(self) -> None:
        """``getAllDataProcessedFuture`` completed: wake the idle mailbox loop to finish."""
        if self._waiting_for_all_data_processed and self._wakeup is None and self.accepts_mail():
            self._wakeup = self.bus.call_later(
                1, self.lane, "MailboxProcessor.runMailboxStep", self._guarded_mailbox_step
            )

    def _after_invoke(self) -> None:
        if self.state is not S.RUNNING:
            return
        pending = self.checkpointing.pending_checkpoints()
        if pending:  # FLIP-147: waitForPendingCheckpoints before closeAllOperators
            if not self._waiting_for_pending_checkpoints:
                self._waiting_for_pending_checkpoints = True
                self.emit(
                    "StreamTask.afterInvoke",
                    f"{self.name} waits for the asynchronous part of checkpoint(s) "
                    f"{', '.join(map(str, pending))} (waitForPendingCheckpoints).",
                )
            self.bus.call_later(
                1, self.lane, "StreamTask.afterInvoke", self._guard(self._after_invoke)
            )
            return
        if self._waiting_for_pending_checkpoints:
            self.emit(
                "StreamTask.afterInvoke", f"{self.name}: all pending checkpoints are finished."
            )
        self.invokable.after_invoke()
        self.invokable.clean_up_invoke()
        self.emit(
            "StreamTask.afterInvoke",
            f"{self.name}: afterInvoke closed the operators head to tail, flushed the outputs and "
            "finished its result partitions.",
        )
        self.transition_state(S.FINISHED)
        self._exit()

    def _exit(self) -> None:
        self.mailbox.clear()
        if self._wakeup is not None:
            self._wakeup.cancelled = True
            self._wakeup = None
        self.emit(
            "Task.releaseResources", f"Freeing task resources for {self.name} ({self.attempt_id})."
        )
        self.emit(
            "TaskExecutor.unregisterTaskAndNotifyFinalState",
            f"Un-registering task and sending final execution state {self.state.value} to "
            f"JobManager for task {self.name} {self.attempt_id}.",
        )
        self.task_executor.task_terminated(self)

    def release_network(self) -> None:
        shuffle = self.host.shuffle
        for p in self.partitions:
            shuffle.release_partition(p)
        for g in self.gates:
            for ch in g.channels:
                shuffle.forget_channel(ch)

    # -- failure and cancellation ---------------------------------------------------------------
    def _fail(self, exc: BaseException) -> None:
        if self.state.is_terminal():
            return
        self.failure_cause = exc
        self.failure_traceback = format_failure(exc)
        self.invoking = False
        if self.state is S.CANCELING:
            self._finish_cancel()
            return
        self._clean_up_invoke()
        self.transition_state(S.FAILED, suffix="")
        self.emit("Task.failure", f"{self.name} failed: {type(exc).__name__}: {exc}")
        self.release_network()
        self._exit()

    def _clean_up_invoke(self) -> None:
        """``StreamTask.cleanUpInvoke`` after a failure or cancel: ``disposeAllOperators(true)``
        logs an error of ``dispose`` (e.g. a user function's close()) and goes on; it never
        replaces the failure that ended the task."""
        try:
            self.invokable.clean_up_invoke()
        except Exception as exc:  # noqa: BLE001 - cleanup errors never hide the root failure
            self.emit(
                "StreamTask.disposeAllOperators",
                f"Error during disposal of stream operator in {self.name}: "
                f"{type(exc).__name__}: {exc}",
            )

    def fail_externally(self, cause: BaseException) -> None:
        """``Task.failExternally``: fail the task from outside (e.g. ``run.fail_task``)."""
        self._fail(cause)

    def cancel_execution(self) -> None:
        """``Task.cancelExecution``: → CANCELING; the task thread then ends as CANCELED."""
        if self.state.is_terminal() or self.state is S.CANCELING:
            return
        was_running = self.state is S.RUNNING
        self.transition_state(S.CANCELING)
        self.invoking = False
        if was_running:
            self.bus.call_later(1, self.lane, "Task.cancelInvokable", self._finish_cancel)

    def _finish_cancel(self) -> None:
        if self.state is not S.CANCELING or not self.process_alive:
            return
        self._clean_up_invoke()
        self.transition_state(S.CANCELED)
        self.release_network()
        self._exit()

    # -- inspection -----------------------------------------------------------------------------
    @property
    def back_pressured(self) -> bool:
        return self.state is S.RUNNING and not self.invokable.outputs_available()

    def keyed_state_backend(self) -> Any:
        chain = self.invokable.chain
        return None if chain is None else chain


def record_cost(job_vertex: Any, costs: Any) -> float:
    """Simulated ms a record entering this task costs: the JobVertex's own cost, else the sum
    over its chained operators named in ``costs`` (``ClusterConfig.record_cost_ms``)."""
    if not costs:
        return 0.0
    if job_vertex.name in costs:
        return float(costs[job_vertex.name])
    names = getattr(job_vertex, "operator_names", None) or []
    return float(sum(costs.get(n, 0) for n in names))


def vertex_max_parallelism(jv: Any) -> int:
    return default_max_parallelism(jv.max_parallelism, jv.parallelism)
