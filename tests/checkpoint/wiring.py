"""Test-only wiring of the checkpoint hooks into the runtime (until the runtime calls them itself).

Each patch is what the runtime integration does at that spot: the JobMaster creates the
CheckpointCoordinator from ``job_graph.checkpointing_settings`` and tells it job status changes;
the scheduler restores the latest checkpoint before redeploying and fails pending checkpoints of
failed tasks; StreamTask sets up the task's checkpoint driver and restores its chain; input tasks
hand barriers, cancel markers and ends of partition to the barrier handler.
"""

from __future__ import annotations

from typing import Any

import pytest

from pyflowkit.runtime import default_scheduler, job_master, stream_task
from pyflowkit.runtime.checkpoint.coordinator import CheckpointCoordinator
from pyflowkit.runtime.checkpoint.failure_reason import CheckpointFailureReason as R
from pyflowkit.runtime.checkpoint.integration import JobMasterCheckpointGateway, driver
from pyflowkit.runtime.network import EndOfPartitionEvent


def install(mp: pytest.MonkeyPatch) -> None:
    JM = job_master.JobMaster
    jm_init, jm_transition = JM.__init__, JM.transition_job_status

    def init(self: Any, *a: Any, **k: Any) -> None:
        jm_init(self, *a, **k)
        self.checkpoint_coordinator = CheckpointCoordinator(
            self.job_graph, self.bus, JobMasterCheckpointGateway(self)
        )

    def transition(self: Any, target: Any) -> None:
        jm_transition(self, target)
        coord = self.checkpoint_coordinator
        if target.is_globally_terminal_state():
            coord.shutdown_coordinator()
        else:
            coord.job_status_changed(target.value)

    mp.setattr(JM, "__init__", init)
    mp.setattr(JM, "transition_job_status", transition)

    DS = default_scheduler.DefaultScheduler
    restart, mark_failed, create_tdd = (
        default_scheduler.EagerSchedulingStrategy.restart_tasks,
        DS.mark_failed,
        DS.create_deployment_descriptor,
    )

    def restart_tasks(self: Any, vertices: Any) -> None:
        sched = self.scheduler
        coord = sched.jm.checkpoint_coordinator
        coord.abort_pending_checkpoints(R.JOB_FAILOVER_REGION)
        sched.restored = coord.restore_latest_checkpointed_state()
        restart(self, vertices)

    def failed(self: Any, e: Any, cause: Any, tb: Any) -> None:
        self.jm.checkpoint_coordinator.fail_unacknowledged_pending_checkpoints_for(e.attempt_id)
        mark_failed(self, e, cause, tb)

    def tdd(self: Any, e: Any) -> Any:
        d = create_tdd(self, e)
        restored = getattr(self, "restored", None)
        if restored is not None:
            key = (e.vertex.job_vertex.id, e.vertex.subtask_index)
            d.extra["restore"] = restored.task_restore.get(key)
        return d

    mp.setattr(default_scheduler.EagerSchedulingStrategy, "restart_tasks", restart_tasks)
    mp.setattr(DS, "mark_failed", failed)
    mp.setattr(DS, "create_deployment_descriptor", tdd)

    ST = stream_task.StreamTask

    def before_invoke(self: Any) -> None:
        outputs: dict[Any, Any] = {}
        for writer, rpdd in zip(
            self.task.record_writers, self.task.tdd.produced_partitions, strict=True
        ):
            outputs[rpdd.edge.stream_edge] = stream_task.RecordWriterOutput(
                writer, rpdd.edge.stream_edge.output_tag
            )
        self.record_writers = list(self.task.record_writers)
        tdd = self.task.tdd
        self.chain = self.task.chain_factory(
            tdd.job_vertex, self.task.task_env, outputs, tdd.settings
        )
        d = driver(self.task)
        d.restore(self.chain, tdd.extra.get("restore"))
        settings = self.task.task_executor.job_master.job_graph.checkpointing_settings
        d.setup(self.chain, self.record_writers, list(getattr(self, "gates", [])), settings)
        self.chain.open()

    IT = stream_task._InputTask
    process_buffer = IT._process_buffer

    def _process_buffer(self: Any, gate: Any, channel: Any, buffer: Any) -> str:
        d = driver(self.task)
        if buffer.is_event:
            if isinstance(buffer.event, EndOfPartitionEvent):
                d.on_end_of_partition(gate, channel)
                return process_buffer(self, gate, channel, buffer)
            channel.recycle()
            return d.on_event(gate, channel, buffer.event) or f"{buffer.event!r}"
        d.record_in_flight(gate, channel, buffer.elements)
        return process_buffer(self, gate, channel, buffer)

    mp.setattr(ST, "before_invoke", before_invoke)
    mp.setattr(IT, "_process_buffer", _process_buffer)
