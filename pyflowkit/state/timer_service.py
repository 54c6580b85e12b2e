"""Keyed timers (Flink's ``InternalTimerServiceImpl``, ``InternalTimeServiceManager``).

Timers are per (timestamp, key, namespace), deduplicated, fired in timestamp order (ties in
registration order) with the key context set. Event-time timers fire from ``advance_watermark``
(the operator forwards the watermark afterwards); processing-time timers are scheduled on the
host's ``ProcessingTimeService`` (the earliest one at a time, as Flink does). In BATCH execution
mode the end of input (the ``MAX`` watermark) also fires every processing-time timer, as Flink
1.12's ``BatchExecutionInternalTimeService`` does at the end of a key.

A timer's key is told apart as the keyed state backend tells keys apart (``key_identity``):
``1``, ``True`` and ``1.0`` are equal in Python but three keys (three Java key groups) in Flink,
so each has its own timers.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple, Protocol

from pyflowkit.errors import IllegalStateException
from pyflowkit.java_semantics import SELF_IDENTIFYING_KEY_TYPES, key_identity
from pyflowkit.state.heap_keyed_state_backend import _restore_key
from pyflowkit.state.time import LONG_MIN_VALUE, MAX_WATERMARK

EVENT_TIME = "event"
PROCESSING_TIME = "processing"


class InternalTimer(NamedTuple):
    """Flink's ``InternalTimer``: when, for which key, in which namespace (immutable)."""

    timestamp: int
    key: Any
    namespace: Any

    def get_timestamp(self) -> int:
        return self.timestamp

    def get_key(self) -> Any:
        return self.key

    def get_namespace(self) -> Any:
        return self.namespace


class Triggerable(Protocol):
    """Flink's ``Triggerable``: what an operator does when one of its timers fires."""

    def on_event_time(self, timer: InternalTimer) -> None: ...

    def on_processing_time(self, timer: InternalTimer) -> None: ...


def timer_ident(timestamp: int, key: Any, namespace: Any) -> tuple[int, Any, Any]:
    """A timer's identity: equal iff Flink's ``TimerHeapInternalTimer.equals`` holds.

    The key is compared as Java compares keys (``key_identity``: type-aware, so ``1``, ``True``
    and ``1.0`` differ); ``str``/``int`` keys stand for themselves.
    """
    return (
        timestamp,
        key if type(key) in SELF_IDENTIFYING_KEY_TYPES else key_identity(key),
        namespace,
    )


class _TimerQueue:
    """A deduplicating min-heap of timers (Flink's ``HeapPriorityQueueSet``).

    ``heap`` holds ``(timestamp, seq, key, namespace)`` (ties fire in registration order);
    ``live`` holds the ``timer_ident`` of every registered, not deleted, not fired timer.
    Code writing them directly must use ``timer_ident`` for ``live``.
    """

    def __init__(self) -> None:
        self.heap: list[tuple[int, int, Any, Any]] = []
        self.live: set[tuple[int, Any, Any]] = set()
        self.seq = itertools.count()

    def add(self, timestamp: int, key: Any, namespace: Any) -> bool:
        ident = timer_ident(timestamp, key, namespace)
        if ident in self.live:
            return False
        self.live.add(ident)
        heapq.heappush(self.heap, (timestamp, next(self.seq), key, namespace))
        return True

    def add_all(self, timers: Iterable[tuple[int, Any, Any]]) -> None:
        """``add`` each ``(timestamp, key, namespace)`` in order (a batch's registrations)."""
        heap, live, seq = self.heap, self.live, self.seq
        push = heapq.heappush
        for ts, key, ns in timers:
            ident = (ts, key if type(key) in SELF_IDENTIFYING_KEY_TYPES else key_identity(key), ns)
            if ident not in live:
                live.add(ident)
                push(heap, (ts, next(seq), key, ns))

    def remove(self, timestamp: int, key: Any, namespace: Any) -> None:
        self.live.discard(timer_ident(timestamp, key, namespace))

    def peek_timestamp(self) -> int | None:
        heap, live = self.heap, self.live
        while heap:
            ts, _, key, ns = heap[0]
            if timer_ident(ts, key, ns) in live:
                return ts
            heapq.heappop(heap)
        return None

    def pop_if_due(self, time: int) -> tuple[int, Any, Any] | None:
        ts = self.peek_timestamp()
        if ts is None or ts > time:
            return None
        ts, _, key, ns = heapq.heappop(self.heap)
        self.live.discard(timer_ident(ts, key, ns))
        return ts, key, ns

    def pop_due(self, time: int) -> Iterator[tuple[int, Any, Any]]:
        """Pop the timers due at ``time`` in firing order, each as ``(timestamp, key, namespace)``
        (deleted ones skipped); a timer added while iterating is popped too when due."""
        heap, live = self.heap, self.live
        heappop = heapq.heappop
        while heap and heap[0][0] <= time:
            ts, _, key, ns = heappop(heap)
            try:
                live.remove(
                    (ts, key if type(key) in SELF_IDENTIFYING_KEY_TYPES else key_identity(key), ns)
                )
            except KeyError:
                continue  # deleted
            yield ts, key, ns

    def has_due(self, time: int) -> bool:
        """Whether the heap's head (live or deleted) is due at ``time``: a cheap pre-check."""
        heap = self.heap
        return bool(heap) and heap[0][0] <= time

    def ordered(self) -> list[tuple[int, Any, Any]]:
        """The live timers in firing order (timestamp, then registration), each once.

        A timer deleted and registered again has two heap entries; the first one fires.
        """
        live, seen = self.live, set()
        out = []
        for ts, _, k, ns in sorted(self.heap):
            ident = timer_ident(ts, k, ns)
            if ident in live and ident not in seen:
                seen.add(ident)
                out.append((ts, k, ns))
        return out

    def __len__(self) -> int:
        return len(self.live)


class InternalTimerService:
    """Flink's ``InternalTimerServiceImpl`` for one named service of one operator."""

    def __init__(self, name: str, manager: InternalTimeServiceManager) -> None:
        self.name = name
        self.manager = manager
        self.triggerable: Triggerable | None = None
        self.event_time_timers = _TimerQueue()
        self.processing_time_timers = _TimerQueue()
        self._scheduled: Any = None  # handle of the host timer for the earliest processing timer
        self._scheduled_time: int | None = None

    # ---- the TimerService view ----
    def current_processing_time(self) -> int:
        return self.manager.processing_time_service.get_current_processing_time()

    def current_watermark(self) -> int:
        return self.manager.current_watermark

    def register_event_time_timer(self, namespace: Any, time: int) -> None:
        self.event_time_timers.add(time, self.manager.key_context.current_key, namespace)

    def delete_event_time_timer(self, namespace: Any, time: int) -> None:
        self.event_time_timers.remove(time, self.manager.key_context.current_key, namespace)

    def register_processing_time_timer(self, namespace: Any, time: int) -> None:
        if self.processing_time_timers.add(time, self.manager.key_context.current_key, namespace):
            self._schedule_next()

    def delete_processing_time_timer(self, namespace: Any, time: int) -> None:
        self.processing_time_timers.remove(time, self.manager.key_context.current_key, namespace)

    def num_event_time_timers(self) -> int:
        return len(self.event_time_timers)

    def num_processing_time_timers(self) -> int:
        return len(self.processing_time_timers)

    # ---- firing ----
    def advance_watermark(self, time: int) -> None:
        """Fire every event-time timer with timestamp <= ``time``, in timestamp order."""
        self._fire(self.event_time_timers, time, EVENT_TIME)

    def on_processing_time(self, time: int) -> None:
        """The host's callback: fire every processing-time timer with timestamp <= ``time``."""
        self._scheduled = None
        self._scheduled_time = None
        self._fire(self.processing_time_timers, time, PROCESSING_TIME)
        self._schedule_next()

    def fire_all_processing_time_timers(self) -> None:
        """BATCH end of input: every processing-time timer fires now, in timestamp order."""
        self.cancel_scheduled()
        self._fire(self.processing_time_timers, MAX_WATERMARK, PROCESSING_TIME)

    def _fire(self, queue: _TimerQueue, time: int, domain: str) -> None:
        """Pop and fire ``queue``'s timers due at ``time``, each with its key as current key.

        Timers registered while firing are fired too when due (they join the same heap).
        """
        set_current_key = self.manager.key_context.set_current_key
        fire = None
        for ts, key, ns in queue.pop_due(time):
            if fire is None:
                target = self._require_triggerable()
                fire = target.on_event_time if domain == EVENT_TIME else target.on_processing_time
            set_current_key(key)
            fire(InternalTimer(ts, key, ns))

    def _schedule_next(self) -> None:
        head = self.processing_time_timers.peek_timestamp()
        if head is None:
            return
        if self._scheduled is not None:
            if self._scheduled_time is not None and self._scheduled_time <= head:
                return
            self._scheduled.cancel()
        self._scheduled_time = head
        self._scheduled = self.manager.processing_time_service.register_timer(
            head, self.on_processing_time
        )

    def _require_triggerable(self) -> Triggerable:
        if self.triggerable is None:
            raise IllegalStateException(
                f"Timer service '{self.name}' has timers but no operator asked for it."
            )
        return self.triggerable

    def cancel_scheduled(self) -> None:
        if self._scheduled is not None:
            self._scheduled.cancel()
            self._scheduled = None
            self._scheduled_time = None


class InternalTimeServiceManager:
    """Flink's ``InternalTimeServiceManager``: an operator's timer services + watermark."""

    def __init__(
        self,
        key_context: Any,
        processing_time_service: Any,
        max_parallelism: int,
        batch: bool = False,
    ) -> None:
        self.key_context = key_context  # HeapKeyedStateBackend (set_current_key/current_key)
        self.processing_time_service = processing_time_service
        self.max_parallelism = max_parallelism
        self.batch = batch  # BATCH execution mode: processing-time timers fire at end of input
        self.current_watermark = LONG_MIN_VALUE
        self.services: dict[str, InternalTimerService] = {}

    def get_internal_timer_service(
        self, name: str, triggerable: Triggerable
    ) -> InternalTimerService:
        service = self.services.get(name)
        if service is None:
            service = self.services[name] = InternalTimerService(name, self)
        service.triggerable = triggerable
        service._schedule_next()
        return service

    def advance_watermark(self, watermark: int) -> None:
        self.current_watermark = watermark
        for service in list(self.services.values()):
            service.advance_watermark(watermark)
        if self.batch and watermark >= MAX_WATERMARK:
            for service in list(self.services.values()):
                service.fire_all_processing_time_timers()

    def snapshot(self) -> dict[int, list[list[Any]]]:
        """Key group → [[service, domain, timestamp, key, namespace], …] in firing order."""
        out: dict[int, list[list[Any]]] = {}
        kg_of = self.key_context.key_group_of
        for name, service in self.services.items():
            for domain, queue in (
                (EVENT_TIME, service.event_time_timers),
                (PROCESSING_TIME, service.processing_time_timers),
            ):
                for ts, key, ns in queue.ordered():
                    out.setdefault(kg_of(key), []).append([name, domain, ts, key, ns])
        return {kg: out[kg] for kg in sorted(out)}

    def restore(self, timers: dict[int, list[list[Any]]], key_group_range: Any) -> None:
        """Re-register the timers of this subtask's key groups (processing ones once asked for)."""
        for kg in sorted(int(k) for k in timers):
            if kg not in key_group_range:
                continue
            entries = timers.get(kg, timers.get(str(kg)))  # type: ignore[call-overload]
            for name, domain, ts, key, ns in entries:
                service = self.services.get(name)
                if service is None:
                    service = self.services[name] = InternalTimerService(name, self)
                queue = (
                    service.event_time_timers
                    if domain == EVENT_TIME
                    else service.processing_time_timers
                )
                queue.add(ts, _restore_key(key), _restore_key(ns))

    def dispose(self) -> None:
        for service in self.services.values():
            service.cancel_scheduled()
