"""Processing time as the host gives it (Flink's ``ProcessingTimeService``) and a manual clock.

The simulated runtime backs the service with its simulated clock and task mailbox; Spark with a
deterministic clock; tests and the local driver with ``ManualProcessingTimeService`` (Flink's
``TestProcessingTimeService``).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable
from typing import Protocol

from pyflowkit.errors import IllegalArgumentException


class ScheduledTimer(Protocol):
    """Flink's ``ScheduledFuture`` of a processing-time timer: it can be cancelled."""

    def cancel(self) -> None: ...


class ProcessingTimeService(Protocol):
    """Flink's ``ProcessingTimeService``: the clock and one-shot timers of a task.

    ``register_timer(timestamp, callback)`` calls ``callback(timestamp)`` once the clock reaches
    ``timestamp``, on the task's thread (mailbox) — never while an operator is processing a record.
    """

    def get_current_processing_time(self) -> int: ...

    def register_timer(self, timestamp: int, callback: Callable[[int], None]) -> ScheduledTimer: ...


class _ManualTimer:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualProcessingTimeService:
    """Flink's ``TestProcessingTimeService``: time moves only on ``set_current_time``."""

    def __init__(self, start: int = 0) -> None:
        self.current_time = start
        self._timers: list[tuple[int, int, _ManualTimer, Callable[[int], None]]] = []
        self._seq = itertools.count()

    def get_current_processing_time(self) -> int:
        return self.current_time

    def register_timer(self, timestamp: int, callback: Callable[[int], None]) -> _ManualTimer:
        handle = _ManualTimer()
        heapq.heappush(self._timers, (timestamp, next(self._seq), handle, callback))
        return handle

    def next_timer_time(self) -> int | None:
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][0] if self._timers else None

    def num_active_timers(self) -> int:
        return sum(1 for t in self._timers if not t[2].cancelled)

    def set_current_time(self, timestamp: int) -> None:
        """Advance the clock, firing every due timer in timestamp order."""
        if timestamp < self.current_time:
            raise IllegalArgumentException(
                f"Processing time cannot go back: {timestamp} < {self.current_time}."
            )
        while True:
            nxt = self.next_timer_time()
            if nxt is None or nxt > timestamp:
                break
            ts, _, handle, callback = heapq.heappop(self._timers)
            self.current_time = max(self.current_time, ts)
            callback(ts)
        self.current_time = timestamp

    def advance(self, millis: int) -> None:
        self.set_current_time(self.current_time + millis)
