"""The slots of one TaskExecutor (Flink's ``TaskSlotTable``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.errors import IllegalStateException


@dataclass
class TaskSlot:
    """Flink's ``TaskSlot``: FREE, or ALLOCATED to a job under an AllocationID, hosting tasks."""

    index: int  # the slot's number; a dynamic slot's counts on from the static ones
    allocation_id: str | None = None
    job_id: str | None = None
    tasks: dict[str, Any] = field(default_factory=dict)  # attempt id → Task

    @property
    def state(self) -> str:
        return "FREE" if self.allocation_id is None else "ALLOCATED"


class TaskSlotTable:
    """Flink's ``TaskSlotTableImpl``: allocate, add tasks, free."""

    def __init__(self, owner: str, number_of_slots: int) -> None:
        self.owner = owner
        self.slots = [TaskSlot(i) for i in range(number_of_slots)]
        self.dynamic_slot_index = number_of_slots  # TaskSlotTableImpl.dynamicSlotIndex

    def allocate_dynamic_slot(self, job_id: str, allocation_id: str) -> int:
        """``allocateSlot`` with a negative index (the FineGrainedSlotManager's dynamic SlotID):
        the slot takes ``nextDynamicSlotIndex()`` (never reused) within the TaskExecutor's
        budget of ``number_of_slots`` slots; returns that index."""
        free = next((s for s in self.slots if s.allocation_id is None), None)
        if free is None:
            raise IllegalStateException(
                f"Cannot allocate the requested resources on {self.owner}: all "
                f"{len(self.slots)} slots' resources are allocated."
            )
        free.index, self.dynamic_slot_index = self.dynamic_slot_index, self.dynamic_slot_index + 1
        free.allocation_id, free.job_id = allocation_id, job_id
        return free.index

    def allocate_slot(self, index: int, job_id: str, allocation_id: str) -> None:
        slot = self.slots[index]
        if slot.allocation_id is not None:
            raise IllegalStateException(
                f"Slot {index} of {self.owner} is already allocated ({slot.allocation_id})."
            )
        slot.allocation_id, slot.job_id = allocation_id, job_id

    def find(self, allocation_id: str) -> TaskSlot:
        for s in self.slots:
            if s.allocation_id == allocation_id:
                return s
        raise IllegalStateException(
            f"No slot with allocation id {allocation_id} on {self.owner}; cannot add task."
        )

    def add_task(self, allocation_id: str, task: Any) -> None:
        self.find(allocation_id).tasks[task.attempt_id] = task

    def remove_task(self, attempt_id: str) -> None:
        for s in self.slots:
            s.tasks.pop(attempt_id, None)

    def free_slot(self, allocation_id: str) -> int | None:
        for position, s in enumerate(self.slots):
            if s.allocation_id == allocation_id:
                index = s.index
                s.allocation_id = s.job_id = None
                s.index = position  # a freed dynamic slot leaves its static slot free
                s.tasks.clear()
                return index
        return None

    def free_all(self) -> None:
        """The TaskExecutor process is gone: no slot is allocated or hosts a task any more."""
        for position, s in enumerate(self.slots):
            s.allocation_id = s.job_id = None
            s.index = position
            s.tasks.clear()
