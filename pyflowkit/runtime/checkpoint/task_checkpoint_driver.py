"""A Task's checkpoint side (Flink's ``StreamTask`` checkpoint methods and barrier handling).

The path of one checkpoint through a task: the trigger mail at a source, the barrier handler of
its inputs, ``performCheckpoint`` (sync part), ``AsyncCheckpointRunnable`` (async part) and the
ack ``TaskStateManagerImpl`` → ``RpcCheckpointResponder`` → ``JobMaster``; then the notify mails.
Every hop is a trace event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.errors import CheckpointException, IllegalStateException
from pyflowkit.runtime.checkpoint.barrier_handlers import (
    CheckpointBarrierHandler,
    CheckpointBarrierUnaligner,
    create_checkpoint_barrier_handler,
)
from pyflowkit.runtime.checkpoint.barriers import CancelCheckpointMarker, CheckpointBarrier
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R
from pyflowkit.runtime.checkpoint.properties import CheckpointOptions
from pyflowkit.runtime.checkpoint.subtask_coordinator import (
    SubtaskCheckpointCoordinator,
    SyncSnapshot,
)
from pyflowkit.runtime.checkpoint.task_state import CheckpointMetrics
from pyflowkit.runtime.mailbox import MAX_PRIORITY, Mail
from pyflowkit.runtime.network import Buffer

if TYPE_CHECKING:
    from pyflowkit.runtime.task import Task

_NO_PERIODIC_CHECKPOINTS = 2**63 - 1  # JobCheckpointingSettings' interval: Long.MAX_VALUE


class TaskCheckpointDriver:
    """One Task's checkpoint side: trigger mails, barrier handler, snapshot, ack, notify.

    Mirrors the checkpoint methods of Flink's ``StreamTask`` (``triggerCheckpointAsync``,
    ``performCheckpoint``, ``notifyCheckpoint{Complete,Abort}Async``) with its barrier handler;
    owned by the ``Task``, which constructs it.
    """

    def __init__(self, task: Task) -> None:
        self.task = task
        self.bus = task.bus
        self.subtask: SubtaskCheckpointCoordinator | None = None
        self.handler: CheckpointBarrierHandler | None = None
        self.channels: list[Any] = []
        self.offsets: dict[int, int] = {}
        self.in_flight: dict[int, SyncSnapshot] = {}
        self.alignment: dict[int, int] = {}
        self.sync_savepoint_id: int | None = None  # stop-with-savepoint holds the task
        self.stopped_by_savepoint: int | None = None  # the completed stop-with-savepoint
        self.drained = False  # the stop-with-savepoint advanced to the end of event time
        self.sync_savepoint_loop: int | None = (
            None  # runSynchronousSavepointMailboxLoop's savepoint
        )
        self._event_checkpoint: int | None = None  # the checkpoint of the barrier in hand
        self._check_unaligned = False  # whether the handler can be (or switch to) unaligned
        self._operators_of: Any = None  # the chain ``_operator_list`` was made for
        self._operators_text = ""
        self._async_lane = f"AsyncCheckpoint:{task.attempt_id}"
        # FLIP-147 (1.20 profile): StreamTask.finalCheckpointMinId / finalCheckpointCompleted
        self.checkpoints_after_tasks_finish = False
        self.final_checkpoint_min_id: int | None = None
        self.final_checkpoint_completed = False
        self._waiting_announced = False

    @property
    def in_synchronous_savepoint_loop(self) -> bool:
        """``runSynchronousSavepointMailboxLoop``: ``while (syncSavepointId != null) yield()``."""
        loop = self.sync_savepoint_loop
        return loop is not None and loop == self.sync_savepoint_id

    # -- setup ----------------------------------------------------------------------------------
    def setup(self, chain: Any, writers: list[Any], gates: list[Any], settings: Any) -> None:
        """Called by ``StreamTask.beforeInvoke`` once the chain exists."""
        self.subtask = SubtaskCheckpointCoordinator(chain, writers, lambda: self.bus.now)
        self.checkpoints_after_tasks_finish = bool(
            getattr(settings, "checkpoints_after_tasks_finish", False)
        )
        if self.checkpoints_after_tasks_finish:
            for op in getattr(chain, "operators", ()):
                fn = getattr(op, "user_function", None)
                if hasattr(fn, "commits_with_final_checkpoint"):
                    fn.commits_with_final_checkpoint = True
        if settings is not None and settings.checkpoint_interval < _NO_PERIODIC_CHECKPOINTS:
            for op in getattr(chain, "operators", ()):
                backend = getattr(op, "keyed_state_backend", None)
                if backend is not None:
                    backend.periodic_snapshots = True
        self.channels = []
        for g in gates:
            self.offsets[id(g)] = len(self.channels)
            self.channels.extend(g.channels)
        if gates:
            exactly_once = settings is None or settings.is_exactly_once
            unaligned = settings is not None and settings.is_unaligned_checkpoints_enabled
            self.handler = create_checkpoint_barrier_handler(
                exactly_once,
                unaligned,
                self.task.name,
                self.channels,
                self,
                clock=lambda: self.bus.now,
                resume=self._resume,
                log=self._log_barrier_handling,
            )
            handler = self.handler
            self._check_unaligned = isinstance(handler, CheckpointBarrierUnaligner) or hasattr(
                handler, "active"
            )

    def _log_barrier_handling(self, message: str) -> None:
        """The handler's log lines, about the checkpoint of the barrier in hand (if any)."""
        checkpoint_id = self._event_checkpoint
        if checkpoint_id is None:
            self.task.emit("CheckpointBarrierHandler.processBarrier", message)
        else:
            self.task.emit_about_checkpoint(
                "CheckpointBarrierHandler.processBarrier", message, checkpoint_id
            )

    def _operator_list(self) -> str:
        """``a, b, c``: the operator names of the chain (the same every checkpoint)."""
        chain = self.subtask.chain if self.subtask is not None else None
        if self._operators_of is not chain or chain is None:
            self._operators_text = ", ".join(getattr(chain, "operator_names", []))
            self._operators_of = chain
        return self._operators_text

    def restore(
        self, chain: Any, restored: dict[str, Any] | None, checkpoint_id: int | None = None
    ) -> None:
        """``initializeState`` of the chain with the task's restored state, then user functions."""
        chain.initialize_state(restored)  # operators' state, then their functions'
        if restored:
            extra = {} if checkpoint_id is None else {"checkpoint": checkpoint_id}
            self.task.emit(
                "StreamTask.initializeStateAndOpenOperators",
                f"{self.task.name} restored the state of {len(restored)} operator(s).",
                **extra,
            )

    def recover_channel_state(self, channel_state: Any) -> None:
        """Unaligned restore (``readRecoveredChannelState``): the in-flight output is sent again,
        the in-flight input is processed before anything new."""
        if channel_state is None or channel_state.is_empty:
            return
        writers = self.subtask.writers if self.subtask is not None else []
        for wi, per_sub in sorted(channel_state.output.items()):
            partition = writers[wi].partition
            for sp_index, elements in sorted(per_sub.items()):
                partition.pool.request()
                partition.subpartitions[sp_index].add(Buffer(list(elements)))
        chain = self.subtask.chain if self.subtask is not None else None
        for flat, records in sorted(channel_state.input.items()):
            if not records or chain is None:
                continue
            values = [v for v, _ in records]
            stamps = [t for _, t in records]
            no_ts = all(t is None for t in stamps)
            chain.process_batch(
                values, None if no_ts else stamps, self.channels[flat].gate.input_index
            )
        for w in writers:
            w.flush_all()
        self.task.emit(
            "StreamTask.readRecoveredChannelState",
            f"{self.task.name} recovered {channel_state.num_records()} in-flight record(s) of an "
            "unaligned checkpoint.",
        )

    def _resume(self, flat_index: int) -> None:
        """``resumeConsumption``: the channel's queued buffers become readable again."""
        ch = self.channels[flat_index]
        if ch.queue and ch not in ch.gate.channels_with_data:
            ch.gate.channels_with_data.append(ch)
        self.task.schedule_mailbox()

    def channel_index(self, gate: Any, channel: Any) -> int:
        return self.offsets[id(gate)] + channel.index

    # -- input events ---------------------------------------------------------------------------
    def on_event(self, gate: Any, channel: Any, event: Any, describe: bool = True) -> str | None:
        """A barrier or cancel marker from an input channel; a trace sentence, or None.

        ``describe=False`` (fast mode, where the sentence is left out of the trace) returns ""
        for a handled event instead of the sentence.
        """
        handler = self.handler
        if handler is None:
            return None
        idx = self.offsets[id(gate)] + channel.index
        if type(event) is CheckpointBarrier:
            self._event_checkpoint = event.id
            try:
                handler.process_barrier(event, idx)
            finally:
                self._event_checkpoint = None
            if self._check_unaligned and (
                isinstance(handler, CheckpointBarrierUnaligner)
                or getattr(handler, "active", None) is not None
            ):
                self._maybe_finish_unaligned()
            if not describe:
                return ""
            blocked = handler.blocked_channels()
            return (
                f"{self.task.name} received {event!r} on channel {idx}; blocked channels: "
                f"{blocked}."
            )
        if isinstance(event, CancelCheckpointMarker):
            handler.process_cancellation_barrier(event)
            return f"{self.task.name} received {event!r} on channel {idx}." if describe else ""
        return None

    def on_end_of_partition(self, gate: Any, channel: Any) -> None:
        if self.handler is not None:
            self.handler.process_end_of_partition(self.channel_index(gate, channel))

    def record_in_flight(self, gate: Any, channel: Any, elements: list[Any]) -> None:
        """Unaligned: data from a channel whose barrier has not arrived is channel state."""
        if not self.in_flight:  # no checkpoint between its barrier and its async part
            return
        h = self.handler
        active = getattr(h, "active", h)
        if not isinstance(active, CheckpointBarrierUnaligner):
            return
        idx = self.channel_index(gate, channel)
        if active.is_persisting(idx):
            sync = self.in_flight.get(active.current_checkpoint_id)
            if sync is not None:
                records = [el for el in elements if type(el) is tuple]
                sync.channel_state.input.setdefault(idx, []).extend(records)

    # -- BarrierNotifier --------------------------------------------------------------------------
    def trigger_checkpoint_on_barrier(self, barrier: CheckpointBarrier, alignment: int) -> None:
        """``triggerCheckpointOnBarrier`` (all barriers aligned, or first one when unaligned)."""
        self.alignment[barrier.id] = alignment
        self.perform_checkpoint(barrier)

    def abort_checkpoint_on_barrier(self, checkpoint_id: int, reason: R) -> None:
        """``abortCheckpointOnBarrier``: decline and tell downstream tasks."""
        if self.subtask is not None:
            self.subtask.abort_checkpoint_on_barrier(checkpoint_id)
        self.in_flight.pop(checkpoint_id, None)
        self.decline(checkpoint_id, reason)

    # -- trigger at sources ---------------------------------------------------------------------
    def trigger_checkpoint_barrier(
        self,
        checkpoint_id: int,
        timestamp: int,
        options: CheckpointOptions,
        advance_to_end_of_event_time: bool = False,
    ) -> None:
        """``Task.triggerCheckpointBarrier`` → ``triggerCheckpointAsync``: a mail of the main
        mailbox executor (MIN_PRIORITY), run after the mail queued before it."""
        task = self.task
        if not task.accepts_mail():
            self.decline(checkpoint_id, R.CHECKPOINT_DECLINED_TASK_NOT_READY)
            return
        barrier = CheckpointBarrier(checkpoint_id, timestamp, options)
        task.emit_about_checkpoint(
            "Task.triggerCheckpointBarrier",
            f"{task.name} puts triggerCheckpointAsync for checkpoint {checkpoint_id} into its "
            f"mailbox {_in_line(task)}.",
            checkpoint_id,
        )
        task.put_mail(
            Mail(
                f"StreamTask.triggerCheckpointAsync (checkpoint {checkpoint_id})",
                lambda: self._trigger_checkpoint_async(barrier, advance_to_end_of_event_time),
            )
        )

    def waits_for_final_checkpoint(self) -> bool:
        """``StreamTask.afterInvoke`` under FLIP-147: after endData the mailbox loop keeps running
        until ``finalCheckpointCompleted`` (True while the task must wait)."""
        if not self.checkpoints_after_tasks_finish or self.final_checkpoint_completed:
            return False
        if (
            self.stopped_by_savepoint is not None
        ):  # syncSavepoint completed finalCheckpointCompleted
            return False
        if not self._waiting_announced:
            self._waiting_announced = True
            self.task.emit(
                "StreamTask.afterInvoke",
                f"{self.task.name} finished its input and waits for its final checkpoint "
                "(finalCheckpointCompleted) before it finishes.",
            )
        return True

    def pending_checkpoints(self) -> list[int]:
        """``SubtaskCheckpointCoordinatorImpl.waitForPendingCheckpoints`` (FLIP-147, 1.20 profile):
        the checkpoints whose asynchronous part is still running; ``StreamTask.afterInvoke``
        waits for them before it closes the operators (a source that finishes right after its
        final checkpoint still acknowledges the checkpoint it took meanwhile). 1.11 waits for none.
        """
        if not self.checkpoints_after_tasks_finish:
            return []
        return sorted(cid for cid, sync in self.in_flight.items() if sync.async_scheduled)

    def _trigger_checkpoint_async(
        self, barrier: CheckpointBarrier, advance_to_end_of_event_time: bool
    ) -> None:
        """A source performs the checkpoint. A task with inputs is triggered only by Flink
        1.20's plan (FLIP-147: its predecessors FINISHED): ``triggerUnfinishedChannelsCheckpoint``
        hands the barrier to the barrier handler for each channel whose EndOfPartition has not
        been read yet; with every channel finished it performs the checkpoint at once."""
        unfinished = [
            self.channel_index(g, ch)
            for g in self.task.gates
            for ch in g.channels
            if not ch.finished
        ]
        if not unfinished or self.handler is None:
            self.perform_checkpoint(barrier, advance_to_end_of_event_time)
            return
        self.task.emit_about_checkpoint(
            "StreamTask.triggerUnfinishedChannelsCheckpoint",
            f"{self.task.name} processes barrier {barrier.id} on its unfinished channels "
            f"{unfinished}.",
            barrier.id,
        )
        for idx in unfinished:
            self.handler.process_barrier(barrier, idx)

    # -- snapshot -------------------------------------------------------------------------------
    def perform_checkpoint(
        self, barrier: CheckpointBarrier, advance_to_end_of_time: bool = False
    ) -> None:
        """``StreamTask.performCheckpoint``: sync part now, async part as its own step.

        A synchronous savepoint first marks the task as stopping (``setSynchronousSavepointId``)
        and, with drain, lets a source emit MAX_WATERMARK ahead of the barrier.
        """
        task = self.task
        if self.subtask is None or not task.accepts_mail():
            self.decline(barrier.id, R.CHECKPOINT_DECLINED_TASK_NOT_READY)
            return
        synchronous = barrier.options.checkpoint_type.is_synchronous
        if synchronous:
            self._set_synchronous_savepoint_id(barrier.id)
            if advance_to_end_of_time:
                self._advance_to_end_of_event_time(barrier.id)
        if (
            self.checkpoints_after_tasks_finish
            and task.invokable.ended_data
            and self.final_checkpoint_min_id is None
        ):  # performCheckpoint: the first checkpoint after endData is the final one
            self.final_checkpoint_min_id = barrier.id
            task.emit_about_checkpoint(
                "StreamTask.performCheckpoint",
                f"{task.name} takes checkpoint {barrier.id} after its data ended: "
                f"finalCheckpointMinId = {barrier.id}.",
                barrier.id,
            )
        sync = self.subtask.checkpoint_state(barrier, task.invokable.ended_data)
        if sync is None:
            if synchronous:
                self.sync_savepoint_id = None
            return
        task.emit_about_checkpoint(
            "SubtaskCheckpointCoordinatorImpl.checkpointState",
            f"{task.name} took the synchronous part of checkpoint {barrier.id}: "
            f"prepareSnapshotPreBarrier, broadcast {barrier!r} to all outputs, snapshotState of "
            f"[{self._operator_list()}].",
            barrier.id,
        )
        self.in_flight[barrier.id] = sync
        if synchronous and task.tdd.input_gates:
            self.sync_savepoint_loop = barrier.id
            held = task.mailbox.held(MAX_PRIORITY)
            task.emit_about_checkpoint(
                "StreamTask.runSynchronousSavepointMailboxLoop",
                f"{task.name} waits for savepoint {barrier.id} to complete: it processes no "
                "input meanwhile, only priority mail (notifyCheckpointComplete/Abort); "
                f"timers and other mail wait ({held} queued).",
                barrier.id,
            )
        elif synchronous:
            task.emit_about_checkpoint(
                "StreamTask.performCheckpoint",
                f"{task.name} emits no more records until savepoint {barrier.id} completes "
                "(Flink 1.11's legacy source thread is only stopped by finishTask; pyflowkit "
                "holds it from the barrier on so that nothing follows the savepoint).",
                barrier.id,
            )
        if self._waiting_for_channel_state(barrier.id):
            return
        self._schedule_async(barrier.id)

    def _waiting_for_channel_state(self, checkpoint_id: int) -> bool:
        active = getattr(self.handler, "active", self.handler)
        return (
            isinstance(active, CheckpointBarrierUnaligner)
            and active.current_checkpoint_id == checkpoint_id
            and bool(active.pending_channels)
        )

    def _maybe_finish_unaligned(self) -> None:
        for cid in sorted(self.in_flight):
            sync = self.in_flight[cid]
            if not sync.async_scheduled and not self._waiting_for_channel_state(cid):
                self._schedule_async(cid)

    def _schedule_async(self, checkpoint_id: int) -> None:
        sync = self.in_flight[checkpoint_id]
        sync.async_scheduled = True
        self.bus.call_later(
            1,
            self._async_lane,
            "AsyncCheckpointRunnable.run",
            lambda: self._run_async(checkpoint_id),
        )

    def _run_async(self, checkpoint_id: int) -> None:
        """``AsyncCheckpointRunnable.run`` → ``reportCompletedSnapshotStates``."""
        task = self.task
        sync = self.in_flight.pop(checkpoint_id, None)
        if sync is None or self.subtask is None or task.state.is_terminal():
            return
        snapshot, async_ms = self.subtask.finish_async(sync)
        metrics = CheckpointMetrics(
            sync_duration=sync.sync_duration,
            async_duration=async_ms,
            alignment_duration=self.alignment.pop(checkpoint_id, 0),
            start_delay=max(0, sync.started_at - sync.barrier.timestamp),
        )
        task.emit_about_checkpoint(
            "AsyncCheckpointRunnable.run",
            f"{task.name} finished the asynchronous part of checkpoint {checkpoint_id} "
            f"({snapshot.state_size} bytes).",
            checkpoint_id,
        )
        task.emit_about_checkpoint(
            "TaskStateManagerImpl.reportTaskStateSnapshots",
            f"{task.name} reports its state of checkpoint {checkpoint_id} to the "
            "CheckpointResponder.",
            checkpoint_id,
        )
        task.emit_about_checkpoint(
            "RpcCheckpointResponder.acknowledgeCheckpoint",
            f"{task.name} acknowledges checkpoint {checkpoint_id} to the JobMaster.",
            checkpoint_id,
        )
        jm = task.task_executor.job_master
        te = task.task_executor
        attempt = task.attempt_id
        if jm is None or not te.alive:
            return
        self.bus.send(
            te.name,
            "JobMaster",
            "JobMaster.acknowledgeCheckpoint",
            lambda: jm.acknowledge_checkpoint(
                attempt, checkpoint_id, metrics, snapshot, te.location
            ),
        )

    def decline(self, checkpoint_id: int, reason: R) -> None:
        """``Environment.declineCheckpoint`` → ``CheckpointResponder.declineCheckpoint``."""
        task = self.task
        te = task.task_executor
        jm = te.job_master
        task.emit_about_checkpoint(
            "RpcCheckpointResponder.declineCheckpoint",
            f"{task.name} declines checkpoint {checkpoint_id}: {reason.message}",
            checkpoint_id,
        )
        if jm is None or not te.alive:
            return
        cause = CheckpointException(reason.message, reason.name)
        attempt = task.attempt_id
        self.bus.send(
            te.name,
            "JobMaster",
            "JobMaster.declineCheckpoint",
            lambda: jm.decline_checkpoint(attempt, checkpoint_id, cause, te.location),
        )

    # -- notifications --------------------------------------------------------------------------
    def notify_checkpoint_complete(self, checkpoint_id: int) -> None:
        """``Task.notifyCheckpointComplete`` → ``notifyCheckpointCompleteAsync``: a MAX_PRIORITY
        mail (first in first out in the loop; the synchronous savepoint loop takes it alone)."""
        task = self.task
        task.emit_about_checkpoint(
            "Task.notifyCheckpointComplete",
            f"{task.name} puts notifyCheckpointCompleteAsync for checkpoint {checkpoint_id} into "
            f"its mailbox (priority mail) {_in_line(task)}.",
            checkpoint_id,
        )

        def run() -> None:
            if self.subtask is None:
                return
            self.subtask.notify_checkpoint_complete(checkpoint_id)
            task.emit_about_checkpoint(
                "SubtaskCheckpointCoordinatorImpl.notifyCheckpointComplete",
                f"{task.name}: notifyCheckpointComplete {checkpoint_id} reached every operator "
                f"of the chain [{self._operator_list()}] and their CheckpointListener functions.",
                checkpoint_id,
            )
            if checkpoint_id == self.sync_savepoint_id:
                self._finish_after_sync_savepoint(checkpoint_id)
            min_id = self.final_checkpoint_min_id
            if min_id is not None and checkpoint_id >= min_id:
                self.final_checkpoint_completed = True
                task.emit_about_checkpoint(
                    "StreamTask.notifyCheckpointComplete",
                    f"{task.name}: final checkpoint {checkpoint_id} complete "
                    "(finalCheckpointCompleted): the task may finish.",
                    checkpoint_id,
                )

        task.put_mail(
            Mail(
                f"StreamTask.notifyCheckpointCompleteAsync (checkpoint {checkpoint_id})",
                run,
                MAX_PRIORITY,
            )
        )

    def _set_synchronous_savepoint_id(self, checkpoint_id: int) -> None:
        """``setSynchronousSavepointId``: the task stops once this savepoint completes."""
        if self.sync_savepoint_id is not None:
            raise IllegalStateException(
                f"{self.task.name}: at most one stop-with-savepoint checkpoint at a time is "
                f"allowed (savepoint {self.sync_savepoint_id} is still pending)."
            )
        self.sync_savepoint_id = checkpoint_id

    def _advance_to_end_of_event_time(self, checkpoint_id: int) -> None:
        """``advanceToEndOfEventTime`` (drain): a source emits MAX_WATERMARK before the barrier."""
        self.drained = True  # stop-with-savepoint --drain: StopMode.DRAIN
        sent = self.task.invokable.advance_to_end_of_event_time()
        if sent:
            self.task.emit_about_checkpoint(
                "SourceStreamTask.advanceToEndOfEventTime",
                f"{self.task.name} emits MAX_WATERMARK ahead of the barrier of savepoint "
                f"{checkpoint_id} (drain): every event-time window and timer downstream fires "
                "before its state is snapshotted.",
                checkpoint_id,
            )

    def _finish_after_sync_savepoint(self, checkpoint_id: int) -> None:
        """``resetSynchronousSavepointId`` + ``finishTask``: sources stop, the others go on until
        their inputs end (the savepoint already holds their state)."""
        self.task.invokable.finish_task(checkpoint_id)
        self.sync_savepoint_id = None
        self.stopped_by_savepoint = checkpoint_id
        self._leave_synchronous_savepoint_loop(checkpoint_id, "completed")

    def _leave_synchronous_savepoint_loop(self, checkpoint_id: int, outcome: str) -> None:
        """The loop ends once ``syncSavepointId`` is reset; the mail it held runs from now on."""
        if self.sync_savepoint_loop != checkpoint_id:
            return
        self.sync_savepoint_loop = None
        task = self.task
        held = task.mailbox.held(MAX_PRIORITY)
        if outcome == "completed" and not held:
            return  # finishTask's trace line already says the loop is left
        task.emit_about_checkpoint(
            "StreamTask.runSynchronousSavepointMailboxLoop",
            f"{task.name} leaves the synchronous savepoint loop: savepoint {checkpoint_id} "
            f"{outcome}; {held} held mail(s) run from now on.",
            checkpoint_id,
        )

    def notify_checkpoint_aborted(self, checkpoint_id: int) -> None:
        """``Task.notifyCheckpointAborted`` → ``notifyCheckpointAbortAsync``: a MAX_PRIORITY mail."""

        def run() -> None:
            self.in_flight.pop(checkpoint_id, None)
            if checkpoint_id == self.sync_savepoint_id:
                self.sync_savepoint_id = None  # the savepoint failed: the task goes on
                self._leave_synchronous_savepoint_loop(checkpoint_id, "was aborted")
            if self.subtask is not None:
                self.subtask.notify_checkpoint_aborted(checkpoint_id)

        self.task.put_mail(
            Mail(
                f"StreamTask.notifyCheckpointAbortAsync (checkpoint {checkpoint_id})",
                run,
                MAX_PRIORITY,
            )
        )


def _in_line(task: Task) -> str:
    """Where a new mail stands in the task's mailbox (first in, first out)."""
    queued = len(task.mailbox.mails)
    return "(next in line)" if not queued else f"behind {queued} queued mail(s)"
