"""The discrete-event core: one clock, one event heap, one seeded chooser (SimPy-style)."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter

_BY_SEQ = attrgetter("seq")


@dataclass(eq=False)
class SimEvent:
    """A message or mail due at ``time``; ``lane`` keeps FIFO order between the same endpoints."""

    time: int
    seq: int
    lane: str
    name: str
    action: Callable[[], None] = field(repr=False)
    cancelled: bool = False


class EmptySchedule(Exception):
    """Nothing left to deliver (SimPy's ``EmptySchedule``)."""


class SimEnvironment:
    """Clock + heap of ``(time, seq)`` events; a seeded RNG picks among events due now.

    Among the events due at the earliest time, only the first of each lane is eligible, so two
    messages between the same pair of endpoints are never reordered while different lanes interleave
    as the seed decides. The heap holds ``(time, seq, event)`` tuples, compared in C; ``seq`` is
    unique, so an event itself is never compared.
    """

    def __init__(self, seed: int = 0) -> None:
        self.now = 0
        self._seq = 0
        self._queue: list[tuple[int, int, SimEvent]] = []
        self._ready: list[SimEvent] = []
        self.rng = random.Random(seed)

    def schedule(self, delay: int, lane: str, name: str, action: Callable[[], None]) -> SimEvent:
        if delay < 0:
            raise ValueError(f"Negative delay {delay} for event {name!r}.")
        self._seq += 1
        due = self.now + delay
        ev = SimEvent(due, self._seq, lane, name, action)
        heapq.heappush(self._queue, (due, self._seq, ev))
        return ev

    def peek(self) -> float:
        """Time of the next event, or infinity."""
        self._drop_cancelled()
        if self._ready:
            return self.now
        return self._queue[0][0] if self._queue else float("inf")

    def _drop_cancelled(self) -> None:
        self._ready = [e for e in self._ready if not e.cancelled]
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)

    def pending(self) -> int:
        return sum(1 for e in self._ready if not e.cancelled) + sum(
            1 for _, _, e in self._queue if not e.cancelled
        )

    def next_event(self) -> SimEvent:
        """Remove and return the event to deliver next (advancing the clock)."""
        self._drop_cancelled()
        if not self._ready:
            if not self._queue:
                raise EmptySchedule()
            t = self._queue[0][0]
            while self._queue and self._queue[0][0] == t:
                ev = heapq.heappop(self._queue)[2]
                if not ev.cancelled:
                    self._ready.append(ev)
            self.now = t
            self._ready.sort(key=_BY_SEQ)
            if not self._ready:
                return self.next_event()
        seen: set[str] = set()
        candidates: list[int] = []
        for i, ev in enumerate(self._ready):
            if ev.lane not in seen:
                seen.add(ev.lane)
                candidates.append(i)
        idx = candidates[self.rng.randrange(len(candidates))] if len(candidates) > 1 else 0
        return self._ready.pop(idx)
