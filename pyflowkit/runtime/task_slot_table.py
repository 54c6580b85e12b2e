"""The slots of one TaskExecutor (Flink's ``TaskSlotTable``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyflowkit.errors import IllegalStateException


@dataclass
class TaskSlot:
    """Flink's ``TaskSlot``: FREE, or ALLOCATED to a job under an AllocationID, hosting tasks."""

    index: int
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
        for s in self.slots:
            if s.allocation_id == allocation_id:
                s.allocation_id = s.job_id = None
                s.tasks.clear()
                return s.index
        return None

    def free_all(self) -> None:
        """The TaskExecutor process is gone: no slot is allocated or hosts a task any more."""
        for s in self.slots:
            s.allocation_id = s.job_id = None
            s.tasks.clear()
