"""The ResourceManager and its SlotManager: which TaskExecutor slot serves which request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyflowkit.runtime.fine_grained_slot_manager import (
    FineGrainedSlotManager,
    ResourceRequirements,
    requirement_text,
)
from pyflowkit.runtime.rpc import RpcBus

if TYPE_CHECKING:
    from pyflowkit.runtime.job_master import JobMaster
    from pyflowkit.runtime.task_executor import TaskExecutor


@dataclass
class SlotRequest:
    """Flink's ``SlotRequest`` (job, allocation id) as the SlotManager keeps it pending."""

    job_id: str
    allocation_id: str
    job_master: JobMaster


class SlotManager:
    """Flink's ``SlotManagerImpl``: registered slots, free or allocated, and pending requests."""

    def __init__(self) -> None:
        self.slots: dict[tuple[int, int], str | None] = {}  # (tm index, slot) → allocation id
        self.pending: list[SlotRequest] = []

    def register_task_executor(self, te: TaskExecutor) -> None:
        for s in te.task_slot_table.slots:
            self.slots[(te.index, s.index)] = None

    def unregister_task_executor(self, index: int) -> None:
        for key in [k for k in self.slots if k[0] == index]:
            del self.slots[key]

    def find_free(self) -> tuple[int, int] | None:
        for key in sorted(self.slots):
            if self.slots[key] is None:
                return key
        return None

    def free_slot(self, allocation_id: str) -> None:
        for key, alloc in self.slots.items():
            if alloc == allocation_id:
                self.slots[key] = None


class ResourceManager:
    """Flink's ``StandaloneResourceManager`` of a MiniCluster (owns the SlotManager)."""

    name = "ResourceManager"

    def __init__(self, bus: RpcBus, task_executors: list[TaskExecutor]) -> None:
        self.bus = bus
        self.task_executors = task_executors
        self.slot_manager = SlotManager()
        for te in task_executors:
            self.slot_manager.register_task_executor(te)
        # FLIP-138 (jobs under the 1.20 profile): declared requirements on the same slots
        self.fine_grained = FineGrainedSlotManager(bus, self.slot_manager, task_executors)
        self.job_managers: set[str] = set()  # jobManagerRegistrations (by job id)

    def register_job_manager(self, job_master: JobMaster) -> None:
        """``ResourceManager.registerJobManager``: the JobMaster is now known; reply."""
        self.job_managers.add(job_master.job_id)
        self.bus.emit(
            self.name,
            "ResourceManager.registerJobManager",
            f"Registered job manager for job {job_master.job_id}.",
            job=job_master.job_id,
        )
        self.bus.send(
            self.name,
            "JobMaster",
            job_master.slot_pool.connect_method,
            job_master.slot_pool.connect_to_resource_manager,
        )

    def declare_required_resources(self, requirements: ResourceRequirements) -> None:
        """``ResourceManager.declareRequiredResources`` → ``SlotManager.processResourceRequirements``
        (FLIP-138: the job's total, not one request per slot)."""
        self.bus.emit(
            self.name,
            "ResourceManager.declareRequiredResources",
            f"Received resource declaration for job {requirements.job_id}: "
            f"{requirement_text(requirements.number_of_required_slots)}",
            job=requirements.job_id,
        )
        if requirements.job_id not in self.job_managers:
            # "Could not find registered job manager for job …": a declaration still in flight
            # when the job's JobMaster disconnected is refused, not served
            return
        self.fine_grained.process_resource_requirements(requirements)

    def disconnect_job_manager(self, job_id: str) -> None:
        """``ResourceManager.disconnectJobManager`` → ``closeJobManagerConnection``: the
        registration goes and the SlotManager clears the job's requirements."""
        self.job_managers.discard(job_id)
        self.fine_grained.clear_resource_requirements(job_id)

    def request_slot(self, request: SlotRequest) -> None:
        """``ResourceManager.requestSlot`` → ``SlotManagerImpl.registerSlotRequest``."""
        self.bus.emit(
            self.name,
            "SlotManager.registerSlotRequest",
            f"Request slot with profile ResourceProfile{{UNKNOWN}} for job "
            f"{request.job_id} with allocation id {request.allocation_id}.",
            job=request.job_id,
        )
        self.slot_manager.pending.append(request)
        self._fulfil_pending()

    def _fulfil_pending(self) -> None:
        sm = self.slot_manager
        while sm.pending:
            key = sm.find_free()
            if key is None:
                req = sm.pending[0]
                self.bus.emit(
                    self.name,
                    "SlotManager.registerSlotRequest",
                    f"No free slot for allocation {req.allocation_id}; the request stays "
                    "pending until a slot frees up or the JobMaster's slot request times "
                    "out.",
                    job=req.job_id,
                )
                return
            req = sm.pending.pop(0)
            sm.slots[key] = req.allocation_id
            te = self.task_executors[key[0]]
            self.bus.send(
                self.name,
                te.name,
                "TaskExecutor.requestSlot",
                lambda te=te, key=key, req=req: te.request_slot(
                    key[1], req.job_id, req.allocation_id, req.job_master
                ),
            )

    def cancel_slot_request(self, allocation_id: str) -> None:
        self.slot_manager.pending = [
            r for r in self.slot_manager.pending if r.allocation_id != allocation_id
        ]

    def notify_slot_available(self, allocation_id: str) -> None:
        """A TaskExecutor freed a slot (``SlotReport``): serve pending requests."""
        self.slot_manager.free_slot(allocation_id)
        self.fine_grained.slot_freed(allocation_id)
        self._fulfil_pending()
        self.fine_grained.check_resource_requirements()

    def task_executor_lost(self, index: int) -> None:
        self.slot_manager.unregister_task_executor(index)
        self.bus.emit(
            self.name,
            "ResourceManager.closeTaskManagerConnection",
            f"Closing TaskExecutor connection TaskExecutor-{index} because: "
            "the TaskExecutor is no longer reachable.",
        )
