"""Declarative slot allocation on the ResourceManager side (Flink 1.20's ``FineGrainedSlotManager``).

FLIP-138: a JobMaster declares how many slots it needs (``ResourceRequirements``); the slot manager
compares the total with what the job already holds and allocates the missing slots itself, each
with a dynamic ``SlotID`` (``DefaultSlotStatusSyncer.allocateSlot``). Used under the 1.20 profile
only; the 1.11 path (``SlotManagerImpl.registerSlotRequest``) stays in ``resource_manager``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyflowkit.runtime.rpc import RpcBus

if TYPE_CHECKING:
    from pyflowkit.runtime.job_master import JobMaster
    from pyflowkit.runtime.resource_manager import SlotManager
    from pyflowkit.runtime.task_executor import TaskExecutor

UNKNOWN_PROFILE = "ResourceProfile{UNKNOWN}"
DYNAMIC_SLOT_INDEX = -1  # SlotID.getDynamicSlotID: the TaskExecutor numbers the slot itself


def requirement_text(number_of_required_slots: int) -> str:
    """``ResourceRequirement.toString`` of the one (UNKNOWN) profile a coarse-grained job uses."""
    if number_of_required_slots <= 0:
        return "[]"
    return (
        f"[ResourceRequirement{{resourceProfile={UNKNOWN_PROFILE}, "
        f"numberOfRequiredSlots={number_of_required_slots}}}]"
    )


@dataclass(frozen=True)
class ResourceRequirements:
    """Flink's ``ResourceRequirements``: the job, its JobMaster, the slots it needs in total."""

    job_id: str
    job_master: JobMaster
    number_of_required_slots: int


class FineGrainedSlotManager:
    """Flink's ``FineGrainedSlotManager`` (the only SlotManager since 1.19, FLINK-31449): per job,
    the declared requirement and the allocations it holds; ``checkResourceRequirements``
    allocates what is missing on free TaskExecutor resources."""

    name = "ResourceManager"

    def __init__(
        self, bus: RpcBus, slot_manager: SlotManager, task_executors: list[TaskExecutor]
    ) -> None:
        self.bus = bus
        self.slot_manager = slot_manager  # the registered slots both managers share
        self.task_executors = task_executors
        self.requirements: dict[str, ResourceRequirements] = {}  # job id → last declaration
        self.job_of: dict[str, str] = {}  # allocation id → job (ResourceTracker's acquired)

    def acquired(self, job_id: str) -> int:
        allocated = set(self.slot_manager.slots.values())
        return sum(1 for a, j in self.job_of.items() if j == job_id and a in allocated)

    def process_resource_requirements(self, requirements: ResourceRequirements) -> None:
        """``processResourceRequirements``: remember the job's total, then check."""
        job = requirements.job_id
        n = requirements.number_of_required_slots
        if n == 0 and job not in self.requirements:
            return  # duplicate empty requirements are skipped
        if n == 0:
            message = f"Clearing resource requirements of job {job}"
            self.requirements.pop(job, None)
        else:
            message = f"Received resource requirements from job {job}: {requirement_text(n)}"
            self.requirements[job] = requirements
        self.bus.emit(
            self.name, "FineGrainedSlotManager.processResourceRequirements", message, job=job
        )
        self.check_resource_requirements()

    def clear_resource_requirements(self, job_id: str) -> None:
        """``clearResourceRequirements`` (``ResourceManager.disconnectJobManager``)."""
        if self.requirements.pop(job_id, None) is not None:
            self.bus.emit(
                self.name,
                "FineGrainedSlotManager.clearResourceRequirements",
                f"Clearing resource requirements of job {job_id}",
                job=job_id,
            )

    def check_resource_requirements(self) -> None:
        """``checkResourceRequirements``: allocate each job's missing slots on free resources
        (``DefaultResourceAllocationStrategy``), else leave them missing."""
        sm = self.slot_manager
        for job, req in list(self.requirements.items()):
            for _ in range(req.number_of_required_slots - self.acquired(job)):
                key = sm.find_free()
                if key is None:
                    self.bus.emit(
                        self.name,
                        "FineGrainedSlotManager.checkResourceRequirements",
                        f"Could not fulfill resource requirements of job {job}. Free slots: 0 "
                        "(the requirement stays missing until a slot frees up or the JobMaster's "
                        "slot request times out).",
                        job=job,
                    )
                    break
                self._allocate_slot(key, req)

    def _allocate_slot(self, key: tuple[int, int], req: ResourceRequirements) -> None:
        """``DefaultSlotStatusSyncer.allocateSlot``: a new AllocationID, a dynamic SlotID, the
        ``TaskExecutor.requestSlot`` RPC."""
        allocation_id = self.bus.new_id()
        self.slot_manager.slots[key] = allocation_id
        self.job_of[allocation_id] = req.job_id
        te = self.task_executors[key[0]]
        self.bus.emit(
            self.name,
            "DefaultSlotStatusSyncer.allocateSlot",
            f"Starting allocation of slot {allocation_id} from {te.name} for job {req.job_id} "
            f"with resource profile {UNKNOWN_PROFILE}.",
            job=req.job_id,
        )
        jm = req.job_master
        self.bus.send(
            self.name,
            te.name,
            "TaskExecutor.requestSlot",
            lambda: te.request_slot(DYNAMIC_SLOT_INDEX, req.job_id, allocation_id, jm),
        )

    def slot_freed(self, allocation_id: str) -> None:
        self.job_of.pop(allocation_id, None)
