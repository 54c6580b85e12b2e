"""How long a task was back-pressured (blocked on output buffers), measured in simulated time.

Stands for Flink 1.11's back-pressure monitoring: ``BackPressureStatsTrackerImpl`` has
``BackPressureSampleService`` ask ``Task.isBackPressured()`` (no output buffer available,
FLINK-14472; before 1.11 a stack-trace sample in ``requestBufferBuilderBlocking``) and keeps the
ratio of back-pressured samples to all samples; the web UI's level is
``JobVertexBackPressureHandler.getBackPressureLevel``: OK ≤ 0.10 < LOW ≤ 0.5 < HIGH.
Flink takes ``web.backpressure.num-samples`` = 100 samples
``web.backpressure.delay-between-samples`` = 50 ms apart; the simulated clock's unit is one
mailbox step, so here the ratio is exact over the last :data:`SAMPLE_WINDOW_MS` of simulated
time (a sample every simulated ms).
"""

from __future__ import annotations

from collections import deque

#: 100 samples, one per simulated ms (Flink: 100 samples 50 ms apart).
SAMPLE_WINDOW_MS = 100
#: ``getBackPressureLevel``'s upper bounds: OK up to 0.10, LOW up to 0.5, HIGH above.
OK_MAX = 0.10
LOW_MAX = 0.5


def back_pressure_level(ratio: float) -> str:
    """``JobVertexBackPressureHandler.getBackPressureLevel`` (Flink 1.11): OK, LOW or HIGH."""
    if ratio <= OK_MAX:
        return "OK"
    if ratio <= LOW_MAX:
        return "LOW"
    return "HIGH"


class BackPressureTimer:
    """The intervals of simulated time a task was back-pressured while RUNNING (newest kept)."""

    def __init__(self, keep: int = 256) -> None:
        self.running_since: int | None = None
        self.since: int | None = None  # back-pressured since (None: not now)
        self.intervals: deque[tuple[int, int]] = deque(maxlen=keep)
        self.total_ms = 0

    def started(self, now: int) -> None:
        """The task is RUNNING from ``now`` (samples are taken only while it runs)."""
        self.running_since = now

    def update(self, now: int, blocked: bool) -> None:
        """The task is (``blocked``) or is not back-pressured from ``now`` on."""
        if blocked and self.since is None:
            self.since = now
        elif not blocked and self.since is not None:
            if now > self.since:
                self.intervals.append((self.since, now))
                self.total_ms += now - self.since
            self.since = None

    def ratio(self, now: int, window: int = SAMPLE_WINDOW_MS) -> float:
        """The share of the last ``window`` ms (or of the time since RUNNING, if shorter) that
        the task was back-pressured: Flink's back-pressured samples / all samples."""
        if self.running_since is None:
            return 0.0
        start = max(now - window, self.running_since)
        span = now - start
        if span <= 0:
            return 0.0
        blocked = 0
        for a, b in self.intervals:
            blocked += max(0, min(b, now) - max(a, start))
        if self.since is not None:
            blocked += max(0, now - max(self.since, start))
        return blocked / span
