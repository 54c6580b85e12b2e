"""The JobMaster's slot pool under the 1.20 profile: FLIP-138's ``DeclarativeSlotPoolBridge``.

The scheduler still asks for one slot per slot-sharing key, but the pool does not forward the
request: it raises ``DefaultDeclarativeSlotPool``'s resource requirements, and (once connected)
``DeclarativeSlotPoolService`` declares the total at the ResourceManager. Offered slots are matched
to the requirements (``DefaultDeclarativeSlotPool.offerSlots``) and then to pending requests
(``DeclarativeSlotPoolBridge.newSlotsAreAvailable``). A released slot stays in the pool, free,
and is reserved again when its region restarts (``allocateAvailableSlot``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyflowkit.runtime.fine_grained_slot_manager import (
    UNKNOWN_PROFILE,
    ResourceRequirements,
    requirement_text,
)
from pyflowkit.runtime.slot_pool import AllocatedSlot, PendingRequest, SlotKey, SlotPool

if TYPE_CHECKING:
    from pyflowkit.runtime.task_executor import TaskExecutor


class DeclarativeSlotPoolBridge(SlotPool):
    """Flink's ``DeclarativeSlotPoolBridge`` over ``DefaultDeclarativeSlotPool`` (with
    ``DeclarativeSlotPoolService``'s ResourceManager connection)."""

    connect_method = "DeclarativeSlotPoolService.connectToResourceManager"
    #: ``DeclarativeSlotPoolBridge.failPendingRequests`` once the standalone ResourceManager's
    #: start-up period (slot.request.timeout) is over and it reports the requirements unfulfillable
    no_resource_message = "Could not acquire the minimum required resources."
    no_resource_cause_is_timeout = False

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.total_requirements = 0  # totalResourceRequirements (one UNKNOWN profile)
        self.offered: dict[str, AllocatedSlot] = {}  # allocation id → slot held by the pool
        self.free: list[str] = []  # allocation ids of free slots (AllocatedSlotPool's free)

    # -- requirements ---------------------------------------------------------------------------
    def _change_requirements(self, delta: int) -> None:
        """``increase/decreaseResourceRequirementsBy`` → ``declareResourceRequirements``."""
        if delta == 0:
            return
        self.total_requirements = max(0, self.total_requirements + delta)
        n = self.total_requirements
        later = "" if self.rm_connected else " (sent once the ResourceManager is connected)"
        self.bus.emit(
            "SlotPool",
            "DefaultDeclarativeSlotPool.declareResourceRequirements",
            f"Declare new resource requirements for job {self.job_id}. required resources: "
            f"{requirement_text(n)}, acquired resources: {len(self.offered)} slots{later}.",
            job=self.job_id,
        )
        if self.rm_connected:
            self._send_requirements()

    def _send_requirements(self) -> None:
        """``DefaultDeclareResourceRequirementServiceConnectionManager`` → the RM's RPC."""
        requirements = ResourceRequirements(self.job_id, self.job_master, self.total_requirements)
        self.bus.send(
            "SlotPool",
            self.rm.name,
            "ResourceManager.declareRequiredResources",
            lambda: self.rm.declare_required_resources(requirements),
        )

    def connect_to_resource_manager(self) -> None:
        """``DeclarativeSlotPoolService.connectToResourceManager``: declare what is required."""
        self.rm_connected = True
        self.bus.emit(
            "SlotPool",
            self.connect_method,
            "Connected to the ResourceManager; declaring the job's resource requirements "
            f"{requirement_text(self.total_requirements)}.",
            job=self.job_id,
        )
        self._send_requirements()

    # -- requests from the scheduler ------------------------------------------------------------
    def request_new_allocated_slot(self, key: SlotKey) -> None:
        """``PhysicalSlotProviderImpl``: a free slot of the pool if there is one
        (``allocateAvailableSlot``), else ``requestNewAllocatedSlot`` (a pending request)."""
        if self.free:
            prior = [a for a in self.free if self.offered[a].key == key]
            allocation_id = (prior or self.free)[0]
            self.free.remove(allocation_id)
            slot = self.offered[allocation_id]
            slot.key = key
            self.slots[key] = slot
            self.bus.emit(
                "SlotPool",
                "DeclarativeSlotPoolBridge.allocateAvailableSlot",
                f"Reserving free slot {allocation_id} for slot request [{key[0]}#{key[1]}] and "
                f"profile {UNKNOWN_PROFILE} ({slot}).",
                job=self.job_id,
            )
            self._change_requirements(+1)
            return
        request_id = self.bus.new_id()
        req = PendingRequest(key, request_id, sent=True)
        self.pending[request_id] = req
        self.bus.emit(
            "SlotPool",
            "DeclarativeSlotPoolBridge.requestNewAllocatedSlot",
            f"Request new allocated slot with slot request id {request_id} [{key[0]}#{key[1]}] "
            f"and resource profile {UNKNOWN_PROFILE}",
            job=self.job_id,
        )
        req.timeout_event = self.bus.call_later(
            self.bus.config.slot_request_timeout,
            "SlotPool.timeouts",
            "DeclarativeSlotPoolBridge.timeoutPendingSlotRequest",
            lambda: self._timeout(request_id),
        )
        self._change_requirements(+1)

    def offer_slot(self, te: TaskExecutor, slot_index: int, allocation_id: str) -> bool:
        """``DefaultDeclarativeSlotPool.offerSlots`` (accepted while requirements are
        unfulfilled) → ``newSlotsAreAvailable`` (the oldest pending request takes it)."""
        if allocation_id in self.offered:
            return True  # already accepted
        if len(self.offered) >= self.total_requirements:
            self.bus.emit(
                "SlotPool",
                "DefaultDeclarativeSlotPool.offerSlots",
                f"Could not match offer {allocation_id} to any outstanding requirement.",
                job=self.job_id,
            )
            return False
        slot = AllocatedSlot(allocation_id, te, slot_index, ("", -1))
        self.offered[allocation_id] = slot
        self.bus.emit(
            "SlotPool",
            "DefaultDeclarativeSlotPool.offerSlots",
            f"Matched slot offer {allocation_id} (slot {slot_index} of {te.name}) to requirement "
            f"{UNKNOWN_PROFILE}.",
            job=self.job_id,
        )
        self._new_slots_are_available([allocation_id])
        return True

    def _new_slots_are_available(self, allocation_ids: list[str]) -> None:
        """``DeclarativeSlotPoolBridge.newSlotsAreAvailable``: fulfil the oldest pending requests;
        a slot no request wants stays free in the pool."""
        for allocation_id in allocation_ids:
            slot = self.offered[allocation_id]
            if not self.pending:
                self.free.append(allocation_id)
                continue
            request_id = next(iter(self.pending))
            req = self.pending.pop(request_id)
            if req.timeout_event is not None:
                req.timeout_event.cancelled = True
            slot.key = req.key
            self.slots[req.key] = slot
            self.bus.emit(
                "SlotPool",
                "DeclarativeSlotPoolBridge.newSlotsAreAvailable",
                f"Reserve slot {allocation_id} for slot request id {request_id} "
                f"[{req.key[0]}#{req.key[1]}]: {slot}.",
                job=self.job_id,
            )
        self.on_slot_available()

    def _timeout(self, request_id: str) -> None:
        req = self.pending.pop(request_id, None)
        if req is None:
            return
        self.bus.emit(
            "SlotPool",
            "DeclarativeSlotPoolBridge.timeoutPendingSlotRequest",
            f"Pending slot request [{req.key[0]}#{req.key[1]}] timed out.",
            job=self.job_id,
        )
        self._change_requirements(-1)  # releaseSlot of a pending request
        self.on_request_timeout(req)

    def cancel_pending(self) -> None:
        n = len(self.pending)
        for req in self.pending.values():
            if req.timeout_event is not None:
                req.timeout_event.cancelled = True
        self.pending.clear()
        self._change_requirements(-n)

    # -- releases -------------------------------------------------------------------------------
    def release_reserved_slots(self, keys: list[SlotKey]) -> None:
        """A region restarts: ``releaseSlot`` → ``freeReservedSlot`` (the slot stays in the pool,
        free) and the requirement drops; the restart reserves it again."""
        freed = 0
        for key in keys:
            slot = self.slots.pop(key, None)
            if slot is None:
                continue
            self.free.append(slot.allocation_id)
            freed += 1
            self.bus.emit(
                "SlotPool",
                "DefaultDeclarativeSlotPool.freeReservedSlot",
                f"Free reserved slot {slot.allocation_id} ({slot}); it stays in the pool.",
                job=self.job_id,
            )
        self._change_requirements(-freed)

    def release_task_manager(self, te: TaskExecutor) -> list[AllocatedSlot]:
        """``releaseTaskManager`` → ``releaseSlots(owner)``; the fulfilled requirement drops."""
        lost = [s for s in self.offered.values() if s.task_executor is te]
        reserved = [s for s in lost if self.slots.get(s.key) is s]
        for s in lost:
            del self.offered[s.allocation_id]
            if s.allocation_id in self.free:
                self.free.remove(s.allocation_id)
        for s in reserved:
            del self.slots[s.key]
        self._change_requirements(-len(reserved))
        return reserved

    def release_all(self) -> None:
        """The job is over: ``DeclarativeSlotPoolService.close`` frees every slot at its
        TaskExecutor; the ResourceManager drops the job's requirements (disconnectJobManager)."""
        self.cancel_pending()
        self.rm.disconnect_job_manager(self.job_id)
        self._free_at_task_executors(list(self.offered.values()))
        self.offered.clear()
        self.free.clear()
        self.slots.clear()
        self.total_requirements = 0
