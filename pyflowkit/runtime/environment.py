"""The discrete-event core: one clock, one event heap, one seeded chooser (SimPy-style)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from heapq import heapify, heappop, heappush

# the heap is compacted (cancelled events dropped) once it holds this many events and twice as
# many as after the last compaction: a cancelled far-away timer (a checkpoint's canceller)
# otherwise stays in the heap until its time comes, and every push and pop pays for its depth
COMPACT_AT_LEAST = 16


@dataclass(eq=False, slots=True)
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
        self._compact_at = COMPACT_AT_LEAST

    def schedule(self, delay: int, lane: str, name: str, action: Callable[[], None]) -> SimEvent:
        if delay < 0:
            raise ValueError(f"Negative delay {delay} for event {name!r}.")
        self._seq += 1
        due = self.now + delay
        ev = SimEvent(due, self._seq, lane, name, action)
        queue = self._queue
        heappush(queue, (due, self._seq, ev))
        if len(queue) > self._compact_at:
            self._compact()
        return ev

    def _compact(self) -> None:
        """Drop the cancelled events from the heap (they would be skipped when due)."""
        queue = self._queue
        queue[:] = [entry for entry in queue if not entry[2].cancelled]
        heapify(queue)
        self._compact_at = max(COMPACT_AT_LEAST, 2 * len(queue))

    def peek(self) -> float:
        """Time of the next event, or infinity."""
        ready = self._ready
        for ev in ready:
            if not ev.cancelled:
                return self.now
        ready.clear()  # all cancelled (or none)
        queue = self._queue
        while queue and queue[0][2].cancelled:
            heappop(queue)
        return queue[0][0] if queue else float("inf")

    def pending(self) -> int:
        return sum(1 for e in self._ready if not e.cancelled) + sum(
            1 for _, _, e in self._queue if not e.cancelled
        )

    def next_event(self) -> SimEvent:
        """Remove and return the event to deliver next (advancing the clock)."""
        ready = self._ready
        for ev in ready:
            if ev.cancelled:
                ready = self._ready = [e for e in ready if not e.cancelled]
                break
        if not ready:
            queue = self._queue
            while queue and queue[0][2].cancelled:
                heappop(queue)
            if not queue:
                raise EmptySchedule()
            t = queue[0][0]
            # the events due at t leave the heap in seq order: no sort needed
            while queue and queue[0][0] == t:
                ev = heappop(queue)[2]
                if not ev.cancelled:
                    ready.append(ev)
            self.now = t
        n = len(ready)
        if n == 1:
            return ready.pop()
        lanes = [ev.lane for ev in ready]
        if len(set(lanes)) == n:  # every event is the first of its lane
            return ready.pop(self._draw(n))
        seen: set[str] = set()
        candidates: list[int] = []
        for i, lane in enumerate(lanes):
            if lane not in seen:
                seen.add(lane)
                candidates.append(i)
        if len(candidates) == 1:  # one lane: its first event, no draw
            return ready.pop(0)
        return ready.pop(candidates[self._draw(len(candidates))])

    def _draw(self, n: int) -> int:
        """``self.rng.randrange(n)`` for n >= 1: the same bits drawn, the same number (CPython's
        ``_randbelow_with_getrandbits``), without randrange's argument handling."""
        getrandbits = self.rng.getrandbits
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r
