"""A TaskManager (Flink's ``TaskExecutor``): offers slots, runs tasks, reports their states."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pyflowkit.errors import IllegalArgumentException
from pyflowkit.runtime.checkpoint.properties import CheckpointOptions
from pyflowkit.runtime.deployment import TaskDeploymentDescriptor
from pyflowkit.runtime.execution_state import ExecutionState
from pyflowkit.runtime.rpc import RpcBus
from pyflowkit.runtime.task import Task
from pyflowkit.runtime.task_slot_table import TaskSlotTable

if TYPE_CHECKING:
    from pyflowkit.runtime.job_master import JobMaster


class TaskExecutor:
    """Flink's ``TaskExecutor`` with its ``TaskSlotTable``."""

    def __init__(self, index: int, number_of_slots: int, bus: RpcBus, host: Any) -> None:
        self.index = index
        self.name = f"TaskExecutor-{index}"
        self.location = f"{self.name} @ localhost (dataPort=-1)"
        self.bus = bus
        self.host = host
        self.task_slot_table = TaskSlotTable(self.name, number_of_slots)
        self.tasks: dict[str, Task] = {}
        self.job_master: JobMaster | None = None
        self.alive = True

    def request_slot(
        self, slot_index: int, job_id: str, allocation_id: str, job_master: JobMaster
    ) -> None:
        """``TaskExecutor.requestSlot``: allocate in the slot table, then offer it to the JobMaster.
        A negative ``slot_index`` is a dynamic SlotID (Flink 1.20's FineGrainedSlotManager)."""
        if not self.alive:
            return
        if slot_index < 0:
            slot_index = self.task_slot_table.allocate_dynamic_slot(job_id, allocation_id)
        else:
            self.task_slot_table.allocate_slot(slot_index, job_id, allocation_id)
        self.job_master = job_master
        self.bus.emit(
            self.name,
            "TaskExecutor.requestSlot",
            f"Receive slot request {allocation_id} for job {job_id} from resource manager.",
            job=job_id,
        )
        self.bus.emit(
            self.name,
            "TaskExecutor.offerSlotsToJobManager",
            f"Offer reserved slots to the leader of job {job_id}.",
            job=job_id,
        )
        self.bus.send(
            self.name,
            "JobMaster",
            "JobMaster.offerSlots",
            lambda: job_master.offer_slots(self, slot_index, allocation_id),
        )

    def submit_task(self, tdd: TaskDeploymentDescriptor) -> None:
        """``TaskExecutor.submitTask``: create the Task, add it to its slot, start its thread."""
        if not self.alive:
            return
        task = Task(tdd, self)
        self.task_slot_table.add_task(tdd.allocation_id, task)
        self.tasks[tdd.attempt_id] = task
        self.bus.emit(
            self.name,
            "TaskExecutor.submitTask",
            f"Received task {task.name}.",
            job=tdd.job_id,
            vertex=tdd.job_vertex.name,
            subtask=tdd.subtask_index,
            attempt=tdd.attempt_number,
        )
        task.start_task_thread()

    def cancel_task(self, attempt_id: str) -> None:
        """``TaskExecutor.cancelTask``."""
        task = self.tasks.get(attempt_id)
        if task is not None and self.alive:
            task.cancel_execution()

    # -- checkpoints (RPCs from the JobMaster) ------------------------------------------------
    def _live_task(self, attempt_id: str) -> Task | None:
        task = self.tasks.get(attempt_id) if self.alive else None
        return None if task is None or task.state.is_terminal() else task

    def trigger_checkpoint(
        self,
        attempt_id: str,
        checkpoint_id: int,
        timestamp: int,
        options: CheckpointOptions,
        advance_to_end_of_event_time: bool = False,
    ) -> None:
        """``TaskExecutor.triggerCheckpoint`` → ``Task.triggerCheckpointBarrier``."""
        if advance_to_end_of_event_time and not options.checkpoint_type.is_synchronous:
            raise IllegalArgumentException(
                "Only synchronous savepoints are allowed to advance the watermark to MAX."
            )
        task = self._live_task(attempt_id)
        if task is None:
            self._reply_unknown_task(attempt_id, checkpoint_id)
            return
        self.bus.emit_about_checkpoint(
            task.executor_event_template,
            "TaskExecutor.triggerCheckpoint",
            f"Trigger checkpoint {checkpoint_id}@{timestamp} for {attempt_id}.",
            checkpoint_id,
        )
        task.trigger_checkpoint_barrier(
            checkpoint_id, timestamp, options, advance_to_end_of_event_time
        )

    def _reply_unknown_task(self, attempt_id: str, checkpoint_id: int) -> None:
        """The ``triggerCheckpoint`` reply for a task no longer here (it finished meanwhile): a
        ``CheckpointException(TASK_CHECKPOINT_FAILURE)``. Only a coordinator that waits for the
        replies hears it (1.20's ``triggerTasks``; 1.11's ``Execution.triggerCheckpoint`` drops
        it, so nothing is sent then)."""
        jm = self.job_master if self.alive else None
        coord = jm.checkpoint_coordinator if jm is not None else None
        if coord is None or not coord.aborts_on_trigger_failure:
            return
        message = f"TaskManager received a checkpoint request for unknown task {attempt_id}."
        self.bus.send(
            self.name,
            "JobMaster",
            "CheckpointCoordinator.onTriggerFailure",
            lambda: coord.on_trigger_tasks_failure(checkpoint_id, message),
        )

    def confirm_checkpoint(self, attempt_id: str, checkpoint_id: int, timestamp: int) -> None:
        """``TaskExecutor.confirmCheckpoint`` → ``Task.notifyCheckpointComplete``."""
        task = self._live_task(attempt_id)
        if task is None:
            return
        self.bus.emit_about_checkpoint(
            task.executor_event_template,
            "TaskExecutor.confirmCheckpoint",
            f"Confirm checkpoint {checkpoint_id}@{timestamp} for {attempt_id}.",
            checkpoint_id,
        )
        task.notify_checkpoint_complete(checkpoint_id)

    def abort_checkpoint(self, attempt_id: str, checkpoint_id: int) -> None:
        """``TaskExecutor.abortCheckpoint`` → ``Task.notifyCheckpointAborted``."""
        task = self._live_task(attempt_id)
        if task is not None:
            task.notify_checkpoint_aborted(checkpoint_id)

    def free_slot(self, allocation_id: str) -> None:
        if self.task_slot_table.free_slot(allocation_id) is not None:
            self.bus.emit(
                self.name,
                "TaskExecutor.freeSlot",
                f"Free slot TaskSlot(allocationId: {allocation_id}).",
            )

    def update_task_execution_state(self, task: Task, state: ExecutionState) -> None:
        """``updateTaskExecutionState`` RPC to the JobMaster."""
        jm = self.job_master
        if jm is None or not self.alive:
            return
        cause, tb = task.failure_cause, task.failure_traceback
        self.bus.send(
            self.name,
            "JobMaster",
            "JobMaster.updateTaskExecutionState",
            lambda: jm.update_task_execution_state(task.attempt_id, state, cause, tb),
        )

    def task_terminated(self, task: Task) -> None:
        self.task_slot_table.remove_task(task.attempt_id)
        self.update_task_execution_state(task, task.state)

    def kill(self) -> list[Task]:
        """The TaskManager process dies: its tasks stop without reporting, its slots are gone."""
        self.alive = False
        self.task_slot_table.free_all()
        lost = [t for t in self.tasks.values() if not t.state.is_terminal()]
        for t in lost:
            t.invoking = False
            if t._wakeup is not None:
                t._wakeup.cancelled = True
            t.release_network()
        return lost
