"""The JobMaster's slot pool (Flink's ``SlotPoolImpl``): asks the ResourceManager, holds offers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyflowkit.runtime.resource_manager import ResourceManager, SlotRequest
from pyflowkit.runtime.rpc import RpcBus

if TYPE_CHECKING:
    from pyflowkit.runtime.job_master import JobMaster
    from pyflowkit.runtime.task_executor import TaskExecutor

SlotKey = tuple[str, int]  # (slot sharing group, subtask index): one physical slot each


@dataclass
class AllocatedSlot:
    """Flink's ``AllocatedSlot``: a TaskExecutor slot given to this job."""

    allocation_id: str
    task_executor: TaskExecutor
    slot_index: int
    key: SlotKey

    @property
    def location(self) -> str:
        return self.task_executor.location

    def __str__(self) -> str:
        # the whole AllocationID, as every other log line has it (a view abridges every id alike)
        return f"{self.task_executor.name} slot {self.slot_index} ({self.allocation_id})"


@dataclass
class PendingRequest:
    key: SlotKey
    allocation_id: str
    sent: bool = False
    timeout_event: Any = None


class SlotPool:
    """Flink's ``SlotPoolImpl``; one physical slot per slot-sharing key (group, subtask index)."""

    connect_method = "SlotPool.connectToResourceManager"  # the RM's reply, as traced
    #: NoResourceAvailableException's text when a slot request is not served in time
    #: (``SchedulerImpl`` / ``SlotPoolImpl`` of Flink 1.11; its cause is the request's timeout)
    no_resource_message = (
        "Could not allocate the required slot within slot request timeout. Please make sure "
        "that the cluster has enough resources."
    )
    no_resource_cause_is_timeout = True

    def __init__(
        self, job_master: JobMaster, bus: RpcBus, resource_manager: ResourceManager
    ) -> None:
        self.job_master = job_master
        self.bus = bus
        self.rm = resource_manager
        self.rm_connected = False
        self.pending: dict[str, PendingRequest] = {}  # allocation id → request
        self.slots: dict[SlotKey, AllocatedSlot] = {}
        self.on_slot_available: Callable[[], None] = lambda: None
        self.on_request_timeout: Callable[[PendingRequest], None] = lambda r: None

    @property
    def job_id(self) -> str:
        return self.job_master.job_id

    def has_slot(self, key: SlotKey) -> bool:
        return key in self.slots

    def is_requested(self, key: SlotKey) -> bool:
        return any(r.key == key for r in self.pending.values())

    def request_new_allocated_slot(self, key: SlotKey) -> None:
        """``SlotPoolImpl.requestNewAllocatedSlot``: a new slot from the ResourceManager."""
        allocation_id = self.bus.new_id()
        req = PendingRequest(key, allocation_id)
        self.pending[allocation_id] = req
        self.bus.emit(
            "SlotPool",
            "SlotPool.requestNewAllocatedSlot",
            f"Requesting new slot [{key[0]}#{key[1]}] and profile ResourceProfile{{UNKNOWN}} with "
            f"allocation id {allocation_id} from resource manager.",
            job=self.job_id,
        )
        req.timeout_event = self.bus.call_later(
            self.bus.config.slot_request_timeout,
            "SlotPool.timeouts",
            "SlotPool.timeoutPendingSlotRequest",
            lambda: self._timeout(allocation_id),
        )
        if self.rm_connected:
            self._send(req)

    def _send(self, req: PendingRequest) -> None:
        req.sent = True
        request = SlotRequest(self.job_id, req.allocation_id, self.job_master)
        self.bus.send(
            "SlotPool",
            self.rm.name,
            "ResourceManager.requestSlot",
            lambda: self.rm.request_slot(request),
        )

    def connect_to_resource_manager(self) -> None:
        """``SlotPoolImpl.connectToResourceManager``: send the requests that waited for it."""
        self.rm_connected = True
        self.bus.emit(
            "SlotPool",
            "SlotPool.connectToResourceManager",
            "Connected to the ResourceManager; sending pending slot requests.",
            job=self.job_id,
        )
        for req in list(self.pending.values()):
            if not req.sent:
                self._send(req)

    def offer_slot(self, te: TaskExecutor, slot_index: int, allocation_id: str) -> bool:
        """``SlotPoolImpl.offerSlot``: accept a slot that fulfils a pending request."""
        req = self.pending.pop(allocation_id, None)
        if req is None:
            return False
        if req.timeout_event is not None:
            req.timeout_event.cancelled = True
        self.slots[req.key] = AllocatedSlot(allocation_id, te, slot_index, req.key)
        self.bus.emit(
            "SlotPool",
            "SlotPool.offerSlot",
            f"Accepted slot {slot_index} of {te.name} (allocation {allocation_id}) for "
            f"slot sharing group '{req.key[0]}', subtask {req.key[1]}.",
            job=self.job_id,
        )
        self.on_slot_available()
        return True

    def _timeout(self, allocation_id: str) -> None:
        req = self.pending.pop(allocation_id, None)
        if req is None:
            return
        self.rm.cancel_slot_request(allocation_id)
        self.bus.emit(
            "SlotPool",
            "SlotPool.timeoutPendingSlotRequest",
            f"Pending slot request [{req.key[0]}#{req.key[1]}] timed out.",
            job=self.job_id,
        )
        self.on_request_timeout(req)

    def cancel_pending(self) -> None:
        for req in self.pending.values():
            if req.timeout_event is not None:
                req.timeout_event.cancelled = True
            self.rm.cancel_slot_request(req.allocation_id)
        self.pending.clear()

    def release_reserved_slots(self, keys: list[SlotKey]) -> None:
        """A region restarts: SlotPoolImpl keeps each slot for its slot-sharing key (no trace)."""

    def release_task_manager(self, te: TaskExecutor) -> list[AllocatedSlot]:
        lost = [s for s in self.slots.values() if s.task_executor is te]
        for s in lost:
            del self.slots[s.key]
        return lost

    def release_all(self) -> None:
        """The job is over: give every slot back (TaskExecutor.freeSlot, then the RM)."""
        self.cancel_pending()
        self._free_at_task_executors(list(self.slots.values()))
        self.slots.clear()

    def _free_at_task_executors(self, slots: list[AllocatedSlot]) -> None:
        """``TaskExecutor.freeSlot`` for each slot, then the ResourceManager sees it free."""
        for slot in slots:
            te = slot.task_executor
            alloc = slot.allocation_id
            self.bus.send(
                "SlotPool",
                te.name,
                "TaskExecutor.freeSlot",
                lambda te=te, alloc=alloc: (
                    te.free_slot(alloc),
                    self.rm.notify_slot_available(alloc),
                ),
            )
